// The shell every hosted page shares: document head with the nonce'd style
// and script, the merchant header with the language switch, and the footer.
import { CLIENT_SCRIPT } from "./client-script";
import { SUBMIT_ONCE_JS } from "../once/submit-script";
import { escapeHtml } from "./escape";
import type { Locale, Translate } from "./i18n";
import { STYLES } from "./styles";

export interface ShellOptions {
  locale: Locale;
  t: Translate;
  nonce: string;
  title: string;
  /** Header line above the merchant name, e.g. "Payment to". */
  eyebrow?: string;
  merchantName?: string;
  sandbox?: boolean;
  body: string;
  /** Live pages carry the polling script; static pages (not found) need none. */
  script?: boolean;
}

export function renderShell(o: ShellOptions): string {
  const other: Locale = o.locale === "en" ? "zh" : "en";
  const initial = (o.merchantName ?? "").trim().charAt(0).toUpperCase() || "•";
  const header = o.merchantName
    ? `<div class="merchant"><span class="avatar" aria-hidden="true">${escapeHtml(initial)}</span>` +
      `<div><p class="eyebrow">${escapeHtml(o.eyebrow ?? "")}</p><h1>${escapeHtml(o.merchantName)}</h1></div></div>`
    : `<div class="merchant"></div>`;
  const badges = o.sandbox
    ? `<div class="badges"><span class="badge" data-testid="sandbox-badge">${escapeHtml(o.t("sandbox"))}</span></div>`
    : "";
  return `<!doctype html>
<html lang="${escapeHtml(o.t("htmlLang"))}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex,nofollow">
<meta name="color-scheme" content="light">
<meta name="theme-color" content="#1e293b">
<title>${escapeHtml(o.title)}</title>
<link rel="icon" href="data:,">
<style nonce="${escapeHtml(o.nonce)}">${STYLES}</style>
</head>
<body>
<div class="wrap">
<header class="top">${header}<a class="lang" href="?lang=${other}" lang="${other === "zh" ? "zh-CN" : "en"}" hreflang="${other}" aria-label="${escapeHtml(o.t("switchLabel"))}" data-testid="lang-switch">${escapeHtml(o.t("switchTo"))}</a></header>
${badges}
<main>${o.body}</main>
<footer class="foot"><p data-testid="live-note" role="status" aria-live="polite"></p><p>${escapeHtml(o.t("poweredBy"))}</p></footer>
</div>
${o.script ? `<script nonce="${escapeHtml(o.nonce)}">${CLIENT_SCRIPT}</script>` : ""}
${/<form [^>]*method="post"/.test(o.body) ? `<script nonce="${escapeHtml(o.nonce)}">${SUBMIT_ONCE_JS}</script>` : ""}
</body>
</html>`;
}

// Friendly pages for a link that leads nowhere or a page that failed: no details, no stack.
import { escapeHtml } from "./escape";
import { translator, type Locale } from "./i18n";
import { ICONS } from "./icons";
import { renderShell } from "./layout";

export function renderMessagePage(locale: Locale, nonce: string, kind: "notFound" | "error"): string {
  const t = translator(locale);
  const title = t(kind === "notFound" ? "notFoundTitle" : "errorTitle");
  const body = t(kind === "notFound" ? "notFoundBody" : "errorBody");
  return renderShell({
    locale,
    t,
    nonce,
    title,
    body:
      `<div class="card notfound" data-testid="${kind === "notFound" ? "not-found" : "error"}">` +
      `<span class="icon i-wait">${kind === "notFound" ? ICONS.search : ICONS.alert}</span>` +
      `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></div>`,
  });
}

// The page of an exclusive deposit wallet: a long-lived address of one token,
// any amount, with the latest deposits listed and kept fresh.
import { escapeHtml, jsonForScript } from "./escape";
import { networkName, networkOnlyName, statusKey, translator, type Locale } from "./i18n";
import { ICONS } from "./icons";
import { renderShell } from "./layout";
import { qrBlock } from "./checkout-page";
import { pageLinks } from "./wallet-links";
import { displayAmount } from "./status-view";
import { PAYIN_STATUSES, type DepositView } from "./types";

export interface DepositPageOptions {
  deposit: DepositView;
  token: string;
  locale: Locale;
  nonce: string;
  sandbox: boolean;
  serverTime: number;
  pollIntervalMs: number;
}

export function renderDepositPage(p: DepositPageOptions): string {
  const { deposit: d, locale } = p;
  const t = translator(locale);
  const net = networkName(locale, d.chainCode, d.tokenSymbol);
  const enc = encodeURIComponent(p.token);
  const statusText = Object.fromEntries(PAYIN_STATUSES.map((s) => [s, t(statusKey("short", s))]));

  // Rendered here too so the list shows without script; the client redraws it on each poll.
  const items = d.recentDeposits
    .map(
      (r) =>
        `<li><div><div class="amt">${escapeHtml(displayAmount(r.amount))} ${escapeHtml(d.tokenSymbol)}</div>` +
        `<div class="meta"><time datetime="${escapeHtml(r.createdAt)}">${escapeHtml(r.createdAt)}</time></div></div>` +
        `<span class="tag tag-${escapeHtml(r.status)}">${escapeHtml(statusText[r.status] ?? r.status)}</span></li>`,
    )
    .join("");

  const body = `
<div class="card" id="deposit" data-testid="deposit"
  data-status-url="${escapeHtml(enc)}/status"
  data-poll="${p.pollIntervalMs}"
  data-lang="${escapeHtml(t("htmlLang"))}">
  <section class="section">
    <p class="label">${escapeHtml(t("network"))}</p>
    <p class="pill" data-testid="network"><span class="dot dot-${escapeHtml(d.chainCode)}" aria-hidden="true"></span>${escapeHtml(net)}</p>
    ${d.label ? `<p class="sub" data-testid="label">${escapeHtml(d.label)}</p>` : ""}
  </section>
  <section class="section">
    ${qrBlock(t, pageLinks("deposit", d.chainCode, d.address, d.paymentUri), t("qrDepositLabel"))}
  </section>
  <section class="section">
    <p class="label" id="address-label">${escapeHtml(t("depositAddress"))}</p>
    <p class="addr" data-testid="address" aria-labelledby="address-label">${escapeHtml(d.address)}</p>
    <div class="row"><button type="button" class="btn btn-primary btn-block" data-copy="${escapeHtml(d.address)}" data-feedback="address-feedback" data-testid="copy-address">${ICONS.copy}<span>${escapeHtml(t("copyAddress"))}</span></button></div>
    <p class="feedback" id="address-feedback" role="status" aria-live="polite" data-testid="copy-feedback"></p>
    <div class="warn" role="note" data-testid="warning">${ICONS.alert}<div><h3>${escapeHtml(t("warningTitle", { token: d.tokenSymbol, network: networkOnlyName(locale, d.chainCode) }))}</h3>
      <p>${escapeHtml(t("depositWarning", { token: d.tokenSymbol, network: networkOnlyName(locale, d.chainCode) }))}</p></div></div>
  </section>
  <section class="section" aria-labelledby="recent-label">
    <h2 class="label" id="recent-label">${escapeHtml(t("recentDeposits"))}</h2>
    <ul class="deposits" data-testid="deposits" aria-live="polite">${items}</ul>
    <p class="empty" data-testid="no-deposits"${d.recentDeposits.length ? " hidden" : ""}>${escapeHtml(t("noDeposits"))}</p>
  </section>
</div>
<script type="application/json" id="sg-text">${jsonForScript({
    copied: t("copied"),
    copyFailed: t("copyFailed"),
    offline: t("offline"),
    token: d.tokenSymbol,
    status: statusText,
  })}</script>`;

  return renderShell({
    locale,
    t,
    nonce: p.nonce,
    title: t("titleDeposit", { merchant: d.merchantName }),
    eyebrow: t("depositTo"),
    merchantName: d.merchantName,
    sandbox: p.sandbox,
    body,
    script: true,
  });
}

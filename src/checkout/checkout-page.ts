// The hosted checkout page of one pay-in order (cashierUrl). Every state has
// its panel in the HTML; the client script only toggles and fills them.
import { escapeHtml, jsonForScript } from "./escape";
import { networkName, networkOnlyName, statusKey, translator, type Locale, type MessageKey, type Translate } from "./i18n";
import { ICONS } from "./icons";
import { renderShell } from "./layout";
import { qrSvg } from "./qr";
import { pageLinks } from "./wallet-links";
import { explorerOf, explorerTxUrl } from "./explorer";
import { displayAmount } from "./status-view";
import { PAYIN_STATUSES, type CheckoutOrderView, type PayinStatus, type TxHashPageAnswer } from "./types";

export interface CheckoutPageOptions {
  order: CheckoutOrderView;
  token: string;
  locale: Locale;
  nonce: string;
  sandbox: boolean;
  canSimulate: boolean;
  serverTime: number;
  pollIntervalMs: number;
  /** "I have paid" is offered (the order's chain can read a transaction by hash). */
  canCheckTxHash?: boolean;
  /** The answer to the hash the payer just gave, and the hash as typed. */
  txHash?: { answer: TxHashPageAnswer; typed: string };
}

/** Answers that say the payment was found for this order (shown as good news). */
const TX_HASH_GOOD = new Set<TxHashPageAnswer>(["credited", "not_final", "late"]);

/**
 * "I have paid" (DESIGN 25): a form for the transaction hash while the order waits for payment
 * (or expired: a late payment still counts); the answer is read out in the status section.
 */
function txHashForm(t: Translate, p: CheckoutPageOptions, enc: string): string {
  if (!p.canCheckTxHash) return "";
  const claimable = p.order.status === "waiting_payment" || p.order.status === "expired";
  const typed = p.txHash?.typed ?? "";
  const bad = p.txHash && !TX_HASH_GOOD.has(p.txHash.answer);
  return (
    `<section class="section" data-claim data-testid="i-paid"${claimable ? "" : " hidden"}><details${p.txHash ? " open" : ""}>` +
    `<summary class="btn btn-block" data-testid="i-paid-toggle">${escapeHtml(t("iPaid"))}</summary>` +
    `<form method="post" action="${escapeHtml(enc)}?lang=${p.locale}" class="stack" data-testid="tx-hash-form">` +
    `<p class="desc" id="tx-hash-help">${escapeHtml(t("iPaidBody"))}</p>` +
    `<label class="label" for="tx-hash">${escapeHtml(t("txHashLabel"))}</label>` +
    `<input class="input" id="tx-hash" name="txHash" required maxlength="200" autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="tx-hash-help${p.txHash ? " tx-hash-answer" : ""}"${bad ? ' aria-invalid="true"' : ""} value="${escapeHtml(typed)}" data-testid="tx-hash-input">` +
    `<button type="submit" class="btn btn-primary btn-block" data-testid="tx-hash-submit">${escapeHtml(t("txHashCheck"))}</button>` +
    `</form></details></section>`
  );
}

function txHashAnswer(t: Translate, p: CheckoutPageOptions): string {
  if (!p.txHash) return "";
  const vars = { merchant: p.order.merchantName, network: networkOnlyName(p.locale, p.order.chainCode) };
  const cls = TX_HASH_GOOD.has(p.txHash.answer) ? "feedback ok" : "feedback err";
  return `<p class="${cls}" id="tx-hash-answer" role="status" data-testid="tx-hash-answer" data-answer="${p.txHash.answer}">${escapeHtml(t(`txHash.${p.txHash.answer}` as MessageKey, vars))}</p>`;
}

const STATE_ICON: Record<PayinStatus, [string, string]> = {
  waiting_payment: ["i-wait", ICONS.clock],
  detected: ["i-busy", ICONS.spinner],
  confirming: ["i-busy", ICONS.spinner],
  completed: ["i-ok", ICONS.check],
  risk_settled: ["i-warn", ICONS.alert],
  expired: ["i-bad", ICONS.hourglass],
  frozen_abnormal: ["i-warn", ICONS.pause],
  cancelled: ["i-bad", ICONS.cross],
};

/** "29:41" or "1:05:09"; the client keeps it ticking. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm.padStart(2, "0")}:${ss}`;
}

function statePanel(t: Translate, s: PayinStatus, current: PayinStatus, o: CheckoutOrderView, serverTime: number): string {
  const [cls, icon] = STATE_ICON[s];
  const vars = { merchant: o.merchantName };
  let extra = "";
  if (s === "waiting_payment" && o.expireAt) {
    extra = `<p class="timer" data-testid="countdown"><span>${escapeHtml(t("expiresIn"))}</span> <strong role="timer" data-bind="countdown">${formatCountdown(Date.parse(o.expireAt) - serverTime)}</strong></p>`;
  }
  if (s === "detected" || s === "confirming") {
    extra =
      `<div class="progress"><div class="progress-row"><span id="conf-label-${s}">${escapeHtml(t("confirmations"))}</span>` +
      `<strong><span data-bind="confirmations">${o.confirmations}</span> / <span data-bind="required">${o.requiredConfirmations}</span></strong></div>` +
      `<progress data-bind="progress" aria-labelledby="conf-label-${s}" max="${Math.max(1, o.requiredConfirmations)}" value="${Math.min(o.confirmations, o.requiredConfirmations)}"></progress></div>`;
  }
  if (s === "frozen_abnormal") extra = frozenReceived(t, o);
  // Why the money is on hold (issue 28): short, over, late or the operator, said in so many words.
  const why = (s === "frozen_abnormal" || s === "risk_settled") && s === current ? (o.holdReason ?? null) : null;
  if (why) {
    const money = { paid: o.paidAmount ? `${displayAmount(o.paidAmount)} ${o.tokenSymbol}` : "", amount: `${displayAmount(o.amount)} ${o.tokenSymbol}`, merchant: o.merchantName };
    extra = `<p data-testid="hold-reason"><strong>${escapeHtml(t(`hold.${why}` as MessageKey, money))}</strong></p>${extra}`;
  }
  // A risk-settled payment that was short is not "received after expiry".
  const short = s === "risk_settled" && why === "short";
  let title = short ? t("status.risk_settled.short") : t(statusKey("status", s));
  let body = short ? t("body.risk_settled.short", vars) : t(statusKey("body", s), vars);
  // A cancelled order whose payment is being refunded ("Refund all", issue 36): what became of the refund, and its page.
  const refund = s === "cancelled" && s === current ? o.refund : null;
  if (refund) {
    title = t(`cancelledRefund.${refund.state}` as MessageKey);
    body = t(`cancelledRefundBody.${refund.state}` as MessageKey, { ...vars, amount: refund.amount });
    if (refund.url) {
      const link = refund.state === "awaiting_address" ? t("cancelledRefundLink.awaiting_address") : t("cancelledRefundLink");
      extra += `<p class="links"><a class="btn btn-primary btn-block" data-testid="refund-link" href="${escapeHtml(refund.url)}">${escapeHtml(link)}</a></p>`;
    }
  }
  return (
    `<div class="state" data-state="${s}" data-testid="state-${s}"${s === current ? "" : " hidden"}>` +
    `<span class="icon ${cls}">${icon}</span><div class="grow"><h2>${escapeHtml(title)}</h2>` +
    `<p>${escapeHtml(body)}</p>${extra}</div></div>`
  );
}

/** The main QR, the wallet button when some wallet opens it, and an address-only QR as a fallback. */
export function qrBlock(t: Translate, links: ReturnType<typeof pageLinks>, label: string): string {
  const button = links.walletHref
    ? `<a class="btn" href="${escapeHtml(links.walletHref)}" rel="noreferrer">${ICONS.wallet}<span>${escapeHtml(t("openWallet"))}</span></a>`
    : "";
  const fallback = links.addressQr
    ? `<details class="qr-alt" data-testid="qr-address"><summary>${escapeHtml(t("qrAddressOnly"))}</summary>${qrSvg(links.addressQr, t("qrAddressLabel"))}</details>`
    : "";
  return `<div class="qr-box" data-testid="qr">${qrSvg(links.qr, label)}${button}${fallback}</div>`;
}

/**
 * A frozen order shows what arrived and that the merchant reviews it (DESIGN 5). The amount is
 * a bound element, so a page that was open when the order froze fills it in from the status poll.
 */
function frozenReceived(t: Translate, o: CheckoutOrderView): string {
  const paid = o.paidAmount ? `${displayAmount(o.paidAmount)} ${o.tokenSymbol}` : "";
  const [before, after = ""] = t("frozenReceived", { amount: `${displayAmount(o.amount)} ${o.tokenSymbol}`, merchant: o.merchantName }).split("{paid}");
  return `<p data-row="paid-amount" data-testid="frozen-received"${paid ? "" : " hidden"}>${escapeHtml(before)}<strong data-bind="paid-amount">${escapeHtml(paid)}</strong>${escapeHtml(after)}</p>`;
}

export function renderCheckoutPage(p: CheckoutPageOptions): string {
  const { order: o, locale } = p;
  const t = translator(locale);
  const net = networkName(locale, o.chainCode, o.tokenSymbol);
  const amount = displayAmount(o.amount);
  const paying = o.status === "waiting_payment";
  const enc = encodeURIComponent(p.token);

  // Sandbox transactions exist on no public chain: no explorer link there.
  const explorer = p.sandbox ? null : explorerOf(o.chainCode);
  const paid = o.status === "completed" || o.status === "risk_settled";
  const explorerLink = explorer
    ? `<p class="links" data-row="explorer"${o.txHash ? "" : " hidden"}><a data-testid="explorer-link" data-bind-href="explorer" href="${escapeHtml(o.txHash ? explorerTxUrl(o.chainCode, o.txHash) : "#")}" target="_blank" rel="noopener noreferrer">${escapeHtml(t("viewOnExplorer", { explorer: explorer.name }))}</a></p>`
    : "";
  const returnLink = o.redirectUrl
    ? `<div class="section" data-paid data-testid="return"${paid ? "" : " hidden"}><a class="btn btn-primary btn-block" data-testid="return-link" href="${escapeHtml(o.redirectUrl)}" rel="noreferrer">${escapeHtml(t("returnTo", { merchant: o.merchantName }))}</a></div>`
    : "";

  const states = PAYIN_STATUSES.map((s) => statePanel(t, s, o.status, o, p.serverTime)).join("");

  const simulate = p.canSimulate
    ? `<div class="section" data-testid="sandbox-actions" data-pay${paying ? "" : " hidden"}>` +
      `<p class="sandbox-note">${escapeHtml(t("sandboxNote"))}</p>` +
      `<button type="button" class="btn btn-sim btn-block" data-action="simulate" data-testid="simulate">${ICONS.bolt}<span data-label>${escapeHtml(t("simulate"))}</span></button>` +
      `<p class="feedback err" data-bind="simulate-error" role="alert"></p></div>`
    : "";

  const row = (key: "received" | "transaction" | "completedAt", bind: string, value: string | null, mono = false) =>
    `<div data-row="${bind}"${value ? "" : " hidden"}><dt>${escapeHtml(t(key))}</dt><dd${mono ? ' class="mono"' : ""} data-bind="${bind}">${escapeHtml(value ?? "")}</dd></div>`;

  const body = `
<div class="card" id="checkout" data-testid="checkout"
  data-status="${escapeHtml(o.status)}"
  data-status-url="${escapeHtml(enc)}/status"
  data-simulate-url="${escapeHtml(enc)}/simulate"
  data-poll="${p.pollIntervalMs}"
  data-server-time="${p.serverTime}"
  data-expire-at="${escapeHtml(o.expireAt ?? "")}"
  data-explorer="${escapeHtml(explorer?.tx ?? "")}"
  data-lang="${escapeHtml(t("htmlLang"))}">
  <section class="section" aria-labelledby="amount-label">
    <p class="label" id="amount-label"><span data-pay${paying ? "" : " hidden"}>${escapeHtml(t("amountToSend"))}</span><span data-unpay${paying ? " hidden" : ""}>${escapeHtml(t("orderAmount"))}</span></p>
    <div class="amount-row">
      <p class="amount" data-testid="amount"><span data-bind="amount">${escapeHtml(amount)}</span> <span class="sym">${escapeHtml(o.tokenSymbol)}</span></p>
      <button type="button" class="btn btn-sm" aria-label="${escapeHtml(t("copyAmount"))}" data-copy="${escapeHtml(amount)}" data-feedback="amount-feedback" data-testid="copy-amount" data-pay${paying ? "" : " hidden"}>${ICONS.copy}<span>${escapeHtml(t("copy"))}</span></button>
    </div>
    <p class="feedback" id="amount-feedback" role="status" aria-live="polite"></p>
    ${o.invoicePrice ? `<p class="desc" data-testid="invoice-price">${escapeHtml(t("invoicePrice", { price: o.invoicePrice }))}</p>` : ""}
    <p class="pill" data-testid="network"><span class="dot dot-${escapeHtml(o.chainCode)}" aria-hidden="true"></span><span class="sr-only">${escapeHtml(t("network"))}: </span>${escapeHtml(net)}</p>
  </section>
  <section class="section" data-testid="status">
    ${states}
    ${txHashAnswer(t, p)}
    <p class="sr-only" role="status" aria-live="polite" data-bind="announce"></p>
  </section>
  ${returnLink}
  <section class="section" data-pay data-testid="pay"${paying ? "" : " hidden"}>
    ${qrBlock(t, pageLinks("order", o.chainCode, o.address, o.paymentUri), t("qrLabel"))}
  </section>
  <section class="section" data-pay${paying ? "" : " hidden"}>
    <p class="label" id="address-label">${escapeHtml(t("address"))}</p>
    <p class="addr" data-testid="address" aria-labelledby="address-label">${escapeHtml(o.address)}</p>
    <div class="row"><button type="button" class="btn btn-primary btn-block" data-copy="${escapeHtml(o.address)}" data-feedback="address-feedback" data-testid="copy-address">${ICONS.copy}<span>${escapeHtml(t("copyAddress"))}</span></button></div>
    <p class="feedback" id="address-feedback" role="status" aria-live="polite" data-testid="copy-feedback"></p>
    <div class="warn" role="note" data-testid="warning">${ICONS.alert}<div><h3>${escapeHtml(t("warningTitle", { token: o.tokenSymbol, network: networkOnlyName(locale, o.chainCode) }))}</h3>
      <p>${escapeHtml(t("warningBody", { amount, token: o.tokenSymbol, merchant: o.merchantName }))}</p></div></div>
  </section>
  ${simulate}
  ${txHashForm(t, p, enc)}
  ${o.invoiceUrl ? `<section class="section" data-pay data-testid="change-network"${paying ? "" : " hidden"}><a class="btn btn-block" href="${escapeHtml(o.invoiceUrl)}?change=1&amp;lang=${locale}" data-testid="change-network-link">${escapeHtml(t("changeNetwork"))}</a></section>` : ""}
  <section class="section">
    <dl class="details">
      <div data-row="order"><dt>${escapeHtml(t("orderRef"))}</dt><dd class="mono" data-testid="order-no">${escapeHtml(o.orderNo)}</dd></div>
      ${row("received", "paid-amount", o.paidAmount ? `${displayAmount(o.paidAmount)} ${o.tokenSymbol}` : null)}
      ${row("transaction", "tx-hash", o.txHash, true)}
      ${row("completedAt", "completed-at", o.completedAt)}
    </dl>
    ${explorerLink}
  </section>
</div>
<script type="application/json" id="sg-text">${jsonForScript({
    copied: t("copied"),
    copyFailed: t("copyFailed"),
    simulate: t("simulate"),
    simulating: t("simulating"),
    simulateFailed: t("simulateFailed"),
    offline: t("offline"),
    token: o.tokenSymbol,
  })}</script>`;

  return renderShell({
    locale,
    t,
    nonce: p.nonce,
    title: t("titlePay", { merchant: o.merchantName }),
    eyebrow: t("payTo"),
    merchantName: o.merchantName,
    sandbox: p.sandbox,
    body,
    script: true,
  });
}

// The payer's refund page (refundUrl, DESIGN 20): the amount, and while the refund waits for an
// address a form with "Your address", "Repeat your address" and "Send refund" (no script needed);
// afterwards what became of it. Phone first, both languages, like the checkout. A failed refund says
// nothing was sent and that the shop was told and can send it again; never why (refunds.last_error
// may name the merchant's addresses and balances: it is for the back office only). Once broadcast it
// shows the transaction hash, linked on the chain's explorer (issue 36).
import { escapeHtml } from "./escape";
import { ONCE_FIELD } from "../once/once";
import { networkName, networkOnlyName, translator, type Locale, type MessageKey, type Translate } from "./i18n";
import { explorerOf, explorerTxUrl } from "./explorer";
import { ICONS } from "./icons";
import { renderShell } from "./layout";
import type { RefundPageView, RefundProblem } from "./types";

export interface RefundPageOptions {
  refund: RefundPageView;
  token: string;
  locale: Locale;
  nonce: string;
  sandbox: boolean;
  problem?: RefundProblem;
  /** What the payer typed, shown again with a problem. */
  typed?: string;
  /** The form's one-time token (src/once/once.ts). */
  formToken?: string;
}

const DONE: Record<string, [string, string, string]> = {
  submitted: ["i-busy", ICONS.hourglass, "sending"],
  broadcasted: ["i-busy", ICONS.hourglass, "sending"],
  confirmed: ["i-ok", ICONS.check, "confirmed"],
  failed: ["i-bad", ICONS.cross, "failed"],
};

/**
 * The refund's transaction once broadcast (issue 36): its hash, and a link to the chain's explorer
 * (not on a sandbox chain, whose transactions exist on no public chain).
 */
function refundTx(t: Translate, r: RefundPageView, sandbox: boolean): string {
  if (!r.txHash || (r.status !== "broadcasted" && r.status !== "confirmed")) return "";
  const explorer = sandbox ? null : explorerOf(r.chainCode);
  const link = explorer
    ? `<p class="links"><a data-testid="refund-explorer-link" href="${escapeHtml(explorerTxUrl(r.chainCode, r.txHash))}" target="_blank" rel="noopener noreferrer">${escapeHtml(t("viewOnExplorer", { explorer: explorer.name }))}</a></p>`
    : "";
  return `<section class="section"><dl class="details"><div><dt>${escapeHtml(t("refundTx"))}</dt><dd class="mono" data-testid="refund-tx">${escapeHtml(r.txHash)}</dd></div></dl>${link}</section>`;
}

export function renderRefundPage(p: RefundPageOptions): string {
  const { refund: r, locale } = p;
  const t = translator(locale);
  const network = networkName(locale, r.chainCode, r.tokenSymbol);
  const amount = `${r.amount} ${r.tokenSymbol}`;
  const chainName = networkOnlyName(locale, r.chainCode);
  const head =
    `<section class="section" aria-labelledby="amount-label">` +
    `<p class="label" id="amount-label">${escapeHtml(t("refundAmount"))}</p>` +
    `<p class="amount" data-testid="refund-amount">${escapeHtml(r.amount)} <span class="sym">${escapeHtml(r.tokenSymbol)}</span></p>` +
    `<p class="pill"><span class="dot dot-${escapeHtml(r.chainCode)}" aria-hidden="true"></span>${escapeHtml(network)}</p></section>`;

  let main: string;
  if (r.status === "awaiting_address") {
    const problem = p.problem
      ? `<p class="feedback err" role="alert" id="refund-problem" data-testid="problem">${escapeHtml(t(`refundProblem.${p.problem}` as MessageKey, { network: chainName, merchant: r.merchantName }))}</p>`
      : "";
    const described = p.problem ? ' aria-describedby="refund-problem" aria-invalid="true"' : "";
    const typed = p.typed ? ` value="${escapeHtml(p.typed)}"` : "";
    main =
      `<section class="section"><form method="post" action="${escapeHtml(encodeURIComponent(p.token))}?lang=${locale}" class="form" data-testid="refund-form">` +
      (p.formToken ? `<input type="hidden" name="${ONCE_FIELD}" value="${escapeHtml(p.formToken)}">` : "") +
      `<p class="hint">${escapeHtml(t("refundAsk", { merchant: r.merchantName, network: chainName }))}</p>${problem}` +
      `<label class="field" for="address">${escapeHtml(t("yourAddress"))}</label>` +
      `<input class="input" id="address" name="address" required autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="128"${typed}${described}>` +
      `<label class="field" for="repeat">${escapeHtml(t("repeatAddress"))}</label>` +
      `<input class="input" id="repeat" name="repeat" required autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="128">` +
      `<button type="submit" class="btn btn-primary btn-block send">${escapeHtml(t("sendRefund"))}</button></form></section>`;
  } else {
    const [cls, icon, key] = DONE[r.status] ?? DONE.submitted!;
    main =
      `<section class="section" data-testid="refund-${escapeHtml(key)}"><div class="state"><span class="icon ${cls}">${icon}</span><div class="grow">` +
      `<h2>${escapeHtml(t(`refund.${key}` as MessageKey))}</h2><p>${escapeHtml(t(`refundBody.${key}` as MessageKey, { amount, address: r.toAddress ?? "", merchant: r.merchantName }))}</p></div></div></section>`;
  }
  const body =
    `<div class="card" data-testid="refund" data-status="${escapeHtml(r.status)}">${head}${main}${refundTx(t, r, p.sandbox)}` +
    (r.orderNo ? `<section class="section"><dl class="details"><div><dt>${escapeHtml(t("refundRef"))}</dt><dd class="mono" data-testid="order-no">${escapeHtml(r.orderNo)}</dd></div></dl></section>` : "") +
    `</div>`;
  return renderShell({ locale, t, nonce: p.nonce, title: t("titleRefund", { merchant: r.merchantName }), eyebrow: t("refundFrom"), merchantName: r.merchantName, sandbox: p.sandbox, body });
}

// The hosted page of an invoice (invoiceUrl, DESIGN 18): the price and one button per allowed
// network, named "<chain label> <token>". Choosing posts the form (no script needed) and leads
// to the usual checkout of the pay-in it creates; the checkout links back here ("Change network")
// until a payment is detected.
import { escapeHtml } from "./escape";
import { translator, type Locale, type MessageKey } from "./i18n";
import { ICONS } from "./icons";
import { renderShell } from "./layout";
import { formatCountdown } from "./checkout-page";
import type { InvoiceChoiceProblem, InvoicePageView } from "./types";

export interface InvoicePageOptions {
  invoice: InvoicePageView;
  token: string;
  locale: Locale;
  nonce: string;
  sandbox: boolean;
  serverTime: number;
  /** The payer came back from the checkout to change the network. */
  changing: boolean;
  /** A refused choice, shown above the buttons. */
  problem?: InvoiceChoiceProblem;
}

const CLOSED: Record<string, [string, string]> = {
  expired: ["i-bad", ICONS.hourglass],
  cancelled: ["i-bad", ICONS.cross],
  paid: ["i-ok", ICONS.check],
};

export function renderInvoicePage(p: InvoicePageOptions): string {
  const { invoice: inv, locale } = p;
  const t = translator(locale);
  const enc = encodeURIComponent(p.token);
  const lang = `?lang=${locale}`;
  const open = inv.status === "open" && Date.parse(inv.expireAt) > p.serverTime;
  const shown = open ? "open" : inv.status === "open" ? "expired" : inv.status;

  const price =
    `<section class="section" aria-labelledby="price-label">` +
    `<p class="label" id="price-label">${escapeHtml(t("amountDue"))}</p>` +
    `<p class="amount" data-testid="price">${escapeHtml(inv.priceAmount)} <span class="sym">${escapeHtml(inv.priceCurrency)}</span></p>` +
    (inv.description ? `<p class="desc" data-testid="description">${escapeHtml(inv.description)}</p>` : "") +
    (open
      ? `<p class="timer" data-testid="countdown"><span>${escapeHtml(t("expiresIn"))}</span> <strong>${formatCountdown(Date.parse(inv.expireAt) - p.serverTime)}</strong></p>`
      : "") +
    `</section>`;

  let main: string;
  if (open) {
    const current = inv.current?.network ?? null;
    const problem = p.problem ? `<p class="feedback err" role="alert" data-testid="problem">${escapeHtml(t(`problem.${p.problem}` as MessageKey))}</p>` : "";
    const buttons = inv.networks
      .map((n) => {
        const isCurrent = n.value === current;
        return (
          `<li><button type="submit" class="btn btn-block net" name="network" value="${escapeHtml(n.value)}" data-testid="network-${escapeHtml(n.value)}"` +
          `${isCurrent ? ' aria-describedby="current-note"' : ""}>` +
          `<span class="dot dot-${escapeHtml(n.chainCode)}" aria-hidden="true"></span><span>${escapeHtml(n.label)}</span>` +
          `${isCurrent ? `<span class="tag" aria-hidden="true">${escapeHtml(t("currentNetwork"))}</span>` : ""}</button></li>`
        );
      })
      .join("");
    const back =
      (inv.current ? `<p class="sr-only" id="current-note">${escapeHtml(t("currentNetwork"))}</p>` : "") +
      (p.changing && inv.current
        ? `<p class="links"><a href="../checkout/${escapeHtml(encodeURIComponent(inv.current.checkoutToken))}${lang}" data-testid="back-to-payment">${escapeHtml(t("backToPayment"))}</a></p>`
        : "");
    main =
      `<section class="section" aria-labelledby="choose-title">` +
      `<h2 id="choose-title" class="h2">${escapeHtml(t("chooseNetwork"))}</h2>` +
      `<p class="hint">${escapeHtml(t("chooseNetworkBody"))}</p>${problem}` +
      `<form method="post" action="${escapeHtml(enc)}/pay${lang}" data-testid="networks"><ul class="nets">${buttons}</ul></form>${back}</section>`;
  } else {
    const [cls, icon] = CLOSED[shown] ?? ["i-warn", ICONS.pause];
    const key = CLOSED[shown] ? shown : "cancelled";
    main =
      `<section class="section" data-testid="invoice-${escapeHtml(shown)}"><div class="state"><span class="icon ${cls}">${icon}</span><div class="grow">` +
      `<h2>${escapeHtml(t(`invoice.${key}` as MessageKey))}</h2><p>${escapeHtml(t(`invoiceBody.${key}` as MessageKey, { merchant: inv.merchantName }))}</p></div></div></section>`;
  }

  const body =
    `<div class="card" data-testid="invoice" data-status="${escapeHtml(shown)}">${price}${main}` +
    `<section class="section"><dl class="details"><div><dt>${escapeHtml(t("invoiceRef"))}</dt><dd class="mono" data-testid="invoice-no">${escapeHtml(inv.invoiceNo)}</dd></div></dl></section></div>`;

  return renderShell({
    locale,
    t,
    nonce: p.nonce,
    title: t("titlePay", { merchant: inv.merchantName }),
    eyebrow: t("payTo"),
    merchantName: inv.merchantName,
    sandbox: p.sandbox,
    body,
  });
}

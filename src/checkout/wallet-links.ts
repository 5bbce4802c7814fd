// What the hosted pages put in their QR codes and "Open in wallet app"
// buttons; each chain module's walletLinks rule says which (docs/wallet-links.md
// has the research behind them). The API's paymentUri is fixed by DESIGN 5;
// this only chooses what the page shows, by what the wallets payers actually use read.
import type { ChainCode } from "../chains/types";
import { chainModule } from "../chains/registry";

export interface PageLinks {
  /** Text of the main QR. */
  qr: string;
  /** A second, address-only QR for wallets that cannot read the main one (null when the main one is the address). */
  addressQr: string | null;
  /** href of "Open in wallet app", or null when no wallet would open it. */
  walletHref: string | null;
}

export function pageLinks(kind: "order" | "deposit", chain: ChainCode, address: string, paymentUri: string): PageLinks {
  const rule = chainModule(chain).walletLinks;
  const qr = rule[kind] === "address" ? address : paymentUri;
  return { qr, addressQr: qr === address ? null : address, walletHref: rule.walletButton ? paymentUri : null };
}

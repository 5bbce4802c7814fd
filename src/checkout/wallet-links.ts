// What the hosted pages put in their QR codes and "Open in wallet app"
// buttons, per chain (docs/wallet-links.md has the research behind it).
// The API's paymentUri is fixed by DESIGN 5; this only chooses what the
// page shows, by what the wallets payers actually use read.
import type { ChainCode } from "../chains/types";

/** `address`: the bare address; `paymentUri`: the API's paymentUri (EIP-681 or Solana Pay). */
type QrSource = "address" | "paymentUri";

interface ChainLinks {
  /** QR of a pay-in order (amount known). */
  order: QrSource;
  /** QR of an exclusive deposit address (no amount). */
  deposit: QrSource;
  /** Whether the paymentUri is worth a button: some installed wallet registers its scheme. */
  walletButton: boolean;
}

export const WALLET_LINKS: Record<ChainCode, ChainLinks> = {
  // No TRON wallet documents a payment URI; all of them read a bare address.
  TRON: { order: "address", deposit: "address", walletButton: false },
  // EIP-681 prefills token and amount in MetaMask, Trust, imToken, TokenPocket; a
  // deposit has no amount, and the bare address is what every wallet reads.
  BSC: { order: "paymentUri", deposit: "address", walletButton: true },
  // Solana Pay pins the USDC mint (a bare address lets the payer send SOL by mistake).
  SOL: { order: "paymentUri", deposit: "paymentUri", walletButton: true },
};

export interface PageLinks {
  /** Text of the main QR. */
  qr: string;
  /** A second, address-only QR for wallets that cannot read the main one (null when the main one is the address). */
  addressQr: string | null;
  /** href of "Open in wallet app", or null when no wallet would open it. */
  walletHref: string | null;
}

export function pageLinks(kind: "order" | "deposit", chain: ChainCode, address: string, paymentUri: string): PageLinks {
  const rule = WALLET_LINKS[chain];
  const qr = rule[kind] === "address" ? address : paymentUri;
  return { qr, addressQr: qr === address ? null : address, walletHref: rule.walletButton ? paymentUri : null };
}

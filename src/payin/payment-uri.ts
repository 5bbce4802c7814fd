// Wallet-launch URIs per chain (DESIGN 5).
import { createHash } from "node:crypto";
import { base58 } from "@scure/base";
import type { ChainCode, TokenInfo } from "../chains/types";
import { fromBaseUnits } from "../lib/money";

/** Solana Pay reference: a stable 32-byte key per order, so the wallet's transaction can be found by it. */
export function solanaReference(orderNo: string): string {
  return base58.encode(createHash("sha256").update("stablegate-reference:" + orderNo).digest());
}

export function paymentUri(chain: ChainCode, token: TokenInfo, address: string, amount: bigint | null, orderNo?: string): string {
  const ui = amount === null ? null : fromBaseUnits(amount, token.decimals, 0);
  switch (chain) {
    case "BSC":
      return `ethereum:${token.contract}@56/transfer?address=${address}` + (amount === null ? "" : `&uint256=${amount.toString()}`);
    case "SOL": {
      const q = new URLSearchParams();
      if (ui !== null) q.set("amount", ui);
      q.set("spl-token", token.contract);
      if (orderNo) q.set("reference", solanaReference(orderNo));
      return `solana:${address}?${q.toString()}`;
    }
    case "TRON":
      return `tron:${address}?` + (ui === null ? "" : `amount=${ui}&`) + `token=${token.contract}`;
  }
}

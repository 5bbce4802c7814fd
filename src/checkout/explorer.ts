// Public block explorers, for the payer's "View transaction" link.
import type { ChainCode } from "../chains/types";

export const EXPLORERS: Record<ChainCode, { name: string; tx: string }> = {
  TRON: { name: "Tronscan", tx: "https://tronscan.org/#/transaction/{tx}" },
  BSC: { name: "BscScan", tx: "https://bscscan.com/tx/{tx}" },
  SOL: { name: "Solscan", tx: "https://solscan.io/tx/{tx}" },
};

export function explorerTxUrl(chain: ChainCode, txHash: string): string {
  return EXPLORERS[chain].tx.replace("{tx}", encodeURIComponent(txHash));
}

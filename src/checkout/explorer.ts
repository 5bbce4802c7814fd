// Public block explorers, for the payer's "View transaction" link (each chain module names its own).
import type { ChainCode } from "../chains/types";
import { chainModule } from "../chains/registry";

export function explorerOf(chain: ChainCode): { name: string; tx: string } {
  return chainModule(chain).explorer;
}

export function explorerTxUrl(chain: ChainCode, txHash: string): string {
  return explorerOf(chain).tx.replace("{tx}", encodeURIComponent(txHash));
}

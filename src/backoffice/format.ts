// Display helpers: token decimals of the running chains, explorer links.
import { DEFAULT_TOKENS } from "../chains/tokens";
import type { ChainAdapter, ChainCode } from "../chains/types";

/** What the display helpers read: the running chains (their tokens, and which are sandbox). */
export interface DisplayCtx {
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
}

export function decimalsOf(ctx: DisplayCtx): (chain: string, token: string) => number {
  return (chain, token) =>
    ctx.chains.get(chain as ChainCode)?.tokens.find((t) => t.symbol === token)?.decimals ?? DEFAULT_TOKENS.find((t) => t.chain === chain && t.symbol === token)?.decimals ?? 6;
}

const EXPLORERS: Record<string, { tx: string; address: string }> = {
  TRON: { tx: "https://tronscan.org/#/transaction/", address: "https://tronscan.org/#/address/" },
  BSC: { tx: "https://bscscan.com/tx/", address: "https://bscscan.com/address/" },
  SOL: { tx: "https://solscan.io/tx/", address: "https://solscan.io/account/" },
};

/** A public explorer link, or null on sandbox chains (their transactions exist only here). */
export function explorerUrl(ctx: DisplayCtx, chain: string, kind: "tx" | "address", value: string): string | null {
  const adapter = ctx.chains.get(chain as ChainCode);
  if (!adapter || adapter.mode === "sandbox") return null;
  const e = EXPLORERS[chain];
  return e ? e[kind] + encodeURIComponent(value) : null;
}

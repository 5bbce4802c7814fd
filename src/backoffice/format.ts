// Display helpers: token decimals of the running chains, explorer links.
import { defaultToken } from "../chains/registry";
import type { ChainAdapter, ChainCode } from "../chains/types";
import { chainModule, hasChainModule } from "../chains/registry";

/** What the display helpers read: the running chains (their tokens, and which are sandbox). */
export interface DisplayCtx {
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
}

export function decimalsOf(ctx: DisplayCtx): (chain: string, token: string) => number {
  return (chain, token) =>
    ctx.chains.get(chain as ChainCode)?.tokens.find((t) => t.symbol === token)?.decimals ?? defaultToken(chain, token)?.decimals ?? 6;
}

/** A public explorer link (the chain module's explorer), or null on sandbox chains (their transactions exist only here). */
export function explorerUrl(ctx: DisplayCtx, chain: string, kind: "tx" | "address", value: string): string | null {
  const adapter = ctx.chains.get(chain as ChainCode);
  if (!adapter || adapter.mode === "sandbox" || !hasChainModule(chain)) return null;
  return chainModule(chain).explorer[kind].replace(`{${kind}}`, encodeURIComponent(value));
}

/** The symbol of a chain's native coin (BNB, TRX, SOL), which pays its fees. */
export function nativeSymbol(chain: string): string {
  return hasChainModule(chain) ? chainModule(chain).native.symbol : "";
}

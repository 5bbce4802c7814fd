// The chain registry: chain code → its module (src/chains/<chain>/index.ts): the one list of
// the product's chains and, through each module's defaults, of their tokens. Adding a chain is
// one module plus one line here. Building adapters from config is chains/factory.ts.
import { arbitrumChain } from "./arbitrum";
import { avalancheChain } from "./avalanche";
import { baseChain } from "./base";
import { bscChain } from "./bsc";
import { ethChain } from "./eth";
import { optimismChain } from "./optimism";
import { plasmaChain } from "./plasma";
import { polygonChain } from "./polygon";
import { solChain } from "./sol";
import { tonChain } from "./ton";
import { tronChain } from "./tron";
import { xlayerChain } from "./xlayer";
import type { ChainModule } from "./module";
import type { ChainCode, TokenInfo, TokenSymbol } from "./types";

// Built on first use, so a module that reads the registry at load time (a field schema's
// example) does not depend on import order.
let modules: Map<ChainCode, ChainModule> | undefined;
function registry(): Map<ChainCode, ChainModule> {
  return (modules ??= new Map<ChainCode, ChainModule>([tronChain, bscChain, solChain, ethChain, polygonChain, arbitrumChain, baseChain, optimismChain, avalancheChain, xlayerChain, plasmaChain, tonChain].map((m) => [m.code, m])));
}

/** The module of `chain`; throws on a code no module defines. */
export function chainModule(chain: ChainCode): ChainModule {
  const m = registry().get(chain);
  if (!m) throw new Error(`unknown chain: ${String(chain)}`);
  return m;
}

export function hasChainModule(chain: string): chain is ChainCode {
  return registry().has(chain as ChainCode);
}

/** Every registered chain module, in registration order. */
export function chainModules(): ChainModule[] {
  return [...registry().values()];
}

/**
 * Registers a module (tests: an extra EVM profile). Returns an undo. Production code
 * registers nothing at run time: the list above is the product's chains.
 */
export function registerChainModule(m: ChainModule): () => void {
  const reg = registry();
  const before = reg.get(m.code);
  reg.set(m.code, m);
  symbols = undefined;
  return () => {
    symbols = undefined;
    return before ? reg.set(m.code, before) : reg.delete(m.code);
  };
}

/** A chain's tokens: its module's defaults with the config section's overrides. */
export function tokensFor(chain: ChainCode, cfg: { tokens: object }): TokenInfo[] {
  return chainModule(chain).defaults.tokens.map((t) => {
    const o = (cfg.tokens as Record<string, { contract?: string; decimals?: number } | undefined>)[t.symbol];
    return { ...t, contract: o?.contract ?? t.contract, decimals: o?.decimals ?? t.decimals };
  });
}

/** Every registered chain code, in registration order. */
export function chainCodes(): ChainCode[] {
  return chainModules().map((m) => m.code);
}

let symbols: readonly TokenSymbol[] | undefined;
/** Every token symbol some registered chain carries (built once: every create checks its token against it). */
export function tokenSymbols(): readonly TokenSymbol[] {
  return (symbols ??= [...new Set(chainModules().flatMap((m) => m.defaults.tokens.map((t) => t.symbol)))]);
}

/** A chain's default token facts (contract, decimals) before config overrides; undefined when the chain or token is unknown. */
export function defaultToken(chain: string, symbol: string): TokenInfo | undefined {
  return hasChainModule(chain) ? chainModule(chain).defaults.tokens.find((t) => t.symbol === symbol) : undefined;
}

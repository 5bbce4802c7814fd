// The chain registry: chain code → its module (src/chains/<chain>/index.ts), and the
// adapters built from config. Adding a chain is one module plus one line here.
import type { ChainConfig, Config } from "../config/schema";
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import { DEFAULT_TOKENS } from "./tokens";
import { SandboxChain } from "./sandbox/chain";
import { bscChain } from "./bsc";
import { solChain } from "./sol";
import { tronChain } from "./tron";
import type { ChainModule } from "./module";
import type { Logger } from "../lib/logger";
import type { ChainAdapter, ChainCode, TokenInfo } from "./types";

// Built on first use: chain modules import code (payout steps, wallet) that imports
// this file back, so nothing here may read them while the modules load.
let modules: Map<ChainCode, ChainModule> | undefined;
function registry(): Map<ChainCode, ChainModule> {
  return (modules ??= new Map<ChainCode, ChainModule>([tronChain, bscChain, solChain].map((m) => [m.code, m])));
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
  return () => (before ? reg.set(m.code, before) : reg.delete(m.code));
}

export function tokensFor(chain: ChainCode, cfg: ChainConfig): TokenInfo[] {
  return DEFAULT_TOKENS.filter((t) => t.chain === chain).map((t) => {
    const o = (cfg.tokens as Record<string, { contract?: string; decimals?: number } | undefined>)[t.symbol];
    return { ...t, contract: o?.contract ?? t.contract, decimals: o?.decimals ?? t.decimals };
  });
}

function rpcLogger(l: Logger) {
  return {
    info: (o: Record<string, unknown>) => l.info("rpc", o),
    warn: (o: Record<string, unknown>) => l.warn("rpc", o),
    error: (o: Record<string, unknown>) => l.error("rpc", o),
  };
}

/** What building the adapters reads: the chain sections, and the sandbox chain's storage and time. */
export interface MakeChainsCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, "chains">;
}

export function makeChains(ctx: MakeChainsCtx): Map<ChainCode, ChainAdapter> {
  const out = new Map<ChainCode, ChainAdapter>();
  for (const m of chainModules()) {
    const chain = m.code;
    const cfg = ctx.config.chains[chain];
    if (!cfg?.enabled) continue;
    const tokens = tokensFor(chain, cfg);
    if (cfg.mode === "sandbox") {
      out.set(chain, new SandboxChain({ chain, db: ctx.db, tokens, confirmations: cfg.confirmations, now: () => ctx.clock.now() }));
    } else {
      out.set(chain, m.createAdapter({ cfg, tokens, logger: rpcLogger(ctx.logger.child({ chain })), clock: ctx.clock }));
    }
  }
  return out;
}

// Builds the gateway's chain adapters from config: for each enabled chain, the sandbox chain
// or the module's rpc-mode bundle (adapter, payout steps, jobs, fee estimate, reconcile).
// Callers that need more than the ChainAdapter interface ask `chainBundle(adapter)`: the
// bundle the adapter was built in, never a guess from the adapter's shape.
import type { Db } from "../db/client";
import { isPg } from "../db/engine";
import { parseDuration } from "../lib/duration";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { ChainBundle, ChainModule, ChainSectionConfig } from "./module";
import { chainModules, tokensFor } from "./registry";
import { SandboxChain } from "./sandbox/chain";
import type { ChainAdapter, ChainCode, TokenInfo } from "./types";

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
  /** The `chains.<CODE>` sections (src/config/schema.ts; the chain layer does not import config/). */
  config: { chains: { readonly [code: string]: ChainSectionConfig | undefined } };
  /** The HD seed: a sandbox chain's gas wallet starts funded (DESIGN 21). */
  seed?: Uint8Array;
}

// The bundle each adapter was built in (adapters built elsewhere, e.g. by a test, have none:
// chainBundle answers the adapter alone).
const bundles = new WeakMap<ChainAdapter, ChainBundle>();

/** One chain's adapter bundle for its config section: the sandbox chain, or the module's rpc adapter. */
export function createAdapter(m: ChainModule, cfg: ChainSectionConfig, ctx: MakeChainsCtx): ChainBundle {
  const chain = m.code;
  const tokens = tokensFor(chain, cfg);
  const bundle: ChainBundle = cfg.mode === "sandbox" ? sandboxBundle(m, cfg, ctx, tokens) : m.createAdapter({ cfg, tokens, logger: rpcLogger(ctx.logger.child({ chain })), clock: ctx.clock });
  bundles.set(bundle.adapter, bundle);
  return bundle;
}

/** A sandbox chain, with what its module models on it (TRON: payout steps, energy jobs, staking). */
function sandboxBundle(m: ChainModule, cfg: ChainSectionConfig, ctx: MakeChainsCtx, tokens: TokenInfo[]): ChainBundle {
  // SQLite (one gateway on the file): the head follows the clock. PostgreSQL: another gateway may mine
  // (its /sandbox), so the pace job writes each block there (chain.ts SandboxOptions.blockMs).
  const blockMs = isPg(ctx.db) ? 0 : parseDuration(cfg.block_time);
  const adapter = new SandboxChain({ chain: m.code, db: ctx.db, tokens, confirmations: cfg.confirmations, now: () => ctx.clock.now(), seed: ctx.seed, blockMs });
  return { ...m.sandbox?.bundle(adapter, cfg), adapter };
}

/** The adapter of every enabled chain, in registration order. */
export function makeChains(ctx: MakeChainsCtx): Map<ChainCode, ChainAdapter> {
  const out = new Map<ChainCode, ChainAdapter>();
  for (const m of chainModules()) {
    const cfg = ctx.config.chains[m.code];
    if (cfg?.enabled) out.set(m.code, createAdapter(m, cfg, ctx).adapter);
  }
  return out;
}

/** The bundle `adapter` was built in (createAdapter); an adapter built elsewhere stands alone. */
export function chainBundle(adapter: ChainAdapter): ChainBundle {
  return bundles.get(adapter) ?? { adapter };
}

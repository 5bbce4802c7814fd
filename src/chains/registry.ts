// Builds one ChainAdapter per enabled chain from config.
import type { AppContext } from "../app/context";
import type { ChainConfig } from "../config/schema";
import { DEFAULT_TOKENS } from "./tokens";
import { SandboxChain } from "./sandbox/chain";
import { createBscAdapter } from "./bsc/adapter";
import { createSolAdapter } from "./sol/adapter";
import { createTronAdapter } from "./tron/adapter";
import type { Logger } from "../lib/logger";
import type { ChainAdapter, ChainCode, TokenInfo } from "./types";

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

export function makeChains(ctx: Omit<AppContext, "chains">): Map<ChainCode, ChainAdapter> {
  const out = new Map<ChainCode, ChainAdapter>();
  for (const chain of ["TRON", "BSC", "SOL"] as const) {
    const cfg = ctx.config.chains[chain];
    if (!cfg.enabled) continue;
    const tokens = tokensFor(chain, cfg);
    if (cfg.mode === "sandbox") {
      out.set(chain, new SandboxChain({ chain, db: ctx.db, tokens, confirmations: cfg.confirmations, now: () => ctx.clock.now() }));
    } else if (chain === "BSC") {
      out.set(
        chain,
        createBscAdapter({
          rpcUrls: cfg.rpc_urls,
          tokens,
          confirmations: cfg.confirmations,
          gasPriceCap: cfg.gas_price_cap ? BigInt(cfg.gas_price_cap) : undefined,
          logger: rpcLogger(ctx.logger.child({ chain })),
        }),
      );
    } else if (chain === "SOL") {
      out.set(chain, createSolAdapter({ rpcUrls: cfg.rpc_urls, tokens, confirmations: cfg.confirmations, logger: rpcLogger(ctx.logger.child({ chain })) }));
    } else {
      out.set(chain, createTronAdapter({ rpcUrls: cfg.rpc_urls, apiKey: cfg.api_key, tokens, confirmations: cfg.confirmations, logger: rpcLogger(ctx.logger.child({ chain })) }));
    }
  }
  return out;
}

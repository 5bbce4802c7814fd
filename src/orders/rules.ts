// Order rules the spec gives their own codes, shared by the pay-in and payout services.
import type { Config } from "../config/schema";
import { AppError, invalid } from "../errors";
import { type ChainAdapter, type ChainCode, type TokenInfo, type TokenSymbol } from "../chains/types";
import { chainModule, hasChainModule, tokenSymbols } from "../chains/registry";
import { compareAmounts, toBaseUnits } from "../lib/money";
import { notifyUrlProblem } from "../lib/target-url";

/** What the order rules read: the enabled chains and the config sections with limits. */
export interface OrderRuleDeps {
  chains: ReadonlyMap<ChainCode, ChainAdapter>;
  config: Pick<Config, "chains" | "callbacks">;
}

/** Chain and token codes: 31001 / 31002 / 31003 (spec 7); the chains are the registered modules. */
export function checkChainToken(chainCode: string, tokenSymbol: string): { chain: ChainCode; token: TokenSymbol } {
  if (!hasChainModule(chainCode)) throw new AppError(31001, { chainCode });
  if (!tokenSymbols().includes(tokenSymbol as TokenSymbol)) throw new AppError(31002, { tokenSymbol });
  if (!chainModule(chainCode).defaults.tokens.some((t) => t.symbol === tokenSymbol)) throw new AppError(31003, { chainCode, tokenSymbol });
  return { chain: chainCode as ChainCode, token: tokenSymbol as TokenSymbol };
}

export function chainAndToken(ctx: Pick<OrderRuleDeps, "chains">, chainCode: string, tokenSymbol: string): { adapter: ChainAdapter; token: TokenInfo } {
  const { chain, token } = checkChainToken(chainCode, tokenSymbol);
  const adapter = ctx.chains.get(chain);
  if (!adapter) throw new AppError(31001, { chainCode }, "Chain not enabled on this gateway");
  const info = adapter.tokens.find((t) => t.symbol === token);
  if (!info) throw new AppError(31003, { chainCode, tokenSymbol });
  return { adapter, token: info };
}

/** Scale the limits are compared at: every amount rule's fraction fits (a token has at most 18 decimals). */
const LIMIT_SCALE = 36;
const limitUnits = new Map<string, bigint | null>();
/** A configured limit in base units at LIMIT_SCALE, parsed once per text (null: not a plain decimal, compared with Big). */
function limitAt36(limit: string): bigint | null {
  let v = limitUnits.get(limit);
  if (v === undefined) {
    try {
      v = toBaseUnits(limit, LIMIT_SCALE);
    } catch {
      v = null;
    }
    if (limitUnits.size < 1000) limitUnits.set(limit, v);
  }
  return v;
}
/** amount (base units at `decimals`) against a configured limit: exact, as compareAmounts (no Big per request). */
function compareToLimit(amount: string, units: bigint, decimals: number, limit: string): number {
  const l = limitAt36(limit);
  if (l === null || decimals > LIMIT_SCALE) return compareAmounts(amount, limit);
  const a = units * 10n ** BigInt(LIMIT_SCALE - decimals);
  return a < l ? -1 : a > l ? 1 : 0;
}

/** Amount rules (DESIGN 4): > 0, within the token's configured min/max. */
export function checkAmount(ctx: Pick<OrderRuleDeps, "config">, chain: ChainCode, token: TokenSymbol, amount: string, decimals: number): bigint {
  const units = toBaseUnits(amount, decimals);
  if (units <= 0n) throw invalid({ amount: "must be greater than 0" });
  const limits = (ctx.config.chains[chain].tokens as Record<string, { min_amount: string; max_amount: string } | undefined>)[token] ?? { min_amount: "0.000001", max_amount: "100000000" };
  if (compareToLimit(amount, units, decimals, limits.min_amount) < 0) throw invalid({ amount: `must be at least ${limits.min_amount}` }, { min: limits.min_amount });
  if (compareToLimit(amount, units, decimals, limits.max_amount) > 0) throw invalid({ amount: `must be at most ${limits.max_amount}` }, { max: limits.max_amount });
  return units;
}

export function checkNotifyUrl(ctx: Pick<OrderRuleDeps, "config">, url: string, field = "notifyUrl"): void {
  const p = notifyUrlProblem(url, ctx.config.callbacks.allow_private_targets);
  if (p) throw invalid({ [field]: p });
}

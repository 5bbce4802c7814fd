// Display helpers shared by the treasury pages: token amounts from base units.
import type { DisplayCtx } from "../format";
import { defaultToken } from "../../chains/registry";
import type { ChainCode } from "../../chains/types";
import { fromBaseUnits } from "../../lib/money";

export function tokenDecimals(ctx: DisplayCtx, chain: string, token: string): number {
  const t = ctx.chains.get(chain as ChainCode)?.tokens.find((x) => x.symbol === token) ?? defaultToken(chain, token);
  return t?.decimals ?? 6;
}

/** Base units (string or bigint) as a decimal with 2-6 fractional digits (more kept when present). */
export function units(ctx: DisplayCtx, chain: string, token: string, v: string | bigint | null | undefined): string {
  if (v === null || v === undefined) return "—";
  return fromBaseUnits(BigInt(v), tokenDecimals(ctx, chain, token), 2);
}

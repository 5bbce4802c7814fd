// Display helpers shared by the treasury pages: token amounts from base units.
import type { DisplayCtx } from "../format";
import { defaultToken } from "../../chains/registry";
import type { ChainCode } from "../../chains/types";
import { fromBaseUnits } from "../../lib/money";
import type { TreasuryProgress } from "../../treasury/progress";
import { tr, trf } from "../i18n";

export function tokenDecimals(ctx: DisplayCtx, chain: string, token: string): number {
  const t = ctx.chains.get(chain as ChainCode)?.tokens.find((x) => x.symbol === token) ?? defaultToken(chain, token);
  return t?.decimals ?? 6;
}

/** Base units (string or bigint) as a decimal with 2-6 fractional digits (more kept when present). */
export function units(ctx: DisplayCtx, chain: string, token: string, v: string | bigint | null | undefined): string {
  if (v === null || v === undefined) return "—";
  return fromBaseUnits(BigInt(v), tokenDecimals(ctx, chain, token), 2);
}

/** progressText (src/treasury/progress.ts) in the page's language: the same words in English. */
export function progressWords(p: TreasuryProgress): string {
  if (p.finished)
    return trf("Finished: {confirmed} confirmed, {failed} failed, {rejected} refused{invalid}.", {
      confirmed: p.orders.confirmed,
      failed: p.orders.failed,
      rejected: p.rejected,
      invalid: p.invalid ? trf(", {n} rows with errors", { n: p.invalid }) : "",
    });
  return trf("In progress ({phase}): {confirmed} confirmed, {broadcast} broadcast, {submitted} submitted, {waiting} waiting to be created.", {
    phase: tr(p.phase),
    confirmed: p.orders.confirmed,
    broadcast: p.orders.broadcasted,
    submitted: p.orders.submitted,
    waiting: p.waiting,
  });
}

// What a paid order keeps once its refunds are counted (issue 36): paid − the refunds not failed.
// The guided resolution (payin/resolve.ts), "Release" (payin/operator.ts: the back office's button
// and `order release` on the CLI) and "Cancel order" read it here, so every way of deciding a held
// order applies the same rules to what already happened to it.
import type { DbOrTx } from "../db/client";
import { fromBaseUnits } from "../lib/money";
import { orderRefunded } from "../payout/refunds";
import type { PayinOrderRow } from "./views";

export interface Kept {
  paid: bigint;
  amount: bigint;
  /** The refunds not failed (awaiting the payer's address, on their way, or sent). */
  refunded: bigint;
  /** paid − refunded: what the merchant keeps, and what is left to refund. */
  kept: bigint;
}

export async function keptOf(db: DbOrTx, o: PayinOrderRow): Promise<Kept> {
  const paid = o.paidAmount !== null ? BigInt(o.paidAmount) : 0n;
  const refunded = o.paidAmount !== null ? await orderRefunded(db, o.id) : 0n;
  const kept = paid - refunded;
  return { paid, amount: BigInt(o.amount), refunded, kept: kept > 0n ? kept : 0n };
}

/** What "Refund the difference" sends: paid − amount − refunded, at least 0. */
export function differenceLeft(k: Kept): bigint {
  const d = k.paid - k.amount - k.refunded;
  return d > 0n ? d : 0n;
}

/** "12.41 USDC" */
export const tokenAmount = (o: Pick<PayinOrderRow, "decimals" | "token">, units: bigint) => `${fromBaseUnits(units, o.decimals, 6)} ${o.token}`;

/** Why the order cannot be accepted as paid (released) any more: refunds leave less than its amount kept. */
export const ACCEPT_REFUSED = "{refunded} was already refunded, so {kept} is kept, less than the order amount of {amount}: it cannot be accepted as paid.";

/** The values of ACCEPT_REFUSED, or null when accepting is allowed (no refund made, or what is kept covers the amount). */
export function acceptRefusal(o: PayinOrderRow, k: Kept): Record<string, string> | null {
  if (k.refunded === 0n || k.kept >= k.amount) return null;
  return { refunded: tokenAmount(o, k.refunded), kept: tokenAmount(o, k.kept), amount: tokenAmount(o, k.amount) };
}

/** `{name}` placeholders filled. */
export const fill = (template: string, values: Readonly<Record<string, string>>) => template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);

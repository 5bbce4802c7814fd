// One deposit (an incoming transfer to a gateway address) and the orders it
// could be attached to: same address and token, waiting or expired.
import { and, desc, eq, inArray, or } from "drizzle-orm";
import type { DbOrTx } from "../../db/client";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { addresses, denyList, merchants, payinOrders, transfers } from "../../db/schema";
import type { Scope } from "./filters";

const pg = pgSide<typeof import("./deposits.pg")>(() => require("./deposits.pg"));

export type TransferRow = typeof transfers.$inferSelect;

export async function depositDetail(db: DbOrTx, scope: Scope, id: number): Promise<{ t: TransferRow; merchantUid: string | null; orderNo: string | null } | null> {
  const row = isPg(db) ? await pg.depositDetailRow(pgOf(db), id) : db
    .select({ t: transfers, merchantId: addresses.merchantId, merchantUid: merchants.uid, orderNo: payinOrders.orderNo })
    .from(transfers)
    .innerJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .leftJoin(payinOrders, eq(payinOrders.id, transfers.payinOrderId))
    .where(eq(transfers.id, id))
    .get();
  if (!row || (scope.merchantId !== null && row.merchantId !== scope.merchantId)) return null;
  return { t: row.t, merchantUid: row.merchantUid, orderNo: row.orderNo };
}

export async function attachCandidates(db: DbOrTx, t: TransferRow, q: string) {
  if (isPg(db)) return await pg.attachCandidates(pgOf(db), t, q);
  if (!t.addressId) return [];
  const term = q.trim();
  return db
    .select()
    .from(payinOrders)
    .where(
      and(
        eq(payinOrders.addressId, t.addressId),
        eq(payinOrders.token, t.token),
        inArray(payinOrders.status, ["waiting_payment", "expired"]),
        term ? or(eq(payinOrders.orderNo, term), eq(payinOrders.merchantOrderNo, term)) : undefined,
      ),
    )
    .orderBy(desc(payinOrders.id))
    .limit(20)
    .all();
}

export async function deniedSenders(db: DbOrTx) {
  if (isPg(db)) return await pg.deniedSenders(pgOf(db));
  return db.select().from(denyList).orderBy(desc(denyList.createdAt)).all();
}

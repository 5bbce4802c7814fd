// What the gateway's transactions cost on chain (transfer_costs, DESIGN 21): per payout, per set
// of payouts (a batch, a collection run) and per chain and day (the Fees page).
import { and, asc, desc, eq, gte, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { collectionLegs, payinOrders, payoutOrders, refunds, transferCosts } from "../../db/schema";

const pg = pgSide<typeof import("./costs.pg")>(() => require("./costs.pg"));

export type CostRow = typeof transferCosts.$inferSelect;

export interface CostTotal {
  chain: string;
  txs: number;
  native: bigint;
  energyDelegated: bigint;
  energyBurned: bigint;
  bandwidth: bigint;
}

export async function costsOfPayout(db: Db, payoutOrderId: number): Promise<CostRow[]> {
  if (isPg(db)) return await pg.costsOfPayout(pgOf(db), payoutOrderId);
  return db.select().from(transferCosts).where(eq(transferCosts.payoutOrderId, payoutOrderId)).orderBy(transferCosts.id).all();
}

/**
 * What the gateway spent on a pay-in order: the transactions of its refunds, and of the
 * collection leg that swept its money (the first leg from its address created once it was paid).
 */
export async function costsOfPayin(db: Db, o: Pick<typeof payinOrders.$inferSelect, "id" | "addressId" | "detectedAt">): Promise<CostRow[]> {
  if (isPg(db)) {
    const q = pgOf(db);
    const ids = await pg.refundPayoutIds(q, o.id);
    const leg = o.detectedAt !== null ? await pg.sweepLegPayoutId(q, o.addressId, o.detectedAt) : undefined;
    if (leg !== undefined) ids.push(leg);
    return ids.length ? await pg.costsOfPayouts(q, ids) : [];
  }
  const ids = db
    .select({ id: refunds.payoutOrderId })
    .from(refunds)
    .where(and(eq(refunds.payinOrderId, o.id), isNotNull(refunds.payoutOrderId)))
    .all()
    .map((r) => r.id!);
  if (o.detectedAt !== null) {
    // The address's legs in payout order (collection_legs_address), no sort.
    const leg = db
      .select({ id: payoutOrders.id })
      .from(collectionLegs)
      .innerJoin(payoutOrders, eq(payoutOrders.id, collectionLegs.payoutOrderId))
      .where(and(eq(collectionLegs.addressId, o.addressId), gte(payoutOrders.createdAt, o.detectedAt)))
      .orderBy(asc(collectionLegs.payoutOrderId))
      .limit(1)
      .get();
    if (leg) ids.push(leg.id);
  }
  return ids.length ? db.select().from(transferCosts).where(inArray(transferCosts.payoutOrderId, ids)).orderBy(transferCosts.id).all() : [];
}

const add = (t: CostTotal, r: Pick<CostRow, "nativeBurned" | "energyDelegated" | "energyBurned" | "bandwidth">) => {
  t.txs++;
  t.native += BigInt(r.nativeBurned);
  t.energyDelegated += BigInt(r.energyDelegated);
  t.energyBurned += BigInt(r.energyBurned);
  t.bandwidth += BigInt(r.bandwidth);
};

/** Sums (exact, in bigints) of every transaction sent for these payouts, per chain. */
export async function costTotals(db: Db, payoutOrderIds: readonly number[]): Promise<CostTotal[]> {
  const by = new Map<string, CostTotal>();
  for (let i = 0; i < payoutOrderIds.length; i += 500) {
    const slice = payoutOrderIds.slice(i, i + 500);
    for (const r of isPg(db) ? await pg.costsOfPayouts(pgOf(db), slice) : db.select().from(transferCosts).where(inArray(transferCosts.payoutOrderId, slice)).all()) {
      let t = by.get(r.chain);
      if (!t) by.set(r.chain, (t = { chain: r.chain, txs: 0, native: 0n, energyDelegated: 0n, energyBurned: 0n, bandwidth: 0n }));
      add(t, r);
    }
  }
  return [...by.values()];
}

export interface DayCost extends CostTotal {
  day: string;
}

/**
 * The Fees page: per day and chain, newest first, since `sinceDay` (YYYY-MM-DD). A merchant
 * sees what its payouts cost; the operator every row (stakes and the energy wallet's own too).
 */
export async function feesByDay(db: Db, o: { merchantId?: number; sinceDay: string }): Promise<DayCost[]> {
  return dayTotals(isPg(db) ? await pg.dayCostRows(pgOf(db), o) : dayCostRows(db, o));
}

function dayCostRows(db: Db, o: { merchantId?: number; sinceDay: string }) {
  const cond = [gte(transferCosts.day, o.sinceDay)];
  const base = db
    .select({ day: transferCosts.day, chain: transferCosts.chain, nativeBurned: transferCosts.nativeBurned, energyDelegated: transferCosts.energyDelegated, energyBurned: transferCosts.energyBurned, bandwidth: transferCosts.bandwidth })
    .from(transferCosts);
  const rows =
    o.merchantId === undefined
      ? base.where(and(...cond)).orderBy(desc(transferCosts.day)).all()
      : base
          .innerJoin(payoutOrders, eq(payoutOrders.id, transferCosts.payoutOrderId))
          .where(and(...cond, eq(payoutOrders.merchantId, o.merchantId)))
          .orderBy(desc(transferCosts.day))
          .all();
  return rows;
}

function dayTotals(rows: (Pick<CostRow, "day" | "chain" | "nativeBurned" | "energyDelegated" | "energyBurned" | "bandwidth">)[]): DayCost[] {
  const by = new Map<string, DayCost>();
  for (const r of rows) {
    const k = `${r.day}:${r.chain}`;
    let t = by.get(k);
    if (!t) by.set(k, (t = { day: r.day, chain: r.chain, txs: 0, native: 0n, energyDelegated: 0n, energyBurned: 0n, bandwidth: 0n }));
    add(t, r);
  }
  return [...by.values()].sort((a, b) => (a.day === b.day ? a.chain.localeCompare(b.chain) : b.day.localeCompare(a.day)));
}


// The deny list (deny_list): senders whose deposits are held as unmatched (payin/operator.ts,
// payin/deposits.ts, payin/unmatched.ts).
import { and, asc, eq, sql } from "drizzle-orm";
import { type DbOrTx, prepared, type Tx } from "../db/client";
import { denyList } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./deny-list-store.pg")>(() => require("./deny-list-store.pg"));

/** Whether the sender is on the deny list. */
export async function isDenied(tx: Tx, chain: string, from: string): Promise<boolean> {
  if (isPg(tx)) return await pg.isDenied(pgOf(tx), chain, from);
  return !!prepared(tx, "denied", (d) =>
    d.select().from(denyList).where(and(eq(denyList.chain, sql.placeholder("c")), eq(denyList.address, sql.placeholder("a")))).prepare(),
  ).get({ c: chain, a: from });
}

export type DenyRow = typeof denyList.$inferSelect;

export async function insertDenied(tx: Tx, values: typeof denyList.$inferInsert): Promise<DenyRow> {
  if (isPg(tx)) return await pg.insertDenied(pgOf(tx), values);
  return tx.insert(denyList).values(values).returning().get();
}

/** Takes the sender off the deny list: its row, or undefined when it was not on it. */
export async function removeDenied(tx: Tx, chain: string, address: string): Promise<DenyRow | undefined> {
  if (isPg(tx)) return await pg.removeDenied(pgOf(tx), chain, address);
  return tx.delete(denyList).where(and(eq(denyList.chain, chain), eq(denyList.address, address))).returning().get();
}

/** The deny list by chain, oldest first. */
export async function deniedSenders(db: DbOrTx): Promise<DenyRow[]> {
  if (isPg(db)) return await pg.deniedSenders(pgOf(db));
  return db.select().from(denyList).orderBy(asc(denyList.chain), asc(denyList.createdAt)).all();
}

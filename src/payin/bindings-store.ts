// Bindings (the exclusive-address side): a merchant's (chain, token, bindKey) and its deposit page
// (payin/bindings.ts, payin/deposits.ts, the hosted deposit page).
import { and, eq, sql } from "drizzle-orm";
import { type DbOrTx, prepared, type Tx } from "../db/client";
import { bindings } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./bindings-store.pg")>(() => require("./bindings-store.pg"));


/** A binding's bindKey by its id. */
export async function bindKeyById(db: DbOrTx, bindingId: string): Promise<string | null> {
  if (isPg(db)) return await pg.bindKeyById(pgOf(db), bindingId);
  return prepared(db, "bindKeyById", (d) => d.select({ k: bindings.bindKey }).from(bindings).where(eq(bindings.id, sql.placeholder("id"))).prepare()).get({ id: bindingId })?.k ?? null;
}

/** The binding of an exclusive address for a token. */
export async function bindingOf(tx: DbOrTx, addressId: string, token: string) {
  if (isPg(tx)) return await pg.bindingOf(pgOf(tx), addressId, token);
  return tx.select().from(bindings).where(and(eq(bindings.addressId, addressId), eq(bindings.token, token))).get();
}

export type BindingRow = typeof bindings.$inferSelect;

/** The merchant's binding of (chain, token, bindKey). */
export async function bindingByKey(db: DbOrTx, merchantId: number, chain: string, token: string, bindKey: string): Promise<BindingRow | undefined> {
  if (isPg(db)) return await pg.bindingByKey(pgOf(db), merchantId, chain, token, bindKey);
  return db
    .select()
    .from(bindings)
    .where(and(eq(bindings.merchantId, merchantId), eq(bindings.chain, chain), eq(bindings.token, token), eq(bindings.bindKey, bindKey)))
    .get();
}

/** The binding behind a deposit page's link. */
export async function bindingByPageToken(db: DbOrTx, pageToken: string): Promise<BindingRow | undefined> {
  if (isPg(db)) return await pg.bindingByPageToken(pgOf(db), pageToken);
  return db.select().from(bindings).where(eq(bindings.pageToken, pageToken)).get();
}

export async function insertBinding(tx: Tx, values: typeof bindings.$inferInsert): Promise<BindingRow> {
  if (isPg(tx)) return await pg.insertBinding(pgOf(tx), values);
  return tx.insert(bindings).values(values).returning().get();
}

/** Writes `set` on the binding and returns the new row. */
export async function updateBinding(tx: Tx, id: string, set: Partial<BindingRow>): Promise<BindingRow> {
  if (isPg(tx)) return await pg.updateBinding(pgOf(tx), id, set);
  return tx.update(bindings).set(set).where(eq(bindings.id, id)).returning().get();
}

// payin/bindings-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, eq } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { bindings } from "../db/schema-pg";
import type { BindingRow } from "./bindings-store";

export async function bindKeyById(db: PgQ, bindingId: string): Promise<string | null> {
  return (await firstRow(db.select({ k: bindings.bindKey }).from(bindings).where(eq(bindings.id, bindingId))))?.k ?? null;
}

export async function bindingOf(tx: PgQ, addressId: string, token: string): Promise<BindingRow | undefined> {
  return await firstRow(tx.select().from(bindings).where(and(eq(bindings.addressId, addressId), eq(bindings.token, token))));
}

export async function bindingByKey(db: PgQ, merchantId: number, chain: string, token: string, bindKey: string): Promise<BindingRow | undefined> {
  return await firstRow(
    db.select().from(bindings).where(and(eq(bindings.merchantId, merchantId), eq(bindings.chain, chain), eq(bindings.token, token), eq(bindings.bindKey, bindKey))),
  );
}

export async function bindingByPageToken(db: PgQ, pageToken: string): Promise<BindingRow | undefined> {
  return await firstRow(db.select().from(bindings).where(eq(bindings.pageToken, pageToken)));
}

export async function insertBinding(tx: PgQ, values: typeof bindings.$inferInsert): Promise<BindingRow> {
  return (await firstRow(tx.insert(bindings).values(values).returning()))!;
}

export async function updateBinding(tx: PgQ, id: string, set: Partial<BindingRow>): Promise<BindingRow> {
  return (await firstRow(tx.update(bindings).set(set).where(eq(bindings.id, id)).returning()))!;
}

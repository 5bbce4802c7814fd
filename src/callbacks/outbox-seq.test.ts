// callbacks.seq, the order an order's events were written in (migrations 0431, 0570): on SQLite
// the insert gives the row its rowid and the same seq (no trigger); on PostgreSQL an identity.
// Either way seq grows in write order, also inside one transaction and for one order's events.
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { writeTx } from "../db/client";
import { callbacks } from "../db/schema";
import { createMerchant } from "../merchants/service";
import { Cipher } from "../secrets/cipher";
import { openTestDb } from "../testing/engines";
import { allRows, testSql } from "../testing/engine-rows";
import { enqueueCallback } from "./outbox";

const t = await openTestDb();
afterAll(async () => await t.close());
const { merchant } = await createMerchant({ db: t.db, cipher: new Cipher(randomBytes(32)), now: () => Date.now() }, { name: "shop" });
const event = (orderNo: string, status: string) => ({
  merchantId: merchant.id,
  kind: "payin" as const,
  orderNo,
  status,
  apiKeyId: "key",
  url: "https://shop.example/cb",
  payload: { orderNo, status },
  now: Date.now(),
});

test("seq follows the write order: one order's events in one transaction, a status written again, another order between", async () => {
  const ids: string[] = [];
  await writeTx(t.db, async (tx) => {
    ids.push(await enqueueCallback(tx, event("PI20261129000000000001", "detected")));
    ids.push(await enqueueCallback(tx, event("PI20261129000000000001", "completed")));
  });
  await writeTx(t.db, async (tx) => void ids.push(await enqueueCallback(tx, event("PI20261129000000000002", "waiting_payment"))));
  // The same status again: the next occurrence, a new row after the others.
  await writeTx(t.db, async (tx) => void ids.push(await enqueueCallback(tx, event("PI20261129000000000001", "completed"))));
  expect(new Set(ids).size).toBe(4);
  const rows = await allRows(t.db, callbacks);
  const seqOf = new Map(rows.map((r) => [r.id, r.seq]));
  const seqs = ids.map((id) => seqOf.get(id)!);
  expect(seqs.every((s, i) => s > 0 && (i === 0 || s > seqs[i - 1]!))).toBe(true);
  if (t.engine === "sqlite") {
    const byRowid = await testSql<{ id: string; rid: number; seq: number }>(t.db, sql`SELECT id, rowid AS rid, seq FROM callbacks ORDER BY rowid`);
    expect(byRowid.map((r) => r.id)).toEqual(ids);
    expect(byRowid.every((r) => r.seq === r.rid)).toBe(true);
  }
});

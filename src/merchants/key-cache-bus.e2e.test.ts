// The key cache on PostgreSQL following the cluster bus (issue 38, DESIGN 22 "Shared state"):
// no version read per use any more, yet a change made through another gateway's pool reaches this
// gateway's cache by the notification sent in its transaction (delivered at COMMIT; the database's
// triggers send it for every writer, migration 0470 of the serve wiring: here the test sends it in
// the change's transaction), and a reconnect of the bus drops every entry. Wired as serve wires it:
// followBus(), invalidate() on api_keys / merchant_settings (a reconnect calls both).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { SQL } from "bun";
import { closeDb, writeTx } from "../db/client";
import { pgOf, pgState } from "../db/engine";
import { openPgDb } from "../db/tx-pg";
import { sql } from "drizzle-orm";
import { CLUSTER_CHANNEL, ClusterBus } from "../cluster/notify";
import { Cipher } from "../secrets/cipher";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { eventually } from "../testing/wait";
import { FOLLOWED_RECHECK_MS, keyCache, type KeyCache } from "./key-cache";
import { createMerchant, rotateKey, setMerchantStatus } from "./service";

let pgdb: TestDatabase;
const cipher = new Cipher(randomBytes(32));
let gw: { db: ReturnType<typeof openPgDb>; bus: ClusterBus };
let other: ReturnType<typeof openPgDb>;
let admin: SQL;

beforeAll(async () => {
  pgdb = await createTestDatabase();
  const db = openPgDb(pgdb.url, 4);
  const bus = new ClusterBus(pgState(db).pool, { self: "gw-a" });
  const keys = keyCache(db, cipher);
  keys.followBus();
  bus.onInvalidate("api_keys", () => keys.invalidate());
  bus.onInvalidate("merchant_settings", () => keys.invalidate());
  await bus.start();
  gw = { db, bus };
  other = openPgDb(pgdb.url, 2);
  admin = new SQL({ url: pgdb.url, max: 1 });
});
afterAll(async () => {
  await gw.bus.stop();
  await closeDb(gw.db);
  await closeDb(other);
  await admin.close();
  await pgdb.drop();
});

/** Counts the cache's version reads from now on. */
function countReads(cache: KeyCache): { n: number } {
  const c = { n: 0 };
  const priv = cache as unknown as { version: () => Promise<number> };
  const read = priv.version;
  priv.version = async () => (c.n++, await read());
  return c;
}

test("followed by the bus: no version read per use; another gateway's disable, enable and rotation arrive by notification", async () => {
  const deps = { db: gw.db, cipher, now: () => Date.now() };
  const { merchant, apiKey } = await createMerchant(deps, { name: "shop" });
  const cache = keyCache(gw.db, cipher);
  expect(cache.following).toBe(true);
  expect((await cache.lookup(apiKey))?.merchant.status).toBe("active");
  // No safety re-read in this test: whatever the cache learns below comes by notification.
  cache.followedRecheckMs = Infinity;
  const reads = countReads(cache);
  for (let i = 0; i < 50; i++) expect((await cache.lookup(apiKey))?.merchant.status).toBe("active");
  // Inside a transaction too (the create path asks for the merchant and its current key there).
  await writeTx(gw.db, async () => {
    expect((await cache.merchant(merchant.id))?.uid).toBe(merchant.uid);
    expect(await cache.currentKeyId(merchant.id)).toBeString();
  });
  expect(reads.n).toBe(0);

  // Another gateway (its own pool) disables the merchant: this cache drops it at the notification.
  const otherDeps = { db: other, cipher, now: () => Date.now() };
  const announced = async <T>(topic: "api_keys" | "merchant_settings", change: () => Promise<T>) =>
    await writeTx(other, async () => {
      const v = await change();
      // What the database's trigger sends, in the change's transaction.
      await pgOf(other).execute(sql`SELECT pg_notify(${CLUSTER_CHANNEL}, ${JSON.stringify({ kind: "invalidate", topic, from: "database" })})`);
      return v;
    });
  await announced("merchant_settings", () => setMerchantStatus(otherDeps, merchant.uid, "disabled"));
  await eventually(async () => (await cache.lookup(apiKey))?.merchant.status === "disabled", 5000, "the disable reaches the cache", 5);
  await announced("merchant_settings", () => setMerchantStatus(otherDeps, merchant.uid, "active"));
  await eventually(async () => (await cache.lookup(apiKey))?.merchant.status === "active", 5000, "the enable reaches the cache", 5);
  // A rotation without grace: the old key stops working here, the new one works.
  const rotated = await announced("api_keys", () => rotateKey(otherDeps, merchant.uid, 0));
  await eventually(async () => typeof (await cache.lookup(apiKey))?.key.validUntil === "number", 5000, "the rotation reaches the cache", 5);
  const entry = await cache.lookup(rotated.apiKey);
  expect(entry?.merchant.uid).toBe(merchant.uid);
  expect(await cache.currentKeyId(merchant.id)).toBe(entry!.key.id);
  expect(reads.n).toBeLessThanOrEqual(3); // one per notification (the next use outside a transaction), none per use
  cache.followedRecheckMs = FOLLOWED_RECHECK_MS;
});

test("a rolled-back change sends nothing; a reconnect of the bus drops every entry", async () => {
  const deps = { db: gw.db, cipher, now: () => Date.now() };
  const { merchant, apiKey } = await createMerchant(deps, { name: "shop2" });
  const cache = keyCache(gw.db, cipher);
  await cache.lookup(apiKey);
  let dropped = 0;
  const off = gw.bus.onInvalidate("merchant_settings", () => dropped++);
  await admin.begin(async (tx) => {
    await tx.unsafe(`UPDATE merchants SET name = 'renamed' WHERE id = $1`, [merchant.id]);
    await tx.unsafe(`SELECT 1`);
    throw Object.assign(new Error("roll back"), { rollback: true });
  }).catch((e: { rollback?: boolean }) => expect(e.rollback).toBe(true));
  await Bun.sleep(200);
  expect(dropped).toBe(0);
  off();
  // The listening connection is cut (a network blip): the bus reconnects and the cache forgets.
  const before = (cache as unknown as { generation: number }).generation;
  await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`);
  await eventually(() => (cache as unknown as { generation: number }).generation > before, 15_000, "the reconnect drops the cache", 20);
  expect((await cache.lookup(apiKey))?.merchant.name).toBe("shop2");
}, 30_000);

// The hot statements of the PostgreSQL stores stay seeks as the tables grow (DESIGN 11 "Growth",
// the counterpart of src/db/query-plans.test.ts): a database of its own on the test run's
// PostgreSQL is filled with realistic row counts (tens of thousands of orders, callbacks, nonces,
// events; a few open orders, pending callbacks and live nonces among them) and ANALYZEd, then each
// store function runs once through a pool that records what it sends, and every statement it sent
// is planned with its own parameters (EXPLAIN (FORMAT JSON), src/testing/query-plan-pg.ts): no
// sequential scan of a large table. The planner decides on its statistics: nothing is forced
// (no enable_seqscan = off), so a statement that needs a missing index fails here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Db } from "./client";
import { pgDbOver } from "./tx-pg";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { expectPgSeek, indexesOf, type PgSeekOptions, recordingPool, type RecordedStatement } from "../testing/query-plan-pg";
import { dueOrders, freeSharedAddress, orderByMerchantOrderNo, orderByOrderNo, orderNoTaken, ordersOfBinding, payinByCheckoutToken } from "../payin/orders-store";
import { addressesSince, addressRowsAfter, findAddress, liveExclusive, sharedPool } from "../wallet/store";
import { deleteExpiredNonces, insertNonce } from "../auth/store";
import { callbackAttemptsOf, callbackWorkerStore, getCallback, listCallbackRows, recentTestCallbackRows } from "../callbacks/store";
import { eventsOf } from "../orders/store";
import { currentKey, findMerchantByUid } from "../merchants/store";
import { listAudit } from "../audit/log";
import type { Tx } from "./client";

/** Rows per large table: enough that a scan costs more than an index probe on the planner's statistics. */
const N = 20_000;
const NOW = 1_800_000_000_000;

let pg: TestDatabase;
let raw: SQL;
let rec: ReturnType<typeof recordingPool>;
let db: Db;

beforeAll(async () => {
  pg = await createTestDatabase();
  raw = new SQL({ url: pg.url, max: 2 });
  await seed(raw);
  rec = recordingPool(new SQL({ url: pg.url, max: 2 }));
  db = pgDbOver(rec.pool);
}, 120_000);
afterAll(async () => {
  await rec?.pool.close();
  await raw?.close();
  await pg?.drop();
});

/**
 * Five merchants; 2,000 addresses (shared pools and exclusive ones) on two chains; N pay-in
 * orders, nearly all finished (1% open); N callbacks, nearly all delivered, with an attempt each;
 * N nonces (2% live); N order events; N audit entries.
 */
async function seed(s: SQL): Promise<void> {
  await s.unsafe(`
    INSERT INTO merchants (uid, name, created_at, updated_at)
      SELECT 'M' || (1000000 + g), 'shop ' || g, ${NOW}, ${NOW} FROM generate_series(1, 5) g;
    INSERT INTO api_keys (id, merchant_id, lookup_hash, secret_enc, hint, valid_from, created_at)
      SELECT 'key' || m.id, m.id, 'hash' || m.id, 'enc', 'hint', 0, ${NOW} FROM merchants m;
    INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, bind_key, created_at)
      SELECT 'ad' || g, 1 + g % 5, CASE WHEN g % 2 = 0 THEN 'TRON' ELSE 'BSC' END,
             CASE WHEN g % 4 = 0 THEN 'exclusive' ELSE 'shared' END, g, 'addr' || g,
             CASE WHEN g % 4 = 0 THEN 'user' || g END, ${NOW}
      FROM generate_series(1, 2000) g;
    INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address,
                              api_key_id, status, checkout_token, expire_at, created_at, updated_at)
      SELECT 'PI' || (100000000 + g), 1 + g % 5, 'shop-' || g, 'shared', 'TRON', 'USDT', 6, (1000000 + g % 997)::text,
             'ad' || (1 + (g % 500) * 4 - 2 * (g % 2) + 2), 'addr' || (1 + (g % 500) * 4 - 2 * (g % 2) + 2), 'key1',
             CASE WHEN g % 100 = 0 THEN 'waiting_payment' WHEN g % 3 = 0 THEN 'expired' ELSE 'completed' END,
             'tok' || g, ${NOW} - (${N} - g) * 60000 + 1800000, ${NOW} - (${N} - g) * 60000, ${NOW} - (${N} - g) * 60000
      FROM generate_series(1, ${N}) g;
    INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
      SELECT 'EV' || g, 1 + g % 5, CASE WHEN g % 50 = 0 THEN 'test' ELSE 'payin' END, 'PI' || (100000000 + g / 2), 'completed', 'key1',
             'https://shop.example/cb', '{}',
             CASE WHEN g % 200 = 0 THEN 'pending' WHEN g % 97 = 0 THEN 'failed' ELSE 'delivered' END, 1,
             ${NOW} - (${N} - g) * 30000, ${NOW} - (${N} - g) * 30000, ${NOW} - (${N} - g) * 30000
      FROM generate_series(1, ${N}) g;
    INSERT INTO callback_attempts (callback_id, attempt_no, started_at, http_status)
      SELECT 'EV' || g, 1, ${NOW} - (${N} - g) * 30000, 200 FROM generate_series(1, ${N}) g;
    INSERT INTO nonces (merchant_id, nonce, expires_at)
      SELECT 1 + g % 5, 'n' || g, ${NOW} - (${N} - g) * 100 + 600000 FROM generate_series(1, ${N}) g;
    INSERT INTO order_events (kind, order_no, from_status, to_status, event, at)
      SELECT 'payin', 'PI' || (100000000 + g / 2), 'waiting_payment', 'completed', '{}', ${NOW} - (${N} - g) * 30000 FROM generate_series(1, ${N}) g;
    INSERT INTO audit_log (at, actor, role, action, target)
      SELECT ${NOW} - (${N} - g) * 30000, 'cli', 'operator', 'order.freeze', 'payin:PI' || (100000000 + g) FROM generate_series(1, ${N}) g;
  `);
  await s.unsafe("ANALYZE");
}

interface PlanCase {
  name: string;
  /** Runs the store function(s) on the recording handle. */
  run: (db: Db) => Promise<unknown>;
  opts?: PgSeekOptions;
  /** Indexes the plans must use (each in at least one statement; "a|b" accepts either). */
  uses?: string[];
}

const tx = (d: Db) => d as Tx;

const CASES: PlanCase[] = [
  { name: "create: a free pool address for an amount", run: async (d) => await freeSharedAddress(tx(d), 1, "TRON", "USDT", 1_000_123n), uses: ["payin_open_amount", "payin_settling_amount"] },
  { name: "create: an order number taken", run: async (d) => await orderNoTaken(d, 1, "PI100000005") },
  { name: "create: a retry finds the merchant's order", run: async (d) => await orderByMerchantOrderNo(d, 1, "shop-5"), uses: ["payin_merchant_order"] },
  { name: "GET: an order by number", run: async (d) => await orderByOrderNo(d, 1, "PI100000005"), uses: ["payin_orders_order_no_unique"] },
  { name: "checkout: an order by its token", run: async (d) => await payinByCheckoutToken(d, "tok5"), uses: ["payin_orders_checkout_token_unique"] },
  { name: "expiry job: orders past their expiry", run: async (d) => await dueOrders(d, NOW, 100), uses: ["payin_status"] },
  { name: "exclusive: a binding's orders", run: async (d) => await ordersOfBinding(d, "b1", 50), uses: ["payin_binding"] },
  { name: "create: the merchant's shared pool", run: async (d) => await sharedPool(tx(d), 1, "TRON") },
  { name: "exclusive: the live address of a bind key", run: async (d) => await liveExclusive(tx(d), 1, "TRON", "user4"), uses: ["addresses_exclusive_key"] },
  { name: "an address by chain and address", run: async (d) => await findAddress(tx(d), "TRON", "addr2"), uses: ["addresses_chain_address"] },
  { name: "watch set: addresses since a change sequence", run: async (d) => await addressesSince(d, "TRON", 1990, 2000), uses: ["addresses_watch_seq"] },
  { name: "restore reconcile: a chain's addresses after a sequence", run: async (d) => await addressRowsAfter(d, "TRON", 1990), uses: ["addresses_watch_seq"] },
  { name: "signed request: record a nonce", run: async (d) => await insertNonce(d, 1, "fresh-nonce", NOW + 600_000) },
  // No index on expires_at (it would cost every signed request a second index write): the
  // LIMITed scan stops at `limit` expired nonces, which are the oldest rows of an insert-only table.
  { name: "nonce pruning: expired nonces", run: async (d) => await deleteExpiredNonces(d, NOW - 1_000_000, 500), opts: { boundedScans: ["nonces"] } },
  {
    name: "callback worker: the leased claim",
    run: async (d) => await callbackWorkerStore(d, "host:1:aa").claimLeased!(4, 60_000, NOW, { perTarget: 2, overflow: 4, concurrency: 4, healthy: [] }),
    uses: ["callbacks_pending_merchant", "callbacks_lease_end", "callbacks_order_seq"],
  },
  { name: "callback worker: cut-off claims at start", run: async (d) => await callbackWorkerStore(d, "host:1:aa").releaseCutOff(() => false), uses: ["callbacks_lease_end"] },
  { name: "operator: failed callbacks", run: async (d) => await listCallbackRows(d, { state: "failed", limit: 50 }) },
  { name: "operator: a merchant's callbacks in a state", run: async (d) => await listCallbackRows(d, { state: "failed", merchantId: 2, limit: 50 }) },
  { name: "operator: an order's callbacks", run: async (d) => await listCallbackRows(d, { orderNo: "PI100000005", limit: 50 }), uses: ["callbacks_order_seq"] },
  { name: "a callback and its attempts", run: async (d) => [await getCallback(d, "EV10"), await callbackAttemptsOf(d, "EV10")] },
  { name: "the merchant's recent test callbacks", run: async (d) => await recentTestCallbackRows(d, 1, 5), uses: ["callbacks_test"] },
  { name: "an order's events", run: async (d) => await eventsOf(d, "PI100000005"), uses: ["order_events_order"] },
  { name: "audit: entries of a target", run: async (d) => await listAudit(d, { target: "payin:PI100000005" }) },
  { name: "merchant API: the merchant and its current key", run: async (d) => [await findMerchantByUid(d, "M1000001"), await currentKey(d, 1)] },
];

/** The statements a case sent (transaction control aside). */
async function statementsOf(c: PlanCase): Promise<RecordedStatement[]> {
  rec.statements.length = 0;
  await c.run(db);
  return rec.statements.filter((s) => !/^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(s.sql));
}

describe("PostgreSQL stores' hot statements on grown tables (EXPLAIN (FORMAT JSON), after ANALYZE)", () => {
  test("the tables hold the rows the statistics were taken on", async () => {
    const [r] = (await raw.unsafe(
      "SELECT (SELECT reltuples FROM pg_class WHERE relname = 'payin_orders') AS orders, (SELECT reltuples FROM pg_class WHERE relname = 'callbacks') AS callbacks",
    )) as Array<{ orders: number; callbacks: number }>;
    expect(Number(r!.orders)).toBeGreaterThanOrEqual(N * 0.9);
    expect(Number(r!.callbacks)).toBeGreaterThanOrEqual(N * 0.9);
  });

  for (const c of CASES) {
    test(c.name, async () => {
      const sent = await statementsOf(c);
      expect(sent.length).toBeGreaterThan(0);
      const used: string[] = [];
      for (const s of sent) used.push(...indexesOf(await expectPgSeek(raw, s, c.opts)));
      for (const index of c.uses ?? []) expect({ index, used, ok: used.some((u) => index.split("|").includes(u)) }).toMatchObject({ ok: true });
    });
  }

  test("a statement that needs a missing index fails the check (the walk sees a sequential scan)", async () => {
    const s = { sql: "SELECT id FROM payin_orders WHERE notify_url = $1", params: ["https://x.example"] };
    await expect(expectPgSeek(raw, s)).rejects.toThrow(/sequential scan of payin_orders/);
  });
});

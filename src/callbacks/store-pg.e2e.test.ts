// The callback worker's PostgreSQL statements (issue 38): the claim as seeks (each merchant's due
// pending rows in due order, ended leases first; EXPLAIN shows no sort of the due rows), two owners never share
// a row, and an attempt's outcome in one statement (attempt row, this owner's row moved on, another
// owner's left alone).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { GENERIC_PLAN, openPgDb } from "../db/tx-pg";
import { closeDb } from "../db/client";
import { pgOf } from "../db/engine";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { CLAIMABLE_SQL, CLAIM_SQL, anyClaimable, callbackWorkerStore, claimParams, insertCallback } from "./store.pg";

let pgdb: TestDatabase;
let db: ReturnType<typeof openPgDb>;
let admin: SQL;
const NOW = 1_800_000_000_000;

beforeAll(async () => {
  pgdb = await createTestDatabase();
  db = openPgDb(pgdb.url, 4);
  admin = new SQL({ url: pgdb.url, max: 1 });
});
afterAll(async () => {
  await closeDb(db);
  await admin.close();
  await pgdb.drop();
});

const row = (id: string, orderNo: string, now: number) => ({
  id, merchantId: 1, kind: "payin", orderNo, status: "waiting_payment", apiKeyId: "k1", url: "https://shop.example/cb", payload: "{}", state: "pending" as const, now,
});

test("claims: due order, an order's later event behind its earlier one, ended leases first, two owners never share a row; the plan is a seek", async () => {
  // 20,000 rows waiting for a later retry, 20,000 delivered: what a claim must not read.
  await admin.unsafe(`INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT 'later-' || g, 1, 'payin', 'PL' || g, 'waiting_payment', 'k1', NULL, '{}', CASE WHEN g % 2 = 0 THEN 'pending' ELSE 'delivered' END, 1, $1::bigint + g, $1::bigint - 90000, $1::bigint
    FROM generate_series(1, 40000) g`, [NOW + 60_000]);
  for (let i = 0; i < 6; i++) await insertCallback(pgOf(db), row(`due-${i}`, `PD${i}`, NOW - 100 + i));
  await insertCallback(pgOf(db), row("due-0-next", "PD0", NOW - 50)); // PD0's second event
  await admin.unsafe(`UPDATE callbacks SET state = 'delivering', lease_owner = 'dead', lease_until = $1 WHERE id = 'due-5'`, [NOW - 1]);
  await admin.unsafe("ANALYZE callbacks");
  const a = callbackWorkerStore(db, "gw-a");
  const b = callbackWorkerStore(db, "gw-b");
  const first = await a.claimLeased!(3, 10_000, NOW);
  expect(first.map((r) => r.id).sort()).toEqual(["due-0", "due-1", "due-5"]); // the ended lease, then the first due (RETURNING has no order)
  const [rest, none] = await Promise.all([b.claimLeased!(10, 10_000, NOW), a.claimLeased!(10, 10_000, NOW)]);
  const all = [...first, ...rest, ...none].map((r) => r.id);
  expect(new Set(all).size).toBe(all.length);
  expect(all.sort()).toEqual(["due-0", "due-1", "due-2", "due-3", "due-4", "due-5"]); // due-0-next waits for due-0
  const plan = JSON.stringify(await admin.unsafe(`EXPLAIN (FORMAT JSON) ${CLAIM_SQL}`, claimParams(NOW, "gw-c", 10_000, 16)));
  expect(plan).toContain("callbacks_pending_merchant");
  expect(plan).not.toContain('"Seq Scan"');
  const check = JSON.stringify(await admin.unsafe(`EXPLAIN (FORMAT JSON) ${CLAIMABLE_SQL}`, [NOW]));
  expect(check).toContain("callbacks_pending_due"); // its first entry, not the 20,000 pending rows waiting
  expect(check).not.toContain('"Seq Scan"');
});

test("the claim as the worker runs it: one generic plan per connection, seeks and a probe per candidate, no JIT, even planned on a small table", async () => {
  const own = await createTestDatabase();
  const d = openPgDb(own.url, 2);
  const sql = new SQL({ url: own.url, max: 1 });
  try {
    // A small table, analyzed: what a generic plan built at a gateway's first claims sees.
    for (let i = 0; i < 20; i++) await insertCallback(pgOf(d), row(`small-${i}`, `PS${i % 5}`, NOW - 100 + i));
    await sql.unsafe("ANALYZE callbacks");
    const plan = await sql.begin(async (tx) => {
      for (const s of GENERIC_PLAN) await tx.unsafe(s);
      await tx.unsafe(`PREPARE claim_g AS ${CLAIM_SQL}`);
      const args = claimParams(NOW, "gw-g", 10_000, 16).map((v) => (typeof v === "number" ? String(v) : `'${String(v)}'`)).join(", ");
      return JSON.stringify(await tx.unsafe(`EXPLAIN (FORMAT JSON) EXECUTE claim_g(${args})`));
    });
    expect(plan).toContain("callbacks_pending_merchant");
    expect(plan).toContain("callbacks_order_seq"); // the order rule: a probe per candidate row
    expect(plan).not.toContain('"Seq Scan"');
    expect(plan).not.toContain('"Join Type":"Anti"'); // a SubPlan per candidate row, never a join over every pending row
    expect(plan).not.toContain('"JIT"');
    // Through the store: the rows due, the order rule kept (PS0..PS4's first events only).
    const got = await callbackWorkerStore(d, "gw-g").claimLeased!(16, 10_000, NOW);
    expect(got.map((r) => r.id).sort()).toEqual(["small-0", "small-1", "small-2", "small-3", "small-4"]);
  } finally {
    await sql.close();
    await closeDb(d);
    await own.drop();
  }
});

test("the check before a claim: true only with a pending row due or a lease ended; then the claim takes it", async () => {
  const own = await createTestDatabase();
  const d = openPgDb(own.url, 2);
  const sql = new SQL({ url: own.url, max: 1 });
  try {
    const pool = { unsafe: sql.unsafe.bind(sql) };
    expect(await anyClaimable(pool, NOW)).toBe(false); // empty
    await insertCallback(pgOf(d), row("later", "PC1", NOW + 5_000)); // due in 5 s
    await insertCallback(pgOf(d), row("held", "PC2", NOW - 10));
    await sql.unsafe(`UPDATE callbacks SET state = 'delivering', lease_owner = 'gw-x', lease_until = $1 WHERE id = 'held'`, [NOW + 1_000]); // a live lease
    await insertCallback(pgOf(d), row("done", "PC3", NOW - 10));
    await sql.unsafe(`UPDATE callbacks SET state = 'delivered' WHERE id = 'done'`);
    expect(await anyClaimable(pool, NOW)).toBe(false);
    expect(await callbackWorkerStore(d, "gw-y").claimLeased!(10, 10_000, NOW)).toEqual([]);
    // Due but held back (its order's earlier event is another gateway's claim): the claim runs, takes nothing, says so.
    await insertCallback(pgOf(d), row("held-next", "PC2", NOW - 5));
    expect(await anyClaimable(pool, NOW)).toBe(true);
    const held = await callbackWorkerStore(d, "gw-y").claimLeased!(10, 10_000, NOW);
    expect([held.length, held.heldBack]).toEqual([0, true]);
    await sql.unsafe(`DELETE FROM callbacks WHERE id = 'held-next'`);
    expect(await anyClaimable(pool, NOW + 1_000)).toBe(true); // the lease ended
    expect(await anyClaimable(pool, NOW + 5_000)).toBe(true); // due now
    expect((await callbackWorkerStore(d, "gw-y").claimLeased!(10, 10_000, NOW + 5_000)).map((r) => r.id).sort()).toEqual(["held", "later"]);
  } finally {
    await sql.close();
    await closeDb(d);
    await own.drop();
  }
});

test("an outcome in one statement: attempts numbered, retry or delivered; another owner writes nothing (neither the row nor an attempt)", async () => {
  await insertCallback(pgOf(db), row("one", "PO1", NOW));
  const a = callbackWorkerStore(db, "gw-o");
  const other = callbackWorkerStore(db, "gw-p");
  expect((await a.claimLeased!(10, 10_000, NOW + 1)).map((r) => r.id)).toContain("one");
  const fail = { startedAt: NOW + 2, durationMs: 5, httpStatus: 500, responseBody: "no", error: "HTTP 500" };
  // Not its owner (a gateway whose lease ended and whose row gw-o took): nothing is written, the row stays with gw-o.
  expect(await other.recordOutcome!("one", fail, "https://shop.example/cb", { state: "pending", attempts: 1, nextAt: NOW + 60_000, lastError: "HTTP 500" }, NOW + 3)).toEqual({ settled: false, changedAt: null });
  expect(await admin.unsafe(`SELECT 1 FROM callback_attempts WHERE callback_id = 'one'`)).toHaveLength(0);
  expect(await a.holdsClaim!("one", NOW + 3)).toBe(true);
  expect(await other.holdsClaim!("one", NOW + 3)).toBe(false);
  expect(await a.holdsClaim!("one", NOW + 1 + 10_001)).toBe(false); // past its lease
  let [r] = await admin.unsafe(`SELECT state, attempts, lease_owner FROM callbacks WHERE id = 'one'`);
  expect(r).toMatchObject({ state: "delivering", lease_owner: "gw-o" });
  expect(await a.recordOutcome!("one", fail, "https://shop.example/cb", { state: "pending", attempts: 1, nextAt: NOW + 60_000, lastError: "HTTP 500" }, NOW + 3)).toEqual({ settled: true, changedAt: null });
  [r] = await admin.unsafe(`SELECT state, attempts, next_attempt_at, lease_owner, last_error FROM callbacks WHERE id = 'one'`);
  expect(r).toMatchObject({ state: "pending", attempts: "1", next_attempt_at: String(NOW + 60_000), lease_owner: null, last_error: "HTTP 500" });
  expect((await a.claimLeased!(10, 10_000, NOW + 60_000)).map((x) => x.id)).toContain("one");
  const ok = { startedAt: NOW + 60_001, durationMs: 3, httpStatus: 200, responseBody: "ok", error: null };
  expect(await a.recordOutcome!("one", ok, "https://shop.example/cb", { state: "delivered", attempts: 2, nextAt: NOW + 60_002, lastError: null }, NOW + 60_002)).toEqual({ settled: true, changedAt: NOW });
  [r] = await admin.unsafe(`SELECT state, attempts, lease_owner FROM callbacks WHERE id = 'one'`);
  expect(r).toMatchObject({ state: "delivered", attempts: "2", lease_owner: null });
  const attempts = await admin.unsafe(`SELECT attempt_no, http_status FROM callback_attempts WHERE callback_id = 'one' ORDER BY attempt_no`);
  expect(attempts.map((x: { attempt_no: string }) => Number(x.attempt_no))).toEqual([1, 2]);
});

test("outcomes finishing together share one statement: each row's own answer, another owner's row untouched, a NUL in an answer kept out", async () => {
  const ids = ["batch-0", "batch-1", "batch-2", "batch-3"];
  for (const [i, id] of ids.entries()) await insertCallback(pgOf(db), { ...row(id, `PB${i}`, NOW), url: `https://batch${i === 3 ? "-other" : ""}.example/cb` }); // origins of their own: no share taken by the rows above
  const a = callbackWorkerStore(db, "gw-batch");
  const other = callbackWorkerStore(db, "gw-batch-other");
  expect((await a.claimLeased!(3, 10_000, NOW + 1)).map((r) => r.id).sort()).toEqual(ids.slice(0, 3));
  expect((await other.claimLeased!(3, 10_000, NOW + 1)).map((r) => r.id)).toEqual(["batch-3"]);
  const fail = { startedAt: NOW + 2, durationMs: 5, httpStatus: 500, responseBody: "bad\u0000body", error: "HTTP 500" };
  const ok = { startedAt: NOW + 2, durationMs: 3, httpStatus: 200, responseBody: "ok", error: null };
  const retry = { state: "pending", attempts: 1, nextAt: NOW + 60_000, lastError: "HTTP 500" };
  const [r0, r1, r2, r3] = await Promise.all([
    a.recordOutcome!("batch-0", fail, "https://shop.example/cb", retry, NOW + 3),
    a.recordOutcome!("batch-1", ok, "https://shop.example/cb", { state: "delivered", attempts: 1, nextAt: NOW + 3, lastError: null }, NOW + 3),
    a.recordOutcome!("batch-2", fail, "https://shop.example/cb", { ...retry, state: "failed" }, NOW + 3),
    a.recordOutcome!("batch-3", ok, "https://shop.example/cb", { state: "delivered", attempts: 1, nextAt: NOW + 3, lastError: null }, NOW + 3), // not gw-batch's
  ]);
  expect([r0, r1, r2, r3]).toEqual([{ settled: true, changedAt: null }, { settled: true, changedAt: NOW }, { settled: true, changedAt: null }, { settled: false, changedAt: null }]);
  const states = await admin.unsafe(`SELECT id, state, lease_owner FROM callbacks WHERE id LIKE 'batch-%' ORDER BY id`);
  expect(states.map((x: { id: string; state: string; lease_owner: string | null }) => `${x.id} ${x.state} ${x.lease_owner}`)).toEqual([
    "batch-0 pending null", "batch-1 delivered null", "batch-2 failed null", "batch-3 delivering gw-batch-other",
  ]);
  const attempts = await admin.unsafe(`SELECT callback_id, attempt_no, response_body FROM callback_attempts WHERE callback_id LIKE 'batch-%' ORDER BY callback_id`);
  expect(attempts.map((x: { callback_id: string; attempt_no: string; response_body: string }) => `${x.callback_id} ${x.attempt_no} ${x.response_body}`)).toEqual([
    "batch-0 1 bad\uFFFDbody", "batch-1 1 ok", "batch-2 1 bad\uFFFDbody",
  ]);
  // Its second attempt, alone: numbered after the first.
  expect((await a.claimLeased!(3, 10_000, NOW + 60_000)).map((r) => r.id)).toContain("batch-0"); // with batch-3, whose lease ended
  expect(await a.recordOutcome!("batch-0", ok, null, { state: "delivered", attempts: 2, nextAt: NOW + 60_001, lastError: null }, NOW + 60_001)).toEqual({ settled: true, changedAt: NOW });
  expect(await admin.unsafe(`SELECT attempt_no FROM callback_attempts WHERE callback_id = 'batch-0' ORDER BY attempt_no`)).toEqual([{ attempt_no: "1" }, { attempt_no: "2" }]);
  // A batch one of whose rows cannot be written (here a next attempt time of NaN: NULL, refused) is written again row by row: only that row's caller fails.
  await insertCallback(pgOf(db), { ...row("batch-4", "PB4", NOW), url: "https://batch.example/cb" });
  expect((await a.claimLeased!(3, 10_000, NOW + 60_002)).map((r) => r.id)).toContain("batch-4");
  const [bad, good] = await Promise.allSettled([
    a.recordOutcome!("batch-4", fail, null, { ...retry, nextAt: Number.NaN }, NOW + 60_003),
    a.recordOutcome!("batch-3", ok, null, { state: "delivered", attempts: 1, nextAt: NOW + 60_003, lastError: null }, NOW + 60_003), // gw-batch-other's lease ended; a claimed it above
  ]);
  expect(bad.status).toBe("rejected");
  expect(good).toEqual({ status: "fulfilled", value: { settled: true, changedAt: NOW } });
  expect((await admin.unsafe(`SELECT state FROM callbacks WHERE id = 'batch-4'`))[0]).toEqual({ state: "delivering" });
});

test("the fair claim: a share per (merchant, origin) counting another gateway's live claims, round-robin, overflow for an idle merchant, a healthy origin takes the pool; a seek with 300 merchants", async () => {
  await admin.unsafe("DELETE FROM callback_attempts");
  await admin.unsafe("DELETE FROM callbacks"); // the earlier tests' rows
  const T = NOW + 10_000_000;
  const cb = (id: string, merchantId: number, url: string, at: number) => ({ ...row(id, `PF-${id}`, at), merchantId, url });
  // Merchant 7: 20 rows to a dead origin, then 3 to another; merchant 8: 5 rows; merchant 9: 2 rows.
  for (let i = 0; i < 20; i++) await insertCallback(pgOf(db), cb(`dead-${i}`, 7, "https://dead.example/cb", T - 1000 + i));
  for (let i = 0; i < 3; i++) await insertCallback(pgOf(db), cb(`alive-${i}`, 7, "https://alive.example:8443/x", T - 500 + i));
  for (let i = 0; i < 5; i++) await insertCallback(pgOf(db), cb(`eight-${i}`, 8, "https://eight.example/cb", T - 400 + i));
  for (let i = 0; i < 2; i++) await insertCallback(pgOf(db), cb(`nine-${i}`, 9, "https://nine.example/cb", T - 300 + i));
  // Another gateway holds one of the dead origin's rows under a live lease.
  await admin.unsafe(`UPDATE callbacks SET state = 'delivering', lease_owner = 'gw-other', lease_until = $1 WHERE id = 'dead-0'`, [T + 60_000]);
  const fair = { perTarget: 2, overflow: 0, concurrency: 8, healthy: [] as string[] };
  const a = callbackWorkerStore(db, "gw-fair");
  // 6 free slots: merchant 7 gets one more dead row (the other gateway holds one) and its other
  // origin, round-robin with 8 and 9 (fewest in flight first).
  const first = (await a.claimLeased!(6, 10_000, T, fair)).map((r) => r.id).sort();
  expect(first).toEqual(["alive-0", "dead-1", "eight-0", "eight-1", "nine-0", "nine-1"]);
  // The pool is full (0 free): only a merchant with nothing in flight takes an overflow slot.
  await insertCallback(pgOf(db), cb("ten-0", 10, "https://ten.example/cb", T));
  expect((await a.claimLeased!(0, 10_000, T, { ...fair, overflow: 4 })).map((r) => r.id)).toEqual(["ten-0"]);
  // Merchant 8's origin proven healthy: it may go past its share.
  const healthy = (await a.claimLeased!(8, 10_000, T, { ...fair, healthy: ["8 https://eight.example"] })).map((r) => r.id).sort();
  expect(healthy.filter((id) => id.startsWith("eight-"))).toEqual(["eight-2", "eight-3", "eight-4"]);
  expect(healthy.filter((id) => id.startsWith("dead-"))).toEqual([]);
  // 300 merchants with pending rows, analyzed: the claim stays index seeks.
  await admin.unsafe(`INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
    SELECT 'many-' || g, 100 + g % 300, 'payin', 'PM' || g, 'waiting_payment', 'k1', 'https://m' || (g % 300) || '.example/cb', '{}', 'pending', 0, $1::bigint + g, $1::bigint, $1::bigint
    FROM generate_series(1, 30000) g`, [T + 60_000]);
  await admin.unsafe("ANALYZE callbacks");
  const plan = JSON.stringify(await admin.unsafe(`EXPLAIN (FORMAT JSON) ${CLAIM_SQL}`, claimParams(T, "gw-c", 10_000, 16, fair)));
  expect(plan).toContain("callbacks_pending_merchant");
  expect(plan).not.toContain('"Seq Scan"');
  const check = JSON.stringify(await admin.unsafe(`EXPLAIN (FORMAT JSON) ${CLAIMABLE_SQL}`, [NOW]));
  expect(check).toContain("callbacks_pending_due"); // its first entry, not the 20,000 pending rows waiting
  expect(check).not.toContain('"Seq Scan"');
});

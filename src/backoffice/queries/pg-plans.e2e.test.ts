// The back office's lists, counts and search are seeks on PostgreSQL too (DESIGN 11 "Growth",
// DESIGN 22): with 20,000 orders, transfers and callbacks analyzed, every statement the list,
// count, search and callbacks functions run (recorded as they run, db/raw.ts pgStatementTrace) is
// EXPLAINed (FORMAT JSON) and must read no large table by a sequential scan.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isPg } from "../../db/engine";
import { pgStatement, pgStatementTrace, rawAll } from "../../db/raw";
import { pgOf } from "../../db/engine";
import { LARGE_TABLES } from "../../testing/query-plan";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { countCallbackEvents, listCallbackEvents, parseCallbackFilter } from "./callbacks";
import { parseFilter } from "./filters";
import { countDeposits, countPayins, DEPOSIT_STATUSES, listDeposits, listPayins, PAYIN_STATUSES } from "./lists";
import { search } from "./search";

const N = 20_000;
let gw: TestGateway;
let order: Record<string, string>;

beforeAll(async () => {
  gw = await startTestGateway({ engine: "pg", jobs: false });
  if (!isPg(gw.ctx.db)) throw new Error("not on PostgreSQL");
  order = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "PLAN-0", amount: "1", notifyUrl: "https://shop.example/cb" },
  });
  const db = gw.ctx.db;
  const statuses = PAYIN_STATUSES.map((s) => `'${s}'`).join(", ");
  await rawAll(
    db,
    `INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address, api_key_id, status, checkout_token, created_at, updated_at, tx_hash, from_address)
     SELECT 'PI2026' || lpad(g::text, 12, '0'), o.merchant_id, 'PLAN-' || g, o.mode, o.chain, o.token, o.decimals, (1000000 + g)::text, o.address_id, o.address, o.api_key_id,
            (ARRAY[${statuses}])[1 + g % ${PAYIN_STATUSES.length}], 'plan-' || g, o.created_at + g, o.created_at + g, 'tx' || lpad(g::text, 8, '0'), 'Tfrom' || (g % 500)
     FROM payin_orders o, generate_series(1, ${N}) g WHERE o.order_no = ?`,
    [order.orderNo],
  );
  await rawAll(
    db,
    `INSERT INTO transfers (chain, token, tx_hash, log_index, block_number, block_hash, block_time, from_address, to_address, address_id, amount, status, disposition, seen_at)
     SELECT 'TRON', 'USDT', 'tx' || lpad(g::text, 8, '0'), 0, g, 'b' || g, o.created_at + g, 'Tfrom' || (g % 500), o.address, o.address_id, '1000000',
            (ARRAY['pending', 'confirmed', 'reverted'])[1 + g % 3], (ARRAY['matched', 'unmatched', 'attached', 'payout_change'])[1 + g % 4], o.created_at + g
     FROM payin_orders o, generate_series(1, ${N}) g WHERE o.order_no = ?`,
    [order.orderNo],
  );
  await rawAll(
    db,
    `INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'evt_plan_' || g, c.merchant_id, c.kind, 'PI2026' || lpad(g::text, 12, '0'), c.order_status, c.api_key_id, c.url, c.payload,
            (ARRAY['pending', 'delivering', 'delivered', 'failed', 'held'])[1 + g % 5], g % 3, c.created_at + g, c.created_at + g, c.created_at + g
     FROM callbacks c, generate_series(1, ${N}) g WHERE c.order_no = ?`,
    [order.orderNo],
  );
  await rawAll(
    db,
    `INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at)
     SELECT 'ADPLAN' || g, a.merchant_id, a.chain, a.kind, 1000000 + g, 'TPlan' || lpad(g::text, 8, '0'), a.created_at FROM addresses a, generate_series(1, ${N}) g WHERE a.id = ?`,
    [(await rawAll<{ address_id: string }>(db, "SELECT address_id FROM payin_orders WHERE order_no = ?", [order.orderNo]))[0]!.address_id],
  );
  for (const t of ["payin_orders", "transfers", "callbacks", "addresses", "merchants"]) await rawAll(db, `ANALYZE ${t}`);
}, 300_000);
afterAll(() => gw.stop());

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/** Runs `fn`, then EXPLAINs every statement it ran; the large tables each one scanned sequentially. */
async function seqScans(fn: () => Promise<unknown>): Promise<{ sql: string; scanned: string[] }[]> {
  const ran: { text: string; params: readonly unknown[] }[] = [];
  pgStatementTrace.on = (text, params) => ran.push({ text, params });
  try {
    await fn();
  } finally {
    pgStatementTrace.on = null;
  }
  const out: { sql: string; scanned: string[] }[] = [];
  for (const s of ran.filter((r) => /^\s*(\(|SELECT|WITH)/i.test(r.text))) {
    const rows = (await pgOf(gw.ctx.db).execute(pgStatement(`EXPLAIN (FORMAT JSON) ${s.text}`, s.params))) as unknown as { "QUERY PLAN": { Plan: PlanNode }[] }[];
    const plan = rows[0]!["QUERY PLAN"][0]!.Plan;
    out.push({ sql: s.text, scanned: nodes(plan).filter((n) => n["Node Type"] === "Seq Scan" && LARGE_TABLES.includes(n["Relation Name"] ?? "")).map((n) => n["Relation Name"]!) });
  }
  expect(out.length).toBeGreaterThan(0);
  return out.filter((o) => o.scanned.length);
}

const op = { merchantId: null };
const f = (q: Record<string, string>, statuses: readonly string[]) => parseFilter(q, statuses);

describe("PostgreSQL plans of the back office's lists", () => {
  const cases: [string, () => Promise<unknown>][] = [
    ["pay-ins, no filter", async () => await listPayins(gw.ctx.db, op, f({}, PAYIN_STATUSES), { before: 15_000 })],
    ["pay-ins by status", async () => await listPayins(gw.ctx.db, op, f({ status: "completed" }, PAYIN_STATUSES))],
    ["pay-ins of a merchant (one arm per status)", async () => await listPayins(gw.ctx.db, { merchantId: gw.merchant.id }, f({}, PAYIN_STATUSES))],
    ["pay-ins of a merchant and a status", async () => await listPayins(gw.ctx.db, { merchantId: gw.merchant.id }, f({ status: "expired" }, PAYIN_STATUSES))],
    ["pay-ins in a date range", async () => await listPayins(gw.ctx.db, op, f({ from: "2026-01-01", to: "2030-01-01" }, PAYIN_STATUSES))],
    ["pay-ins counted", async () => await countPayins(gw.ctx.db, op, f({ status: "waiting_payment" }, PAYIN_STATUSES))],
    ["deposits, no filter", async () => await listDeposits(gw.ctx.db, op, f({}, DEPOSIT_STATUSES), () => 6)],
    ["deposits by disposition", async () => await listDeposits(gw.ctx.db, op, f({ status: "unmatched" }, DEPOSIT_STATUSES), () => 6)],
    ["deposits of a merchant and a status", async () => await listDeposits(gw.ctx.db, { merchantId: gw.merchant.id }, f({ status: "pending" }, DEPOSIT_STATUSES), () => 6)],
    ["deposits in a date range", async () => await listDeposits(gw.ctx.db, op, f({ from: "2026-01-01", to: "2030-01-01" }, DEPOSIT_STATUSES), () => 6)],
    ["deposits counted", async () => await countDeposits(gw.ctx.db, op, f({ status: "reverted" }, DEPOSIT_STATUSES))],
    ["callbacks, no filter", async () => await listCallbackEvents(gw.ctx.db, op, parseCallbackFilter({}))],
    ["callbacks by state", async () => await listCallbackEvents(gw.ctx.db, op, parseCallbackFilter({ state: "failed" }))],
    ["callbacks of a merchant", async () => await listCallbackEvents(gw.ctx.db, { merchantId: gw.merchant.id }, parseCallbackFilter({}))],
    ["callbacks of an order", async () => await listCallbackEvents(gw.ctx.db, op, parseCallbackFilter({ order: order.orderNo! }))],
    ["callbacks in a date range", async () => await listCallbackEvents(gw.ctx.db, op, parseCallbackFilter({ from: "2026-01-01", to: "2030-01-01" }))],
    ["callbacks counted", async () => await countCallbackEvents(gw.ctx.db, op, parseCallbackFilter({ state: "delivered" }))],
    ["search: an orderNo prefix", async () => await search(gw.ctx.db, op, "PI20260000001", () => 6)],
    ["search: a tx hash", async () => await search(gw.ctx.db, op, "tx00001234", () => 6)],
    ["search: an address (a merchant's scope)", async () => await search(gw.ctx.db, { merchantId: gw.merchant.id }, order.address!, () => 6)],
    ["search: a sender", async () => await search(gw.ctx.db, op, "Tfrom42", () => 6)],
  ];
  test("the check sees a sequential scan (an unindexed amount)", async () => {
    const scans = await seqScans(async () => await rawAll(gw.ctx.db, "SELECT count(*) AS n FROM payin_orders WHERE amount = ?", ["5"]));
    expect(scans.map((s) => s.scanned)).toEqual([["payin_orders"]]);
  });
  test.each(cases)("%s: no sequential scan of a large table", async (_name, run) => {
    expect(await seqScans(run)).toEqual([]);
  }, 120_000);
});

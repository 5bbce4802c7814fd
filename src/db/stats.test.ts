// Statistics gathered by reads (src/db/stats.ts) equal what ANALYZE writes, on the migrated
// schema with rows in the tables that grow (partial indexes, unique ones, WITHOUT ROWID tables).
import { describe, expect, test } from "bun:test";
import { openDb, type Db } from "./client";
import { migrate } from "./migrate";
import { applyStats, gatherStats, REANALYZE_FACTOR } from "./stats";

async function filled(orders: number): Promise<Db> {
  const db = openDb(":memory:");
  await migrate(db);
  const c = db.$client;
  c.run("PRAGMA foreign_keys = OFF");
  const statuses = ["waiting_payment", "detected", "confirming", "completed", "expired"];
  c.transaction(() => {
    const o = c.prepare(
      `INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address, notify_url, api_key_id,
         status, tx_hash, from_address, checkout_token, expire_at, created_at, updated_at, expired_at) VALUES (?, ?, ?, 'shared', 'TRON', 'USDT', 6, ?, ?, 'a', 'u', 'k', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const t = c.prepare(
      `INSERT INTO transfers (chain, token, tx_hash, log_index, block_number, block_hash, block_time, from_address, to_address, address_id, amount, status, confirmations, seen_at, unmatched_reason, disposition)
       VALUES ('TRON', 'USDT', ?, 0, ?, 'h', ?, ?, 'to', ?, '1', ?, 1, ?, ?, ?)`,
    );
    const l = c.prepare(`INSERT INTO ledger_entries (address_id, chain, token, kind, amount, ref_type, ref_id, created_at) VALUES (?, 'TRON', 'USDT', 'deposit', '5', 'transfer', ?, ?)`);
    for (let i = 0; i < orders; i++) {
      const status = statuses[(i * 7) % statuses.length]!;
      const done = status === "completed";
      const waiting = status === "waiting_payment";
      o.run(`PI${100000 + i}`, 1 + (i % 7), `m${i}`, waiting ? String(i) : String(10 + (i % 3)), `A${i % 5}`, status, done ? `tx${i}` : null, done ? `F${i % 11}` : null, `ck${i}`, i, i, i, status === "expired" ? i : null);
      if (i % 3 === 0) t.run(`t${i}`, i, i, `F${i % 13}`, `A${i % 5}`, i % 9 === 0 ? "pending" : "confirmed", i, i % 30 === 0 ? "no_order" : null, i % 30 === 0 ? "unmatched" : "matched");
      if (i % 2 === 0) l.run(`A${i % 5}`, String(i), i);
    }
  }).immediate();
  return db;
}

const statRows = (db: Db) =>
  db.$client
    .query<{ tbl: string; idx: string | null; stat: string }, []>("SELECT tbl, idx, stat FROM sqlite_stat1 ORDER BY tbl, idx")
    .all()
    .map((r) => `${r.tbl} ${r.idx ?? "-"} ${r.stat}`);

describe("planner statistics by reads", () => {
  test("the rows equal ANALYZE's for every table of the schema", async () => {
    const analyzed = await filled(1500);
    analyzed.$client.run("PRAGMA analysis_limit = 0");
    analyzed.$client.run("ANALYZE");
    const gathered = await filled(1500);
    const s = gatherStats(gathered.$client, REANALYZE_FACTOR);
    expect(s.tables).toContain("payin_orders");
    await applyStats(gathered, s);
    expect(statRows(gathered)).toEqual(statRows(analyzed));
  });

  test("fresh statistics are not gathered again; a table that grew 10x, or a new index, is", async () => {
    const db = await filled(300);
    await applyStats(db, gatherStats(db.$client, REANALYZE_FACTOR));
    expect(gatherStats(db.$client, REANALYZE_FACTOR).tables).toEqual([]);
    db.$client.run("INSERT INTO ledger_entries (address_id, chain, token, kind, amount, ref_type, ref_id, created_at) SELECT address_id, chain, token, kind, amount, ref_type, ref_id || 'x' || k.v, created_at FROM ledger_entries, (WITH RECURSIVE k(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM k WHERE v < 10) SELECT v FROM k) k");
    db.$client.run("CREATE INDEX test_payin_token ON payin_orders (token)");
    expect(gatherStats(db.$client, REANALYZE_FACTOR).tables).toEqual(["ledger_entries", "payin_orders"]);
  });

  test("the planner reads what was written", async () => {
    const db = await filled(200);
    await applyStats(db, gatherStats(db.$client, REANALYZE_FACTOR));
    const plan = db.$client.query<{ detail: string }, []>("EXPLAIN QUERY PLAN SELECT id FROM payin_orders WHERE status = 'detected' AND merchant_id = 3").all();
    expect(plan.map((p) => p.detail).join(" ")).toMatch(/USING (COVERING )?INDEX/);
  });
});

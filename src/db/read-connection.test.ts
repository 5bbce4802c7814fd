// Reads outside a transaction go to the read connection (review R6, docs/transactions.md "Reads
// outside a transaction: the read connection"): while another request's group is open on the write connection, with an
// uncommitted order in it, a read sees only committed state; a transaction body reads its own writes.
// SQLite only: on PostgreSQL each statement outside a transaction is its own pooled connection.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { closeDb, hasReadConnection, openDb, readCommitted, readDb, reloadStats, writeTx, type Db } from "./client";
import { GroupCommit, groupCommit } from "./group-commit";
import { migrate } from "./migrate";
import { strictWrites } from "./write-lock";
import { rawAll } from "./raw";
import { chainCursors } from "./schema";
import { chainCursor, saveChainCursor } from "../watcher/store";
import { getPayinOrder } from "../payin/service";
import { apiError, startTestGateway } from "../testing/harness";
import { AppError } from "../errors";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function fileDb(): Promise<Db> {
  const d = mkdtempSync(join(tmpdir(), "stablegate-read-"));
  dirs.push(d);
  const db = openDb(join(d, "r.db"));
  await migrate(db);
  return db;
}

/** Holds the next group of `g` open before its COMMIT until the returned `release` (a throw: the group rolls back). */
function holdNextGroup(g: GroupCommit): { held: Promise<void>; release(fail?: Error): void } {
  let held!: () => void;
  let release!: (fail?: Error) => void;
  const heldP = new Promise<void>((r) => (held = r));
  const released = new Promise<Error | undefined>((r) => (release = r));
  g.holdBeforeCommit = async () => {
    g.holdBeforeCommit = null;
    held();
    const fail = await released;
    if (fail) throw fail;
  };
  return { held: heldP, release };
}

/** What each read path of a store answers for TRON's cursor, outside any transaction. */
async function cursorReads(db: Db): Promise<unknown[]> {
  return [
    (await chainCursor(db, "TRON"))?.blockNumber ?? null, // prepared (the store's hot path)
    (await db.select().from(chainCursors).where(eq(chainCursors.chain, "TRON")).all()).length, // drizzle, one shot
    (await rawAll(db, "SELECT chain FROM chain_cursors WHERE chain = 'TRON'")).length, // hand-written
  ];
}

describe("the read connection", () => {
  test("an open group's uncommitted row is invisible to reads outside it; visible once committed; a rolled-back one never", async () => {
    const db = await fileDb();
    const g = groupCommit(db) as GroupCommit;
    expect(hasReadConnection(db)).toBe(true);

    // Held open with the cursor written: the write connection has the row, a read outside sees nothing.
    const hold = holdNextGroup(g);
    const job = g.run({ work: async () => await writeTx(db, async (tx) => await saveChainCursor(tx, "TRON", 7, "0x07", 1)) });
    await hold.held;
    expect(db.$client.query("SELECT block_number AS n FROM chain_cursors").all()).toEqual([{ n: 7 }]);
    expect(await cursorReads(db)).toEqual([null, 0, 0]);
    hold.release();
    await job;
    expect(await cursorReads(db)).toEqual([7, 1, 1]);

    // A group that rolls back: its row is never seen, during or after.
    const hold2 = holdNextGroup(g);
    const job2 = g.run({ work: async () => await writeTx(db, async (tx) => await saveChainCursor(tx, "TRON", 8, "0x08", 2)) });
    await hold2.held;
    expect(await cursorReads(db)).toEqual([7, 1, 1]);
    hold2.release(new Error("the group's COMMIT failed"));
    await expect(job2).rejects.toThrow("the group's COMMIT failed");
    expect(await cursorReads(db)).toEqual([7, 1, 1]);
    await closeDb(db);
  });

  test("a transaction body reads its own writes; a write outside writeTx on an idle connection still autocommits", async () => {
    const db = await fileDb();
    await writeTx(db, async (tx) => {
      await saveChainCursor(tx, "TRON", 1, "0x01", 1);
      expect(readDb(tx)).toBe(tx);
      expect(await cursorReads(tx)).toEqual([1, 1, 1]);
    });
    // Without the strict write check (on in tests, src/testing/strict-writes.ts), a plain write
    // outside writeTx is pinned to the write connection and committed alone.
    strictWrites(db.$client, false);
    await saveChainCursor(db, "TRON", 2, "0x02", 2);
    expect(await cursorReads(db)).toEqual([2, 1, 1]);
    expect(readDb(db)).not.toBe(db);
    await closeDb(db);
  });

  test("readCommitted reads committed state without waiting for the open group", async () => {
    const db = await fileDb();
    const g = groupCommit(db) as GroupCommit;
    await writeTx(db, async (tx) => await saveChainCursor(tx, "TRON", 3, "0x03", 1));
    const hold = holdNextGroup(g);
    const job = g.run({ work: async () => await writeTx(db, async (tx) => await saveChainCursor(tx, "TRON", 4, "0x04", 2)) });
    await hold.held;
    expect(await readCommitted(db, async (d) => (await chainCursor(d, "TRON"))?.blockNumber)).toBe(3);
    hold.release();
    await job;
    await closeDb(db);
  });

  test("new planner statistics reach the read connection (it loads them once, with its schema)", async () => {
    const db = await fileDb();
    const c = db.$client;
    c.run("CREATE TABLE t (a INTEGER, b INTEGER)");
    c.run("CREATE INDEX ta ON t (a)");
    c.run("CREATE INDEX tb ON t (b)");
    c.run("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999) INSERT INTO t SELECT i % 2, i FROM n");
    const plan = (d: Db) => d.$client.prepare<{ detail: string }, []>("EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1 AND b > 5").all().map((r) => r.detail).join();
    expect(plan(readDb(db))).toContain("INDEX ta");
    await writeTx(db, async (tx) => {
      tx.$client.run("ANALYZE \"schema_migrations\"");
      tx.$client.run("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('t', 'ta', '2000 1000'), ('t', 'tb', '2000 1')");
    });
    await reloadStats(db);
    expect([plan(db), plan(readDb(db))]).toEqual([expect.stringContaining("INDEX tb"), expect.stringContaining("INDEX tb")]);
    await closeDb(db);
  });

  test("an in-memory database has one connection: reads stay on it", async () => {
    const db = openDb(":memory:");
    expect([hasReadConnection(db), readDb(db) === db]).toEqual([false, true]);
    await closeDb(db);
  });
});

describe("through the gateway", () => {
  const mo = (n: string) => ({ chainCode: "TRON" as const, tokenSymbol: "USDT" as const, merchantOrderNo: n, amount: "5", notifyUrl: "https://shop.example/pi" });
  const uncommitted = (gw: Awaited<ReturnType<typeof startTestGateway>>, merchantOrderNo: string) =>
    gw.ctx.db.$client.query<{ orderNo: string; token: string }, [string]>("SELECT order_no AS orderNo, checkout_token AS token FROM payin_orders WHERE merchant_order_no = ?").get(merchantOrderNo);

  test("a create held open in its group: GET answers 404 until the commit, then 200; a rolled-back create never appears", async () => {
    const gw = await startTestGateway({ engine: "sqlite", jobs: false });
    try {
      const g = groupCommit(gw.ctx.db) as GroupCommit;
      const status = async (token: string) => (await fetch(`${gw.url}/checkout/${token}/status`)).status;
      const notFound = async (orderNo: string) => {
        const e = await getPayinOrder(gw.ctx.db, gw.merchant.id, orderNo).then(() => null, (x: unknown) => x);
        return e instanceof AppError ? e.code : e;
      };

      // Committed after the hold.
      const hold = holdNextGroup(g);
      const create = gw.client.createPayinOrder(mo("r6-commit"));
      await hold.held;
      const row = uncommitted(gw, "r6-commit")!;
      expect(row).toBeTruthy();
      // The merchant API's read of the order (what the signed GET runs) and the checkout's status page.
      expect(await notFound(row.orderNo)).toBe(40108);
      expect(await status(row.token)).toBe(404);
      // A signed GET sent now records its nonce in the next group: it answers once this one ends.
      const get = gw.client.getPayinOrder(row.orderNo);
      hold.release();
      expect((await create).orderNo).toBe(row.orderNo);
      expect((await get).orderNo).toBe(row.orderNo);
      expect(await status(row.token)).toBe(200);

      // Rolled back: never visible, during the hold or after.
      const hold2 = holdNextGroup(g);
      const create2 = gw.client.createPayinOrder(mo("r6-rollback")).then(() => "answered", (e: unknown) => e);
      await hold2.held;
      const row2 = uncommitted(gw, "r6-rollback")!;
      expect(row2).toBeTruthy();
      expect(await notFound(row2.orderNo)).toBe(40108);
      expect(await status(row2.token)).toBe(404);
      const get2 = apiError(gw.client.getPayinOrder(row2.orderNo));
      hold2.release(new Error("the group's COMMIT failed"));
      expect(await create2).not.toBe("answered");
      expect((await get2).status).toBe(404);
      expect(await status(row2.token)).toBe(404);
      expect(uncommitted(gw, "r6-rollback")).toBeNull();
    } finally {
      await gw.stop();
    }
  });
});

// Group commit keeps every request's outcome separate, and a SIGKILL during a
// group loses nothing that was acknowledged.
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownCommits, openDb } from "./client";
import { GroupCommit, groupCommit, sharedWriteTx } from "./group-commit";
import { startTestGateway } from "../testing/harness";
import { ApiError, StablegateClient } from "../sdk/client";
import { runCli, startGatewayProcess, tempSetup } from "../testing/process";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "stablegate-group-"));
  dirs.push(d);
  return d;
}

describe("one group, separate outcomes", () => {
  test("a request that fails half-way among 50 concurrent ones rolls back alone; all 50 share one commit", async () => {
    const db = openDb(join(tempDir(), "g.db"));
    db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)");
    db.$client.run("CREATE TABLE marks (who TEXT NOT NULL)");
    const g = new GroupCommit(db.$client);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        g.run({
          work: () => {
            db.$client.run("INSERT INTO t (who) VALUES (?)", [`r${i}`]);
            if (i === 17) throw new Error("request 17 failed after writing");
            db.$client.run("INSERT INTO t (who) VALUES (?)", [`r${i}-second`]);
            return i;
          },
          // What a failed request still records (the nonce, for signed requests).
          recover: () => db.$client.run("INSERT INTO marks (who) VALUES (?)", [`r${i}`]),
        }),
      ),
    );
    expect(g.groups).toBe(1);
    expect(outcomes[17]).toMatchObject({ status: "rejected", reason: expect.objectContaining({ message: "request 17 failed after writing" }) });
    expect(outcomes.filter((o) => o.status === "fulfilled").map((o) => (o as PromiseFulfilledResult<number>).value)).toEqual([...Array(50).keys()].filter((i) => i !== 17));
    const rows = db.$client.query<{ who: string }, []>("SELECT who FROM t").all().map((r) => r.who);
    expect(rows).toHaveLength(98);
    expect(rows.some((w) => w.startsWith("r17"))).toBe(false);
    expect(db.$client.query("SELECT who FROM marks").all()).toEqual([{ who: "r17" }]);
    db.$client.close();
  });

  test("a background write shares the commit of a waiting group; with none waiting it commits alone", async () => {
    const path = join(tempDir(), "g.db");
    const db = openDb(path);
    db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)");
    const other = new Database(path);
    const g = groupCommit(db);
    const seen = () => other.query<{ who: string }, []>("SELECT who FROM t ORDER BY id").all().map((r) => r.who);
    // Idle: a transaction of its own.
    const c0 = ownCommits(db);
    await sharedWriteTx(db, async (tx) => void tx.$client.run("INSERT INTO t (who) VALUES ('alone')"));
    expect([g.groups, ownCommits(db) - c0, g.busy]).toEqual([0, 1, false]);
    // A request waits for the next group: the background write joins it (one group, one commit).
    const request = g.run({ work: () => db.$client.run("INSERT INTO t (who) VALUES ('request')") });
    expect(g.busy).toBe(true);
    const background = sharedWriteTx(db, async (tx) => {
      tx.$client.run("INSERT INTO t (who) VALUES ('background')");
      return "written";
    });
    expect(await background).toBe("written");
    await request;
    expect([g.groups, g.jobs, ownCommits(db) - c0]).toEqual([1, 2, 2]);
    expect(seen()).toEqual(["alone", "request", "background"]);
    // Its failure rolls back its own writes only, and reaches its caller.
    const r2 = g.run({ work: () => db.$client.run("INSERT INTO t (who) VALUES ('request 2')") });
    const failing = sharedWriteTx(db, async (tx) => {
      tx.$client.run("INSERT INTO t (who) VALUES ('lost')");
      throw new Error("scan failed");
    });
    await expect(failing).rejects.toThrow("scan failed");
    await r2;
    expect(g.groups).toBe(2);
    expect(seen()).toEqual(["alone", "request", "background", "request 2"]);
    other.close();
    db.$client.close();
  });

  test("answers come only after the commit: another connection sees every acknowledged write", async () => {
    const path = join(tempDir(), "g.db");
    const db = openDb(path);
    db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)");
    const other = new Database(path);
    const g = groupCommit(db);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        g.run({ work: () => db.$client.run("INSERT INTO t (who) VALUES (?)", [`r${i}`]) }).then(() => {
          expect(other.query<{ n: number }, [string]>("SELECT count(*) AS n FROM t WHERE who = ?").get(`r${i}`)!.n).toBe(1);
        }),
      ),
    );
    other.close();
    db.$client.close();
  });
});

test("50 concurrent signed creates through the gateway: the one refused (40105) leaves only its nonce", async () => {
  const gw = await startTestGateway({ jobs: false, config: { payin: { shared_pool_size: 1 } } });
  try {
    const before = groupCommit(gw.ctx.db).groups;
    // Order 0 and order 25 ask for the same amount on a one-address pool: exactly one of them is refused.
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `g-${i}`, amount: i === 25 ? "1" : `${i + 1}`, notifyUrl: "https://shop.example/cb" }),
      ),
    );
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(ApiError);
    expect(((refused[0] as PromiseRejectedResult).reason as ApiError).code).toBe(40105);
    const c = gw.ctx.db.$client;
    expect(c.query<{ n: number }, []>("SELECT count(*) AS n FROM payin_orders").get()!.n).toBe(49);
    // Every created order has its waiting_payment callback in the outbox (same transaction).
    expect(c.query<{ n: number }, []>("SELECT count(*) AS n FROM callbacks c JOIN payin_orders o ON o.order_no = c.order_no").get()!.n).toBe(49);
    // 50 nonces: the refused request cannot be replayed either.
    expect(c.query<{ n: number }, []>("SELECT count(*) AS n FROM nonces").get()!.n).toBe(50);
    // Concurrent requests shared commits.
    expect(groupCommit(gw.ctx.db).groups - before).toBeLessThan(50);
  } finally {
    await gw.stop();
  }
});

test("SIGKILL inside a group (before its COMMIT): every acknowledged order survives with its callback", async () => {
  const s = await tempSetup(`[log]\nlevel = "warn"\n[auth]\nrate_limit_per_minute = 0\n[payin]\nshared_pool_size = 50\n[chains.TRON]\nblock_time = "0s"`);
  dirs.push(s.dir);
  const made = runCli(["merchant", "create", "--name", "crash", "--json", "--config", s.configPath], s.env);
  expect(made.code).toBe(0);
  const { merchantUid, apiKey } = JSON.parse(made.stdout);
  // Killed at the 6th group, after its requests ran, before COMMIT.
  const gw = await startGatewayProcess(s, { extraEnv: { STABLEGATE_CRASH_AT: "group-commit:6" } });
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  const acknowledged: string[] = [];
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < 400) {
        const i = next++;
        try {
          const o = await client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `k-${i}`, amount: `${1 + (i % 300)}.${i}`, notifyUrl: "https://shop.example/cb" });
          acknowledged.push(o.orderNo);
        } catch {
          failed++;
        }
      }
    }),
  );
  expect(await gw.proc.exited).not.toBe(0);
  expect(gw.proc.signalCode).toBe("SIGKILL");
  expect(acknowledged.length).toBeGreaterThan(0);
  expect(failed).toBeGreaterThan(0);

  const db = new Database(s.dbPath);
  const stored = new Set(db.query<{ order_no: string }, []>("SELECT order_no FROM payin_orders").all().map((r) => r.order_no));
  for (const no of acknowledged) expect(stored.has(no)).toBe(true);
  // No order without its callback: the state change and its outbox row committed together.
  expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM payin_orders o WHERE NOT EXISTS (SELECT 1 FROM callbacks c WHERE c.order_no = o.order_no)").get()!.n).toBe(0);
  db.close();
}, 60_000);

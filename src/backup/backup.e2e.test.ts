// backup and backup --verify on a real database: what a backup holds, and a clear reason for
// every file that is not one (table-driven), checked in-process and through the CLI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, openSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { runCli } from "../testing/process";
import { BadBackup, inspectBackup } from "./inspect";
import { writeBackup } from "./write";
import { openDb } from "../db/client";
import { migrate } from "../db/migrate";

let gw: TestGateway;
let good: string;
let orderNo: string;

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
  const o = await gw.client.request<{ orderNo: string }>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "BK-1", amount: "12.5", notifyUrl: "https://shop.example/cb" } });
  orderNo = o.orderNo;
  good = join(gw.dir, "good.db");
  await writeBackup(gw.ctx.config.database.path, good);
});
afterAll(async () => {
  await gw?.stop();
});

describe("backup", () => {
  test("a backup is a checked 0600 copy that says what it holds, and nothing else is left in its folder", async () => {
    expect((statSync(good).mode & 0o777).toString(8)).toBe("600");
    const s = await inspectBackup(good);
    expect(s.rows).toMatchObject({ merchants: 1, payin_orders: 1, payout_orders: 0 });
    expect(s.newestPayin?.orderNo).toBe(orderNo);
    expect(s.newestPayout).toBeNull();
    expect(readdirSync(gw.dir).filter((f) => f.includes("partial"))).toEqual([]);
    await expect(writeBackup(gw.ctx.config.database.path, good)).rejects.toThrow("already exists");
  });

  /** Each bad file, made from the good one, and the reason it is refused. */
  const cases: [string, (path: string) => void, RegExp][] = [
    ["an empty file (what a killed backup used to leave)", (p) => writeFileSync(p, ""), /empty file/],
    ["a text file", (p) => writeFileSync(p, "just some text, long enough to have a header-sized prefix ".repeat(4)), /not an SQLite database/],
    ["a truncated copy", (p) => (copyFileSync(good, p), truncateSync(p, Math.floor(statSync(good).size / 2))), /truncated: the file has \d+ bytes, its header says \d+/],
    [
      "a copy with a damaged page",
      (p) => {
        copyFileSync(good, p);
        const fd = openSync(p, "r+");
        // Scribble over every page but the first (the header and schema stay readable).
        const size = statSync(p).size;
        for (let off = 4096 * 2 + 100; off < size; off += 4096) writeSync(fd, Buffer.alloc(64, 0xa5), 0, 64, off);
        closeSync(fd);
      },
      /corrupt/,
    ],
    [
      "another application's SQLite database",
      (p) => {
        const db = new Database(p, { create: true });
        db.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)");
        db.close();
      },
      /not a stablegate database/,
    ],
    [
      "an empty SQLite database",
      (p) => {
        const db = new Database(p, { create: true });
        db.run("PRAGMA user_version = 1");
        db.close();
      },
      /not a stablegate database/,
    ],
    [
      "a backup made by a newer stablegate",
      (p) => {
        copyFileSync(good, p);
        const db = new Database(p);
        db.run("INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ('9999_future', 'x', 1)");
        db.close();
      },
      /newer than this stablegate/,
    ],
    [
      "a stablegate database with a table missing",
      (p) => {
        copyFileSync(good, p);
        const db = new Database(p);
        db.run("PRAGMA foreign_keys = OFF");
        db.run("DROP TABLE callback_attempts");
        db.close();
      },
      /table callback_attempts is missing/,
    ],
  ];

  test("a cp of the live database file (its commits still in the -wal file) is refused, and the reason names the copy", async () => {
    // A live database whose commits have not been checkpointed yet: the gateway's own file may
    // have been checkpointed by the time the test copies it, so make one that certainly is not.
    const live = join(gw.dir, "live.db");
    const db = openDb(live);
    db.$client.run("PRAGMA wal_autocheckpoint = 0");
    await migrate(db);
    const raw = join(gw.dir, "raw-cp.db");
    copyFileSync(live, raw);
    db.$client.close();
    await expect(inspectBackup(raw)).rejects.toThrow(/WAL mode: a copy of a live database file/);
  });

  test.each(cases)("--verify refuses %s with the reason", async (_, make, reason) => {
    const p = join(gw.dir, `bad-${Math.random().toString(36).slice(2)}.db`);
    make(p);
    let err: unknown;
    try {
      await inspectBackup(p);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BadBackup);
    expect((err as Error).message).toMatch(reason);
    // Nothing written beside it (opened immutable).
    expect(existsSync(`${p}-wal`) || existsSync(`${p}-shm`) || existsSync(`${p}-journal`)).toBe(false);
  });

  test("the CLI: backup prints what it holds; --verify exits 0 on a backup and 1 with the reason otherwise", () => {
    const env = { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: "unused" };
    const cfg = join(gw.dir, "cli.toml");
    writeFileSync(cfg, `[database]\npath = "${gw.ctx.config.database.path}"\n`);
    const out = join(gw.dir, "cli-backup.db");
    const b = runCli(["backup", "--out", out, "--config", cfg], env);
    expect(b.code).toBe(0);
    expect(b.stdout).toContain(`backup written to ${out}`);
    expect(b.stdout).toMatch(/payin_orders=1/);
    expect(b.stdout).toContain(`newest pay-in: ${orderNo} at 20`);
    const ok = runCli(["backup", "--verify", out, "--config", cfg], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("integrity ok");
    const trunc = join(gw.dir, "cli-trunc.db");
    copyFileSync(out, trunc);
    truncateSync(trunc, 8192);
    const bad = runCli(["backup", "--verify", trunc, "--config", cfg], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${trunc}: not a usable backup: truncated`);
  });
});

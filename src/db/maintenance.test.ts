// The maintenance worker (src/db/maintenance.ts): checkpoints from its own connection while the
// gateway's connection writes, statistics gathered there and written here.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "./client";
import { migrate } from "./migrate";
import { BACKSTOP_PAGES, DbMaintenance } from "./maintenance";
import { createLogger } from "../lib/logger";

describe("database maintenance worker", () => {
  test("its checkpoints copy the gateway's commits into the file; statistics land in sqlite_stat1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stablegate-maint-"));
    const path = join(dir, "stablegate.db");
    const db = openDb(path);
    await migrate(db);
    const logs: string[] = [];
    const m = new DbMaintenance(db, path, createLogger({ level: "debug", sink: (l) => logs.push(l) }), 60_000);
    try {
      expect(db.$client.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(BACKSTOP_PAGES);
      db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
      db.$client.run("CREATE INDEX t_v ON t (v)");
      db.$client.transaction(() => {
        for (let i = 0; i < 3000; i++) db.$client.run("INSERT INTO t (v) VALUES (?)", [`v${i % 300}`]);
      }).immediate();
      const size = statSync(path).size;
      const cp = await m.checkpoint();
      expect(cp.busy).toBe(0);
      expect(cp.checkpointed).toBe(cp.log);
      expect(cp.log).toBeGreaterThan(0);
      expect(statSync(path).size).toBeGreaterThan(size);
      const tables = await m.refreshStats();
      expect(tables).toContain("t");
      expect(db.$client.query("SELECT stat FROM sqlite_stat1 WHERE idx = 't_v'").get()).toEqual({ stat: "3000 10" });
      expect(await m.refreshStats()).toEqual([]);
    } finally {
      await m.stop();
      expect(db.$client.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(1000);
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(logs.filter((l) => l.includes("failed"))).toEqual([]);
  });
});

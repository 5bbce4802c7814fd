// The maintenance worker (src/db/maintenance.ts): checkpoints from its own connection while the
// gateway's connection writes, statistics gathered there and written here.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, writeTx } from "./client";
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

describe("the WAL's rewind (issue 37)", () => {
  // A steady writer (400 transactions of 20 rows, one after another): the worker's PASSIVE pass never catches the last frame, so without the rewind
  // the WAL only grows (to the backstop, where the gateway's COMMIT would checkpoint on the loop).
  async function walFramesUnderSteadyWrites(rewindFrames: number) {
    const dir = mkdtempSync(join(tmpdir(), "stablegate-maint-"));
    const path = join(dir, "stablegate.db");
    const db = openDb(path);
    await writeTx(db, () => db.$client.run("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"));
    const m = new DbMaintenance(db, path, createLogger({ level: "error", sink: () => {} }), 10, rewindFrames);
    try {
      let rows = 0;
      for (let i = 0; i < 400; i++) {
        await writeTx(db, () => {
          for (let j = 0; j < 20; j++) db.$client.run("INSERT INTO t (v) VALUES (?)", [`v${rows++}`.padEnd(600, "x")]);
        });
        await new Promise((r) => setImmediate(r));
      }
      // The WAL file keeps the size of its longest run of frames (a rewind writes it over from the start).
      const frames = Math.round((statSync(`${path}-wal`).size - 32) / (4096 + 24));
      return { frames, rewinds: m.rewinds, rows };
    } finally {
      await m.stop();
      db.$client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("past the mark the worker has the WAL rewound under the gateway's write mutex; without it the WAL keeps growing", async () => {
    const rewound = await walFramesUnderSteadyWrites(300);
    expect(rewound.rewinds).toBeGreaterThan(0);
    const grown = await walFramesUnderSteadyWrites(0);
    expect(grown.rewinds).toBe(0);
    // 8,000 rows of 600 bytes: ~2,500 frames when nothing rewinds the WAL, a fraction with the rewind.
    expect(grown.frames).toBeGreaterThan(3 * 300);
    expect(rewound.frames).toBeLessThan(grown.frames / 2);
  }, 20_000);
});

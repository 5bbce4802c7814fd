// busy_timeout is the first pragma of every SQLite connection the product opens (issue 37
// "Start-up waits"): the main connection and the CLI's (db/client.ts PRAGMAS, whose first entry
// src/db/start-up-waits.e2e.test.ts checks), the maintenance worker, the backup worker, the
// instance lock's database, restore's helpers. Read from the sources, so a new `new Database(`
// that forgets it (and would die on "database is locked" after a kill -9) fails here.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const SRC = join(import.meta.dir, "..");

/** Opens that need no wait, with why. */
const EXEMPT: Record<string, string> = {
  "restore/restore.ts": "the staged copy of a backup, which only this process has open",
};

interface Open {
  at: string;
  /** The first statement the connection runs after it is opened. */
  first: string;
}

function opens(): Open[] {
  const files = (readdirSync(SRC, { recursive: true }) as string[])
    .map((f) => f.split("\\").join("/"))
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !/^(testing|vendor|sdk)\//.test(f) && !(f in EXEMPT));
  return files.flatMap((rel) => {
    const lines = readFileSync(join(SRC, rel), "utf8").split("\n");
    return lines.flatMap((line, i) => {
      // An immutable open takes no locks at all.
      if (!line.includes("new Database(") || /immutable/.test(line)) return [];
      const next = lines.slice(i, i + 8).find((l, j) => (j === 0 ? l.slice(l.indexOf("new Database(")) : l).match(/\.(run|query|exec|prepare)\(/) && !l.trim().startsWith("//"));
      return [{ at: `${rel}:${i + 1}`, first: next?.trim() ?? "(nothing within 8 lines)" }];
    });
  });
}

test("every connection's first statement sets busy_timeout", () => {
  const found = opens();
  expect(found.length).toBeGreaterThanOrEqual(8);
  const without = found.filter((o) => !/busy_timeout|of PRAGMAS\)/.test(o.first));
  expect(without).toEqual([]);
});

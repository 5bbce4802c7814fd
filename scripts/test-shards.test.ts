// The run's parts (scripts/run-shards.sh): every file once, browser files in the heads, the
// PostgreSQL files and the lightest SQLite ones queued heaviest first, the heads even.
import { expect, test } from "bun:test";
import { parts, PG, QUEUE_PART_SECONDS, QUEUE_SHARE } from "./test-shards";

const W: Record<string, number> = {
  "src/a.e2e.test.ts": 120,
  "src/b.e2e.test.ts": 90,
  "src/c.e2e.test.ts": 60,
  "src/d.browser.test.ts": 50,
  "src/e.browser.test.ts": 40,
  "src/f.e2e.test.ts": 30,
  "src/g.test.ts": 8,
  "src/h.test.ts": 5,
  "src/i.test.ts": 3,
  "src/j.test.ts": 1,
  [`${PG}src/a.e2e.test.ts`]: 50,
  [`${PG}src/g.test.ts`]: 12,
  [`${PG}src/h.test.ts`]: 7,
};
const files = Object.keys(W);
const w = new Map(Object.entries(W));

test("every file runs once, on its engine; browser files only in heads; the queue heaviest first", () => {
  const ps = parts(files, w, 2);
  const run = ps.flatMap((p) => p.files);
  expect([...run].sort()).toEqual([...files].sort());
  for (const p of ps) for (const f of p.files) expect(f.startsWith(PG)).toBe(p.engine === "pg");
  const heads = ps.filter((p) => p.slot > 0);
  const queue = ps.filter((p) => p.slot === 0);
  expect(heads.map((p) => p.slot)).toEqual([1, 2]);
  expect(queue.flatMap((p) => p.files).filter((f) => f.includes(".browser."))).toEqual([]);
  expect(queue.map((p) => p.seconds)).toEqual([...queue.map((p) => p.seconds)].sort((a, b) => b - a));
  // A queued part is one file or at most QUEUE_PART_SECONDS.
  for (const p of queue) expect(p.files.length === 1 || p.seconds <= QUEUE_PART_SECONDS).toBe(true);
});

test("the queue holds the PostgreSQL files and light SQLite files, up to QUEUE_SHARE of the time", () => {
  const ps = parts(files, w, 2);
  const total = files.reduce((t, f) => t + w.get(f)!, 0);
  const queued = ps.filter((p) => p.slot === 0).reduce((t, p) => t + p.seconds, 0);
  expect(queued).toBeLessThanOrEqual(QUEUE_SHARE * total);
  expect(ps.filter((p) => p.slot === 0 && p.engine === "pg").flatMap((p) => p.files).sort()).toEqual(files.filter((f) => f.startsWith(PG)).sort());
  // The lightest SQLite files are queued, the heavy ones are not.
  const queuedSqlite = ps.filter((p) => p.slot === 0 && p.engine === "sqlite").flatMap((p) => p.files);
  expect(queuedSqlite).toContain("src/j.test.ts");
  expect(queuedSqlite).not.toContain("src/a.e2e.test.ts");
});

test("one slot: one head and the queue; more slots than heavy files leave no empty head", () => {
  expect(parts(files, w, 1).filter((p) => p.slot > 0).length).toBe(1);
  const many = parts(["src/a.e2e.test.ts", "src/j.test.ts"], w, 4);
  for (const p of many) expect(p.files.length).toBeGreaterThan(0);
});

// The PostgreSQL side of every ported store (docs/postgresql.md "How to add a store's pg side"):
// each exported async function of `<store>.ts` has its twin in `<store>.pg.ts` and dispatches to it,
// except the ones named in PENDING (refused on PostgreSQL in one line, db/engine.ts NotOnPostgres).
// A function added to a ported store without its PostgreSQL side fails here.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const SRC = join(import.meta.dir, "..");

/** Functions of ported stores not on PostgreSQL yet, and why. */
const PENDING: Record<string, string[]> = {
  // The watcher's matching and the sweep are the leader's (src/cluster/): ported with the watchers.
  "payin/orders-store.ts": [
    "matchCandidateIds",
    "expiredBefore",
    "coveringOrderIds",
    "showConfirmations",
    "sweepTargets",
  ],
  // Retention (the delivered rows' pruning job is not scheduled on PostgreSQL yet).
  "callbacks/store.ts": ["pruneDelivered"],
  // Only the liveness ping (/healthz) is ported; the alert probes, the storage monitor and the
  // SQLite connection settings come with the leader's jobs.
  "ops/store.ts": [
    "sweepFoundSince",
    "failedCallbacksSince",
    "failedPayoutsSince",
    "stuckPayouts",
    "stuckTopups",
    "openUnmatchedCount",
    "queuedCallbacks",
    "balanceMismatchCount",
    "unrecordedByChain",
    "stopWrites",
    "busyTimeout",
    "setBusyTimeout",
    "probeWrite",
    "inTransaction",
    "detectionSamplesSince",
  ],
};

/** The stores with a PostgreSQL side (one per line: engineers add theirs). */
const PORTED = [
  "audit/store.ts",
  "auth/store.ts",
  "callbacks/store.ts",
  "chains/common/store.ts",
  "chains/sandbox/store.ts",
  "chains/sol/store.ts",
  "chains/tron/store.ts",
  "compat/store.ts",
  "invoices/store.ts",
  "merchants/store.ts",
  "once/store.ts",
  "ops/store.ts",
  "orders/store.ts",
  "payin/orders-store.ts",
  "rates/store.ts",
  "secrets/store.ts",
  "wallet/store.ts",
];

function storeFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...storeFiles(p, rel + name + "/"));
    else if (/(^|-)store\.ts$/.test(name) && readdirSync(dir).includes(name.replace(/\.ts$/, ".pg.ts"))) out.push(rel + name);
  }
  return out;
}

const exported = (text: string) => [...text.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]!);

describe("every ported store has its PostgreSQL side", () => {
  const ported = storeFiles(SRC);
  test("the ported stores", () => {
    expect(ported.sort()).toEqual(PORTED.sort());
  });
  for (const rel of ported) {
    test(`${rel}: each exported function is on PostgreSQL (or PENDING) and dispatches there`, () => {
      const sqlite = readFileSync(join(SRC, rel), "utf8");
      const pg = new Set(exported(readFileSync(join(SRC, rel.replace(/\.ts$/, ".pg.ts")), "utf8")));
      const pending = PENDING[rel] ?? [];
      const missing = exported(sqlite).filter((f) => !pg.has(f) && !pending.includes(f));
      expect(missing).toEqual([]);
      const undispatched = [...pg].filter((f) => !new RegExp(`return (await )?pg\\.${f}\\(`).test(sqlite));
      expect(undispatched).toEqual([]);
      for (const f of pending) expect(pg.has(f)).toBe(false);
    });
  }
});

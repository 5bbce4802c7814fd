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
  // The SQLite builder the plan checks read (testing/engine-queries.ts); PostgreSQL's statement is inside fundedAddressRows.
  "payout/balances-store.ts": ["fundedAddressesQuery"],
  // The backup file's checks: a SQLite connection to a private copy (a PostgreSQL restore checks its dump in restore/pg-restore.ts).
  "restore/store.ts": ["setGenerationAt", "backupIntegrity", "hasStablegateSchema", "sealedInBackup", "backupSummary", "selfContained"],
  // SQLite's storage monitor (ops/storage.ts watches the database file; not started on
  // PostgreSQL, where an outage is a connection error and /readyz checks the server is writable).
  // SQLite's handoff of a create's callback to the worker (callbacks/handoff.ts); PostgreSQL has no taker (store.pg.ts callbackHandoff).
  "callbacks/store.ts": ["insertClaimedCallback"],
  "ops/store.ts": [
    "stopWrites",
    "busyTimeout",
    "setBusyTimeout",
    "probeWrite",
    "inTransaction",
  ],
};

/** The stores with a PostgreSQL side (one per line: engineers add theirs). */
const PORTED = [
  "audit/store.ts",
  "auth/rate-store.ts",
  "auth/store.ts",
  "backoffice/store.ts",
  "backup/store.ts",
  "callbacks/store.ts",
  "chains/common/store.ts",
  "chains/sandbox/store.ts",
  "chains/sol/store.ts",
  "chains/tron/store.ts",
  "compat/store.ts",
  "invoices/store.ts",
  "merchants/store.ts",
  "once/store.ts",
  "ops/alerts/store.ts",
  "ops/store.ts",
  "orders/store.ts",
  "payin/bindings-store.ts",
  "payin/compat-side-store.ts",
  "payin/deny-list-store.ts",
  "payin/deposit-ledger-store.ts",
  "payin/detection-store.ts",
  "payin/orders-store.ts",
  "payin/unmatched-store.ts",
  "payin/wallet-stats-store.ts",
  "payout/balances-store.ts",
  "payout/store.ts",
  "rates/store.ts",
  "restore/store.ts",
  "secrets/store.ts",
  "treasury/store.ts",
  "wallet/store.ts",
  "watcher/store.ts",
  "watcher/transfers-store.ts",
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

/**
 * An exported object of store functions (`export const payoutStore: PayoutStore = { signedUnsent, finished: finishedPayouts }`)
 * and an exported destructuring (`export const { byId: batchById } = …`) hide functions from `exported`: an object's
 * members must name the store's exported functions (each checked above), never inline bodies, and a destructured
 * export is refused. What is wrong, per member.
 */
function hiddenMembers(text: string): string[] {
  const fns = new Set(exported(text));
  const out: string[] = [];
  for (const m of text.matchAll(/^export const \{([^}]*)\}\s*=/gm)) out.push(`export const { ${m[1]!.trim()} }: export each as a function`);
  for (const m of text.matchAll(/^export const (\w+)(?::[^=]+)? = \{\n?([\s\S]*?)\n?\};/gm)) {
    const body = m[2]!;
    if (!/\b(async|=>|function)\b|=>/.test(body) && !body.split(",").some((x) => x.trim() && fns.has((x.split(":").pop() ?? "").trim()))) continue;
    for (const part of body.split(/,(?![^(]*\))/)) {
      const p = part.trim();
      if (!p) continue;
      const [key, value = key] = p.split(":").map((x) => x.trim());
      if (!/^\w+$/.test(value!) || !fns.has(value!)) out.push(`${m[1]}.${key}: not one of the store's exported functions`);
    }
  }
  return out;
}

describe("an exported object's members are checked as its functions", () => {
  test.each([
    ["export const s: S = { a, b: bFn };\nexport async function a() {}\nexport async function bFn() {}\n", []],
    ["export const s: S = {\n  a: async (db) => db.select(),\n};\n", ["s.a: not one of the store's exported functions"]],
    ["export const { byId: batchById } = batches;\n", ["export const { byId: batchById }: export each as a function"]],
    ["export const LIMITS = { max: 5 };\n", []],
  ] as [string, string[]][])("%#", (text, want) => {
    expect(hiddenMembers(text)).toEqual(want);
  });
});

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
      expect(hiddenMembers(sqlite)).toEqual([]);
    });
  }
});

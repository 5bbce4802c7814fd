// A SQLite gateway loads nothing of the PostgreSQL side (DESIGN 11 and 22; docs/performance.md "A
// SQLite gateway without the PostgreSQL side"): a store reaches its `*.pg.ts` side, db/client.ts the
// PostgreSQL transactions and app/server.ts the cluster's parts through db/engine.ts `pgSide`, on
// their first use on PostgreSQL. A child bun loads what `stablegate serve` imports (cli/main.ts
// `serve`) and lists the modules it holds (require.cache). drizzle's core itself loads some of
// pg-core's column files: what drizzle's SQLite side loads alone is the baseline.
import { describe, expect, test } from "bun:test";
import { ROOT } from "../testing/process";

/** The PostgreSQL side: modules a SQLite gateway must not load. */
export const PG_SIDE: readonly RegExp[] = [
  /\.pg\.ts$/,
  /\/src\/db\/(schema-pg|tx-pg|tx-pg-pipe|client-pg|migrate-pg|pg-rows)\.ts$/,
  /\/src\/cluster\//,
  /\/node_modules\/drizzle-orm\/(pg-core|bun-sql)\//,
  /\/migrations\/pg\//,
];

/** The modules of `loaded` on the PostgreSQL side, `baseline` (drizzle's own) aside, relative to the repository. */
export function pgModules(loaded: readonly string[], baseline: ReadonlySet<string> = new Set()): string[] {
  return loaded
    .filter((m) => !baseline.has(m) && PG_SIDE.some((re) => re.test(m)))
    .map((m) => m.replace(`${ROOT}/`, ""))
    .sort();
}

/** What `serve` imports (src/cli/main.ts), after drizzle's SQLite side. */
const SERVE = ["src/cli/main.ts", "src/cli/demo.ts", "src/cli/demo-data.ts", "src/app/data-folder.ts", "src/db/instance-lock.ts", "src/app/context.ts", "src/app/server.ts", "src/chains/factory.ts", "src/db/client.ts", "src/lib/crash.ts", "src/ops/readiness.ts", "src/lib/unhandled.ts"];

function loadedBy(modules: string[]): { baseline: string[]; loaded: string[] } {
  const code = `
    for (const m of ["drizzle-orm", "drizzle-orm/sqlite-core", "drizzle-orm/bun-sqlite", "bun:sqlite"]) await import(m);
    const baseline = Object.keys(require.cache);
    for (const m of ${JSON.stringify(modules)}) await import(${JSON.stringify(ROOT + "/")} + m);
    process.stdout.write("JSON" + JSON.stringify({ baseline, loaded: Object.keys(require.cache) }));`;
  const p = Bun.spawnSync([process.execPath, "-e", code], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`the child bun failed: ${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString().split("JSON")[1]!) as { baseline: string[]; loaded: string[] };
}

describe("a SQLite gateway without the PostgreSQL side", () => {
  test("serve's module graph loads no *.pg.ts store, schema-pg, tx-pg, client-pg, src/cluster/, drizzle's pg-core or bun-sql", () => {
    const { baseline, loaded } = loadedBy(SERVE);
    expect(loaded.length).toBeGreaterThan(500); // the graph was loaded (server.ts alone is ~750 modules)
    expect(loaded).toContain(`${ROOT}/src/app/server.ts`);
    expect(pgModules(loaded, new Set(baseline))).toEqual([]);
  });

  test("the check bites: the PostgreSQL modules themselves are found", () => {
    const { baseline, loaded } = loadedBy(["src/db/tx-pg.ts", "src/payout/store.pg.ts", "src/cluster/leader.ts"]);
    const found = pgModules(loaded, new Set(baseline));
    for (const m of ["src/db/tx-pg.ts", "src/db/client-pg.ts", "src/db/schema-pg.ts", "src/payout/store.pg.ts", "src/cluster/leader.ts"]) expect(found).toContain(m);
    expect(found.some((m) => m.startsWith("node_modules/drizzle-orm/bun-sql/"))).toBe(true);
    expect(found.some((m) => m.startsWith("node_modules/drizzle-orm/pg-core/"))).toBe(true);
  });
});

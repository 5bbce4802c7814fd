// The restore's storage on PostgreSQL (DESIGN 22): the generation marker in `settings` and its
// second copy outside the backed-up data (the database's comment, with the database's oid),
// reconcile mode's rows, and the restored database at a glance. Raw SQL through Bun's SQL
// client until the PostgreSQL stores land; the rule itself is restore/generation.ts's.
import type { SQL } from "bun";
import type { ReconcileStore } from "./generation";

const GENERATION_KEY = "generation";
/** The database comment that holds the marker: `stablegate generation <oid>:<generation>`. */
const MARKER = /^stablegate generation (\d+):([0-9a-f]+)$/;

export const pgReconcileStore = (tx: SQL): ReconcileStore => ({
  setGeneration: async (g, now) => await setPgGeneration(tx, g, now),
  async clearReconcile() {
    await tx`DELETE FROM reconcile_chains`;
    await tx`DELETE FROM reconcile_addresses`;
  },
  async scanCursors() {
    const rows = (await tx`SELECT chain, block_number::text AS b FROM chain_cursors`) as { chain: string; b: string | null }[];
    return new Map(rows.map((r) => [r.chain, r.b === null ? null : Number(r.b)]));
  },
  async addressChains() {
    return ((await tx`SELECT DISTINCT chain FROM addresses`) as { chain: string }[]).map((r) => r.chain);
  },
  async nextIndexOf(chain) {
    const [r] = (await tx`SELECT greatest(1,
        coalesce((SELECT next_index FROM derivation_counters WHERE chain = ${chain}), 0),
        coalesce((SELECT next_index FROM derivation_floors WHERE chain = ${chain}), 0))::text AS n`) as { n: string }[];
    return Number(r!.n);
  },
  async insertReconcileChain(row) {
    await tx`INSERT INTO reconcile_chains (chain, since_block, gap_from, gap_to, generation, started_at)
      VALUES (${row.chain}, ${row.sinceBlock}, ${row.gapFrom}, ${row.gapTo}, ${row.generation}, ${row.startedAt})`;
  },
  async setDerivationFloor(chain, next, now) {
    await tx`INSERT INTO derivation_floors (chain, next_index, updated_at) VALUES (${chain}, ${next}, ${now})
      ON CONFLICT (chain) DO UPDATE SET next_index = excluded.next_index, updated_at = excluded.updated_at`;
  },
});

export async function pgGeneration(sql: SQL): Promise<string | null> {
  const [r] = (await sql`SELECT value FROM settings WHERE key = ${GENERATION_KEY}`) as { value: string }[];
  return r?.value ?? null;
}

export async function setPgGeneration(tx: SQL, generation: string, now: number): Promise<void> {
  await tx`INSERT INTO settings (key, value, updated_at) VALUES (${GENERATION_KEY}, ${generation}, ${now})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;
}

/** The marker outside the data: null when the comment is not one, or names another database (oid). */
export async function pgFolderMarker(sql: SQL): Promise<string | null> {
  const [r] = (await sql`SELECT d.oid::text AS oid, shobj_description(d.oid, 'pg_database') AS c FROM pg_database d WHERE d.datname = current_database()`) as { oid: string; c: string | null }[];
  const m = MARKER.exec(r?.c ?? "");
  return m && m[1] === r!.oid ? m[2]! : null;
}

/** Writes the marker outside the data (COMMENT ON DATABASE: the database's owner may). */
export async function setPgFolderMarker(tx: SQL, generation: string): Promise<void> {
  if (!/^[0-9a-f]+$/.test(generation)) throw new Error("a generation is hex");
  const [r] = (await tx`SELECT oid::text AS oid, datname FROM pg_database WHERE datname = current_database()`) as { oid: string; datname: string }[];
  await tx.unsafe(`COMMENT ON DATABASE "${r!.datname.replace(/"/g, '""')}" IS 'stablegate generation ${r!.oid}:${generation}'`);
}

/** Base tables of the current schema and those holding rows (schema_migrations aside). */
export async function pgTableState(sql: SQL): Promise<{ tables: string[]; withRows: string[] }> {
  const tables = ((await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`) as { table_name: string }[]).map((r) => r.table_name);
  const withRows: string[] = [];
  for (const t of tables) {
    if (t === "schema_migrations") continue;
    const [r] = (await sql.unsafe(`SELECT EXISTS (SELECT 1 FROM "${t.replace(/"/g, '""')}") AS any`)) as { any: boolean }[];
    if (r?.any) withRows.push(t);
  }
  return { tables, withRows };
}

/** The restored database at a glance: order counts and the newest order's time. */
export async function pgRestoredSummary(sql: SQL): Promise<{ payins: number; payouts: number; newestOrderAt: number | null }> {
  const [r] = (await sql`SELECT (SELECT count(*) FROM payin_orders)::text AS payins, (SELECT count(*) FROM payout_orders)::text AS payouts,
      greatest((SELECT max(created_at) FROM payin_orders), (SELECT max(created_at) FROM payout_orders))::text AS newest`) as { payins: string; payouts: string; newest: string | null }[];
  return { payins: Number(r!.payins), payouts: Number(r!.payouts), newestOrderAt: r!.newest === null ? null : Number(r!.newest) };
}

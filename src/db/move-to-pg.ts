// `stablegate migrate-to-postgres --from SQLITE_PATH --to URL` (DESIGN 22 "Moving"), with every
// gateway stopped. The SQLite file is opened read-only (refused while a gateway holds its instance
// lock) and read in one snapshot; the PostgreSQL database must be empty: it is migrated to this
// build's schema first (migrate-pg.ts), then every table is copied in foreign-key order, in
// multi-row INSERT batches, inside ONE transaction with the tables' own triggers off (the copied
// rows already hold what the triggers would derive: balances, daily totals, cache versions).
// Identity sequences are set past the copied ids (and past SQLite's AUTOINCREMENT high-water
// mark, so no id a deleted row had is handed out again). Before the commit every table's row count
// and the exact sum of every amount column are compared between the two engines (decimal
// strings, never floats); any difference or error rolls the transaction back: no row is left in
// PostgreSQL (its schema, migrated, stays). Secrets (the sealed seed, encrypted columns) are
// copied as stored: the PostgreSQL gateways use the same master key.
import { Database } from "bun:sqlite";
import type { SQL } from "bun";
import Big from "big.js";
import { existsSync, statSync } from "node:fs";
import { failPoint } from "../lib/crash";
import { displayPgUrl } from "./client-pg";
import { AnotherInstance, servingPid } from "./instance-lock";
import { appliedMigrations, MigrationError } from "./migrate";
import { migratePg } from "./migrate-pg";
import { migrations as sqliteMigrations } from "../../migrations/index";

/** The move cannot start (or was stopped); nothing was written to PostgreSQL. */
export class MoveRefused extends Error {
  override name = "MoveRefused";
}

/** The copy finished but a table's count or an amount sum differs: rolled back. */
export class MoveMismatch extends Error {
  override name = "MoveMismatch";
  constructor(readonly checks: TableCheck[]) {
    super(`the copy does not match the SQLite database (${checks.filter((c) => !c.ok).map((c) => c.table).join(", ")}); rolled back, nothing was written`);
  }
}

export interface SumCheck {
  column: string;
  /** Exact decimal strings (normalised: no trailing zeros). */
  source: string;
  target: string;
}

export interface TableCheck {
  table: string;
  sourceRows: number;
  targetRows: number;
  sums: SumCheck[];
  ok: boolean;
}

export interface MoveResult {
  tables: TableCheck[];
  rows: number;
  /** The whole move, and the copy transaction alone (from BEGIN to COMMIT). */
  ms: number;
  copyMs: number;
  migrationsApplied: number;
}

/** Bookkeeping each engine keeps for itself: never copied. */
const NOT_COPIED = new Set(["schema_migrations", "__drizzle_migrations", "sqlite_sequence", "sqlite_stat1", "sqlite_stat4"]);

/**
 * Tables the PostgreSQL migrations give a row (0345_baseline.sql: the watch-set counter and the
 * auth cache version). An empty database has those rows only; the copy replaces them with the
 * SQLite database's. move-to-pg.e2e.test.ts checks this list against a freshly migrated database.
 */
export const MIGRATION_SEEDED = ["address_watch_seq", "cache_versions"] as const;

/** Text or numeric columns that hold an amount (base units or a decimal): their sums are compared. */
const AMOUNT_TEXT = /^(?:\w+_)?(?:amount|fee|balance|total|minimum|difference|delta|lamports|burned|saved|bandwidth|energy)$|^payout_(?:limit_per_tx|limit_daily|fee_fixed)$/;
/** Integer columns that are amounts: the balance halves and the daily totals in micro units. */
const AMOUNT_INTEGER = /^(?:hi|lo|micro)$/;

export function isAmountColumn(name: string, pgType: string): boolean {
  if (pgType === "text" || pgType === "numeric") return AMOUNT_TEXT.test(name);
  if (pgType === "bigint" || pgType === "integer" || pgType === "smallint") return AMOUNT_INTEGER.test(name);
  return false;
}

interface PgColumn {
  name: string;
  type: string;
  identity: boolean;
}

interface TablePlan {
  table: string;
  columns: PgColumn[];
  amounts: string[];
  /** SQLite's AUTOINCREMENT high-water mark, when the table has one. */
  sqliteSeq: bigint | null;
}

const q = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

/** Rows per INSERT: PostgreSQL takes at most 65535 parameters in one statement. */
const batchRowsFor = (columns: number, wanted: number) => Math.max(1, Math.min(wanted, Math.floor(60_000 / Math.max(1, columns))));

// --- the SQLite side -----------------------------------------------------------------------

/** The SQLite file, read-only, once no gateway serves it and its schema is this build's. */
export function openSource(path: string): Database {
  if (!existsSync(path) || !statSync(path).isFile()) throw new MoveRefused(`${path}: no such SQLite database`);
  const pid = servingPid(path);
  if (pid !== null) throw new MoveRefused(`${new AnotherInstance(path, pid || null).message}: stop every gateway before migrate-to-postgres`);
  let db: Database;
  try {
    db = new Database(path, { readonly: true, safeIntegers: true });
    db.run("PRAGMA busy_timeout = 5000");
  } catch (e) {
    throw new MoveRefused(`${path} cannot be opened as a SQLite database: ${(e as Error).message}`);
  }
  try {
    let applied: string[];
    try {
      applied = appliedMigrations(db);
    } catch (e) {
      if (e instanceof MigrationError) throw new MoveRefused(`${path}: ${e.message}`);
      throw new MoveRefused(`${path} is not a stablegate database: ${(e as Error).message}`);
    }
    if (!applied.length) throw new MoveRefused(`${path} is not a stablegate database (no migration record)`);
    if (applied.length !== sqliteMigrations.length) {
      throw new MoveRefused(`${path} is at migration ${applied.at(-1)}, this build at ${sqliteMigrations.at(-1)!.name}: run \`stablegate migrate\` on it (its SQLite config) first, then move it`);
    }
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function sqliteTables(db: Database): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { name } of db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all()) {
    if (NOT_COPIED.has(name) || name.startsWith("sqlite_")) continue;
    out.set(name, new Set(db.query<{ name: string }, [string]>("SELECT name FROM pragma_table_info(?)").all(name).map((c) => c.name)));
  }
  return out;
}

/** A table's primary key (WITHOUT ROWID tables have no rowid), else its rowid: insertion order for an id key. */
function sqliteOrder(db: Database, table: string): string {
  const pk = db.query<{ name: string; pk: bigint }, [string]>("SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk").all(table);
  return pk.length ? pk.map((c) => q(c.name)).join(", ") : "rowid";
}

function sqliteSequences(db: Database): Map<string, bigint> {
  const has = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").get();
  if (!has) return new Map();
  return new Map(db.query<{ name: string; seq: bigint }, []>("SELECT name, seq FROM sqlite_sequence").all().map((r) => [r.name, BigInt(r.seq)]));
}

// --- the PostgreSQL side -------------------------------------------------------------------

async function pgColumns(sql: SQL): Promise<Map<string, PgColumn[]>> {
  const rows = (await sql`
    SELECT c.table_name, c.column_name, c.data_type, c.is_identity
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`) as { table_name: string; column_name: string; data_type: string; is_identity: string }[];
  const out = new Map<string, PgColumn[]>();
  for (const r of rows) {
    if (NOT_COPIED.has(r.table_name)) continue;
    const list = out.get(r.table_name) ?? [];
    list.push({ name: r.column_name, type: r.data_type, identity: r.is_identity === "YES" });
    out.set(r.table_name, list);
  }
  return out;
}

/** Each table's foreign-key parents (itself excluded). */
async function pgParents(sql: SQL): Promise<Map<string, Set<string>>> {
  const rows = (await sql`
    SELECT cl.relname AS child, pr.relname AS parent
    FROM pg_constraint k
    JOIN pg_class cl ON cl.oid = k.conrelid
    JOIN pg_class pr ON pr.oid = k.confrelid
    WHERE k.contype = 'f' AND cl.relnamespace = current_schema()::regnamespace`) as { child: string; parent: string }[];
  const out = new Map<string, Set<string>>();
  for (const r of rows) if (r.child !== r.parent) out.set(r.child, (out.get(r.child) ?? new Set()).add(r.parent));
  return out;
}

/** Tables in an order where every parent comes before its children (then by name, for a stable order). */
export function dependencyOrder(tables: readonly string[], parents: Map<string, Set<string>>): string[] {
  const out: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (t: string, path: string[]) => {
    if (state.get(t) === "done") return;
    if (state.get(t) === "visiting") throw new MoveRefused(`foreign keys form a cycle (${[...path, t].join(" -> ")}): no copy order`);
    state.set(t, "visiting");
    for (const p of [...(parents.get(t) ?? [])].sort()) if (tables.includes(p)) visit(p, [...path, t]);
    state.set(t, "done");
    out.push(t);
  };
  for (const t of [...tables].sort()) visit(t, []);
  return out;
}

/** Rows in any table of the migrated target beyond what its migrations put there. */
async function rowsPresent(sql: SQL, tables: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const t of tables) {
    if ((MIGRATION_SEEDED as readonly string[]).includes(t)) continue;
    const [r] = (await sql.unsafe(`SELECT EXISTS (SELECT 1 FROM ${q(t)}) AS any`)) as { any: boolean }[];
    if (r?.any) found.push(t);
  }
  return found;
}

async function hasSchemaMigrations(sql: SQL): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`;
  return rows.length > 0;
}

/** Refuses a target holding data, before anything (a migration included) touches it. */
async function requireEmpty(sql: SQL, url: string): Promise<void> {
  if (!(await hasSchemaMigrations(sql))) return; // an empty database, or not stablegate's: migratePg says which
  const busy = await rowsPresent(sql, [...(await pgColumns(sql)).keys()]);
  if (busy.length) {
    throw new MoveRefused(`${displayPgUrl(url)} is not empty (rows in ${busy.slice(0, 5).join(", ")}${busy.length > 5 ? ", …" : ""}): migrate-to-postgres copies into an empty database only; nothing was written`);
  }
}

// --- the plan ------------------------------------------------------------------------------

function plan(source: Database, pg: Map<string, PgColumn[]>, parents: Map<string, Set<string>>): TablePlan[] {
  const lite = sqliteTables(source);
  const problems: string[] = [];
  for (const t of lite.keys()) if (!pg.has(t)) problems.push(`table ${t} has no PostgreSQL counterpart`);
  for (const [t, cols] of pg) {
    const have = lite.get(t);
    if (!have) {
      problems.push(`table ${t} is missing in the SQLite database`);
      continue;
    }
    for (const c of cols) if (!have.has(c.name)) problems.push(`${t}.${c.name} is missing in the SQLite database`);
    for (const c of have) if (!cols.some((p) => p.name === c)) problems.push(`${t}.${c} has no PostgreSQL column`);
  }
  if (problems.length) throw new MoveRefused(`the two schemas differ: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? "; …" : ""}`);
  const seqs = sqliteSequences(source);
  return dependencyOrder([...pg.keys()], parents).map((table) => {
    const columns = pg.get(table)!;
    return { table, columns, amounts: columns.filter((c) => isAmountColumn(c.name, c.type)).map((c) => c.name), sqliteSeq: seqs.get(table) ?? null };
  });
}

// --- values --------------------------------------------------------------------------------

/** A SQLite value (integers as bigint) as the PostgreSQL column's type wants it; exact for every type. */
export function pgValue(v: unknown, type: string, where: string): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case "boolean":
      if (v === 0n || v === 1n) return v === 1n;
      throw new Error(`${where}: ${String(v)} is not a boolean (0 or 1)`);
    case "bigint":
    case "integer":
    case "smallint":
      if (typeof v === "bigint") return v;
      throw new Error(`${where}: ${JSON.stringify(v)} is not an integer`);
    case "bytea":
      if (v instanceof Uint8Array) return Buffer.from(v);
      throw new Error(`${where}: not a blob`);
    case "double precision":
    case "real":
      return typeof v === "bigint" ? Number(v) : v;
    default:
      // text, numeric, json: the text as stored (SQLite's text affinity already made it text).
      if (v instanceof Uint8Array) throw new Error(`${where}: a blob in a ${type} column`);
      return typeof v === "string" ? v : String(v);
  }
}

/** Adds one value of an amount column to its running exact sum. */
function addAmount(sum: Big, v: unknown, where: string): Big {
  if (v === null || v === undefined) return sum;
  try {
    return sum.plus(typeof v === "bigint" ? v.toString() : String(v));
  } catch {
    throw new Error(`${where}: ${JSON.stringify(String(v))} is not a decimal amount`);
  }
}

const norm = (s: string | null) => new Big(s ?? "0").toFixed();

// --- the copy ------------------------------------------------------------------------------

export interface MoveOptions {
  from: string;
  /** An open pool on the target (the caller closes it). */
  sql: SQL;
  url: string;
  /** Rows per INSERT (capped by PostgreSQL's parameter limit). */
  batchRows?: number;
  /** Progress: a table copied. */
  onTable?: (table: string, rows: number) => void;
}

/** Copies one table; returns its source count and exact sums. */
async function copyTable(source: Database, tx: SQL, p: TablePlan, batchRows: number): Promise<{ rows: number; sums: Map<string, Big> }> {
  const names = p.columns.map((c) => c.name);
  const sums = new Map(p.amounts.map((a) => [a, new Big(0)]));
  const size = batchRowsFor(names.length, batchRows);
  let batch: Record<string, unknown>[] = [];
  let rows = 0;
  const flush = async () => {
    if (!batch.length) return;
    await tx`INSERT INTO ${tx(p.table)} ${tx(batch, ...names)}`;
    batch = [];
  };
  // Parents before children within a table too (a self reference points at an older row).
  const stmt = source.query<Record<string, unknown>, []>(`SELECT ${names.map(q).join(", ")} FROM ${q(p.table)} ORDER BY ${sqliteOrder(source, p.table)}`);
  for (const raw of stmt.iterate()) {
    rows++;
    const row: Record<string, unknown> = {};
    for (const c of p.columns) {
      const where = `${p.table}.${c.name} (row ${rows})`;
      row[c.name] = pgValue(raw[c.name], c.type, where);
      const s = sums.get(c.name);
      if (s) sums.set(c.name, addAmount(s, raw[c.name], where));
    }
    batch.push(row);
    if (batch.length >= size) await flush();
  }
  await flush();
  return { rows, sums };
}

/** Identity sequences past the copied ids and SQLite's AUTOINCREMENT mark. */
async function setIdentities(tx: SQL, p: TablePlan): Promise<void> {
  for (const c of p.columns.filter((col) => col.identity)) {
    const [r] = (await tx.unsafe(`SELECT max(${q(c.name)})::text AS m FROM ${q(p.table)}`)) as { m: string | null }[];
    const top = [r?.m ? BigInt(r.m) : 0n, p.sqliteSeq ?? 0n].reduce((a, b) => (a > b ? a : b));
    if (top > 0n) await tx`SELECT setval(pg_get_serial_sequence(${q(p.table)}, ${c.name}), ${top.toString()}::bigint, true)`;
  }
}

/** The target's count and sums of one table, read inside the copy's transaction. */
async function targetTotals(tx: SQL, p: TablePlan): Promise<{ rows: number; sums: Map<string, string> }> {
  const parts = ["count(*)::text AS n", ...p.amounts.map((a, i) => `sum(${q(a)}::numeric)::text AS s${i}`)];
  const [r] = (await tx.unsafe(`SELECT ${parts.join(", ")} FROM ${q(p.table)}`)) as Record<string, string | null>[];
  return { rows: Number(r!.n), sums: new Map(p.amounts.map((a, i) => [a, norm(r![`s${i}`] ?? null)])) };
}

export function compareTable(table: string, source: { rows: number; sums: Map<string, Big> }, target: { rows: number; sums: Map<string, string> }): TableCheck {
  const sums = [...source.sums].map(([column, s]) => ({ column, source: s.toFixed(), target: target.sums.get(column) ?? "(missing)" }));
  const ok = source.rows === target.rows && sums.every((s) => s.source === s.target);
  return { table, sourceRows: source.rows, targetRows: target.rows, sums, ok };
}

/**
 * The whole move: checks, migration of the target, the copy and its check in one transaction.
 * Throws MoveRefused (nothing done), MoveMismatch (rolled back) or the copy's error (rolled back).
 */
export async function moveSqliteToPg(o: MoveOptions): Promise<MoveResult> {
  const started = performance.now();
  const source = openSource(o.from);
  try {
    await requireEmpty(o.sql, o.url);
    let migrationsApplied: number;
    try {
      migrationsApplied = await migratePg(o.sql);
    } catch (e) {
      if (e instanceof MigrationError) throw new MoveRefused(`${displayPgUrl(o.url)}: ${e.message}; nothing was written`);
      throw e;
    }
    const plans = plan(source, await pgColumns(o.sql), await pgParents(o.sql));
    // One read snapshot of the SQLite file for the whole copy (a CLI command beside it changes nothing we read).
    source.run("BEGIN");
    const copyStarted = performance.now();
    try {
      const checks = await o.sql.begin(async (tx) => {
        const busy = await rowsPresent(tx, plans.map((p) => p.table));
        if (busy.length) throw new MoveRefused(`${displayPgUrl(o.url)} is not empty (rows in ${busy.slice(0, 5).join(", ")}): nothing was written`);
        for (const p of plans) await tx.unsafe(`ALTER TABLE ${q(p.table)} DISABLE TRIGGER USER`);
        for (const t of MIGRATION_SEEDED) await tx.unsafe(`DELETE FROM ${q(t)}`);
        const copied: { plan: TablePlan; source: { rows: number; sums: Map<string, Big> } }[] = [];
        for (const p of plans) {
          const s = await copyTable(source, tx, p, o.batchRows ?? 1000);
          copied.push({ plan: p, source: s });
          o.onTable?.(p.table, s.rows);
          failPoint(`migrate-to-postgres.copied:${p.table}`);
        }
        for (const p of plans) await setIdentities(tx, p);
        for (const p of plans) await tx.unsafe(`ALTER TABLE ${q(p.table)} ENABLE TRIGGER USER`);
        const out: TableCheck[] = [];
        for (const c of copied) {
          const counted = source.query<{ n: bigint }, []>(`SELECT count(*) AS n FROM ${q(c.plan.table)}`).get()!;
          out.push(compareTable(c.plan.table, { rows: Number(counted.n), sums: c.source.sums }, await targetTotals(tx, c.plan)));
        }
        // Same row count read twice on the SQLite side (the copy's own count and count(*)).
        for (const c of copied) if (c.source.rows !== out.find((x) => x.table === c.plan.table)!.sourceRows) throw new Error(`${c.plan.table}: SQLite rows changed during the copy`);
        if (out.some((c) => !c.ok)) throw new MoveMismatch(out);
        return out;
      });
      const done = performance.now();
      return { tables: checks, rows: checks.reduce((n, c) => n + c.targetRows, 0), ms: done - started, copyMs: done - copyStarted, migrationsApplied };
    } finally {
      source.run("ROLLBACK");
    }
  } finally {
    source.close();
  }
}

// What a backup file is and holds (`backup --verify`, the check inside every `backup`, and
// restore's check). A file is a backup when it is a whole SQLite database (its size agrees
// with its header, integrity_check passes), made by stablegate (a migration record this
// build knows) and has that schema's tables and columns. Nothing here writes: the file is
// opened immutable (no -wal/-shm side files, no locks).
import { Database, constants } from "bun:sqlite";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { migrations as embedded, type EmbeddedMigration } from "../../migrations/index";
import { openDb } from "../db/client";
import { appliedMigrations, migrate, MigrationError } from "../db/migrate";
import { readQueries } from "./sqlite-worker";

/** A file that is not a usable backup; the message says why. */
export class BadBackup extends Error {
  override name = "BadBackup";
}

/** The tables whose row counts a backup reports, in this order (those its schema has). */
export const COUNTED_TABLES = ["merchants", "payin_orders", "payout_orders", "bindings", "transfers", "callbacks", "addresses", "backoffice_users"] as const;

export interface BackupSummary {
  path: string;
  bytes: number;
  /** Applied migrations; the last is the schema level. */
  migrations: string[];
  rows: Record<string, number>;
  newestPayin: { orderNo: string; createdAt: number } | null;
  newestPayout: { orderNo: string; createdAt: number } | null;
}

const SQLITE_MAGIC = "SQLite format 3\0";

/** Header checks: SQLite at all, and not cut short (the in-header page count, when valid). */
function checkHeader(path: string): { size: number; wal: boolean } {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new BadBackup(`${path} is not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof BadBackup) throw e;
    throw new BadBackup(`cannot read ${path}: ${(e as Error).message}`);
  }
  if (size === 0) throw new BadBackup("empty file (0 bytes): not a backup");
  const h = Buffer.alloc(100);
  const fd = openSync(path, "r");
  let n: number;
  try {
    n = readSync(fd, h, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (n < 100 || h.toString("latin1", 0, 16) !== SQLITE_MAGIC) throw new BadBackup("not an SQLite database (no SQLite header): not a stablegate backup");
  const raw = h.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = h.readUInt32BE(28);
  // The in-header size is valid when "version-valid-for" equals the change counter (SQLite >= 3.7).
  if (pages > 0 && h.readUInt32BE(24) === h.readUInt32BE(92) && size < pages * pageSize) {
    throw new BadBackup(`truncated: the file has ${size} bytes, its header says ${pages * pageSize}`);
  }
  // Read/write format 2 is WAL mode: a live database file; `backup` writes rollback-mode copies.
  return { size, wal: h[18] === 2 };
}

const expectedCache = new Map<string, Map<string, Set<string>>>();

/** Tables and columns a database at this migration level has: the migrations run on an empty one. */
async function expectedSchema(names: string[], list: readonly EmbeddedMigration[]): Promise<Map<string, Set<string>>> {
  const key = names.join(",");
  const hit = expectedCache.get(key);
  if (hit) return hit;
  const db = openDb(":memory:");
  try {
    await migrate(db, list.filter((m) => names.includes(m.name)));
    const out = tableColumns(db.$client);
    expectedCache.set(key, out);
    return out;
  } finally {
    db.$client.close();
  }
}

function tableColumns(client: Database): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const tables = client.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name != '__drizzle_migrations'").all();
  for (const { name } of tables) {
    out.set(name, new Set(client.query<{ name: string }, [string]>("SELECT name FROM pragma_table_info(?)").all(name).map((c) => c.name)));
  }
  return out;
}

export function openImmutable(path: string): Database {
  return new Database(`file:${path.split("/").map(encodeURIComponent).join("/")}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
}

/**
 * Checks the backup at `path` and says what it holds; throws BadBackup with the reason.
 * The slow statements (integrity_check, counts) run on a worker thread, so the gateway's
 * scheduled backups do not stall requests.
 */
export async function inspectBackup(path: string, list: readonly EmbeddedMigration[] = embedded): Promise<BackupSummary> {
  const { size, wal } = checkHeader(path);
  try {
    return await inspectDatabase(path, size, list);
  } catch (e) {
    if (!(e instanceof BadBackup) || !wal) throw e;
    throw new BadBackup(`${e.message} (the file is in WAL mode: a copy of a live database file, whose newest commits were in its -wal file; take backups with \`stablegate backup\`)`);
  }
}

async function inspectDatabase(path: string, bytes: number, list: readonly EmbeddedMigration[]): Promise<BackupSummary> {
  let client: Database;
  try {
    client = openImmutable(path);
  } catch (e) {
    throw new BadBackup(`not a readable SQLite database: ${(e as Error).message}`);
  }
  let names: string[];
  let have: Map<string, Set<string>>;
  try {
    try {
      names = appliedMigrations(client, list);
      have = tableColumns(client);
    } catch (e) {
      if (e instanceof MigrationError) throw new BadBackup(`not a backup this stablegate can restore: ${e.message}`);
      throw new BadBackup(`corrupt: ${(e as Error).message}`);
    }
  } finally {
    client.close();
  }
  if (!names.length) throw new BadBackup("not a stablegate database: it has no stablegate tables and no migration record");
  const want = await expectedSchema(names, list);
  for (const [table, cols] of want) {
    const got = have.get(table);
    if (!got) throw new BadBackup(`not a stablegate database at migration ${names.at(-1)}: table ${table} is missing`);
    for (const c of cols) if (!got.has(c)) throw new BadBackup(`not a stablegate database at migration ${names.at(-1)}: table ${table} has no column ${c}`);
  }

  const counted = COUNTED_TABLES.filter((t) => have.has(t));
  const sqls = [
    "PRAGMA integrity_check(20)",
    ...counted.map((t) => `SELECT count(*) AS n FROM ${t}`),
    "SELECT order_no AS orderNo, created_at AS createdAt FROM payin_orders ORDER BY id DESC LIMIT 1",
    "SELECT order_no AS orderNo, created_at AS createdAt FROM payout_orders ORDER BY id DESC LIMIT 1",
  ];
  let res: Record<string, unknown>[][];
  try {
    res = await readQueries(path, sqls);
  } catch (e) {
    throw new BadBackup(`corrupt: ${(e as Error).message}`);
  }
  const problems = (res[0] as { integrity_check: string }[]).map((r) => r.integrity_check);
  if (problems.length !== 1 || problems[0] !== "ok") throw new BadBackup(`corrupt: integrity check failed: ${problems.slice(0, 3).join("; ")}`);
  const rows: Record<string, number> = {};
  counted.forEach((t, i) => (rows[t] = Number((res[1 + i]![0] as { n: number }).n)));
  const newest = (r: Record<string, unknown>[] | undefined) => (r?.[0] ? { orderNo: String(r[0].orderNo), createdAt: Number(r[0].createdAt) } : null);
  return { path, bytes, migrations: names, rows, newestPayin: newest(res[1 + counted.length]), newestPayout: newest(res[2 + counted.length]) };
}

/** The human summary `backup` and `backup --verify` print. */
export function describeBackup(s: BackupSummary): string {
  const at = (t: number) => new Date(t).toISOString();
  const lines = [
    `${s.path}: ${s.bytes} bytes, schema ${s.migrations.at(-1)} (${s.migrations.length} migrations), integrity ok`,
    `  rows: ${Object.entries(s.rows).map(([t, n]) => `${t}=${n}`).join(" ")}`,
    `  newest pay-in: ${s.newestPayin ? `${s.newestPayin.orderNo} at ${at(s.newestPayin.createdAt)}` : "none"}`,
    `  newest payout: ${s.newestPayout ? `${s.newestPayout.orderNo} at ${at(s.newestPayout.createdAt)}` : "none"}`,
  ];
  return lines.join("\n");
}

// Planner statistics gathered without ANALYZE (issue 23, DESIGN 11 "Growth"). ANALYZE is a write
// transaction from its first page read to its last: on the gateway's connection it held the event
// loop (0.1-0.9 s of CPU per big table at 2M orders, several seconds with the disk), and on another
// connection it would hold the write lock as long, so every write (and the loop, in SQLite's busy
// wait) would queue behind it. Instead a worker (src/db/maintenance.ts) computes what ANALYZE
// would write to sqlite_stat1 with plain reads on its own connection, which never block the
// writer in WAL mode, and the gateway writes those few rows in one short transaction and reloads
// them (`ANALYZE sqlite_schema`). The same numbers as ANALYZE without analysis_limit
// (src/db/stats.test.ts compares them).
import type { Database } from "bun:sqlite";
import { type Db, reloadStats, writeTx } from "./client";

export interface StatRow {
  tbl: string;
  idx: string | null;
  stat: string;
}

/** A table is analyzed again when its row count moved this many times (PRAGMA optimize's rule). */
export const REANALYZE_FACTOR = 10;

/**
 * The stale tables (statistics missing, an index without its row, or a row count moved `factor`
 * times: PRAGMA optimize's rule) and their sqlite_stat1 rows, by reads only; a table with an
 * index on an expression is left out (left to ANALYZE). Self-contained (no outer names): the
 * worker runs its source text (src/db/maintenance.ts), which a minified build keeps intact.
 */
export function gatherStats(db: Database, factor: number): { tables: string[]; rows: StatRow[] } {
  type Row = { tbl: string; idx: string | null; stat: string };
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
  const indexesOf = (table: string) =>
    db.query<{ name: string; sql: string | null }, [string]>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table);
  // The partial-index condition: the text after WHERE in its CREATE INDEX.
  const partial = (sql: string | null) => {
    const m = sql ? /\)\s+WHERE\s+([\s\S]+)$/i.exec(sql) : null;
    return m ? m[1]!.trim() : null;
  };

  // The rows ANALYZE writes for a table: one per index (entries, then rows per distinct prefix of
  // its columns); the primary key of a WITHOUT ROWID table under the table's name; the row count
  // alone when no index covers every row; for an empty table, zeros for its partial indexes only.
  const keyCols = (index: string) =>
    db
      .query<{ cid: number; name: string | null; coll: string; key: number }, []>(`PRAGMA index_xinfo(${q(index)})`)
      .all()
      .filter((c) => c.key === 1);
  const tableStats = (table: string): Row[] | null => {
    const rows: Row[] = [];
    if (count(`SELECT count(*) AS n FROM ${q(table)}`) === 0) {
      for (const ix of indexesOf(table)) if (partial(ix.sql)) rows.push({ tbl: table, idx: ix.name, stat: ["0", ...keyCols(ix.name).map(() => "0")].join(" ") });
      return rows;
    }
    const withoutRowid = !!db.query<{ wr: number }, [string]>("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").get(table)?.wr;
    const pk = withoutRowid ? db.query<{ name: string }, []>(`SELECT name FROM pragma_index_list(${q(table).replace(/"/g, "'")}) WHERE origin = 'pk'`).get() : null;
    const list: Array<{ name: string; sql: string | null; as: string; from: string }> = pk ? [{ name: pk.name, sql: null, as: table, from: `FROM ${q(table)}` }] : [];
    for (const ix of indexesOf(table)) {
      if (pk && ix.name === pk.name) continue;
      const where = partial(ix.sql);
      list.push({ name: ix.name, sql: ix.sql, as: ix.name, from: `FROM ${q(table)} INDEXED BY ${q(ix.name)}${where ? ` WHERE ${where}` : ""}` });
    }
    let fullIndex = false;
    for (const ix of list) {
      const cols = keyCols(ix.name);
      if (cols.some((c) => c.cid === -2 || c.name === null)) return null;
      if (!partial(ix.sql)) fullIndex = true;
      const n = count(`SELECT count(*) AS n ${ix.from}`);
      const stat = [String(n)];
      for (let i = 1; i <= cols.length; i++) {
        const prefix = cols
          .slice(0, i)
          .map((c) => `${q(c.name!)} COLLATE ${c.coll}`)
          .join(", ");
        const distinct = n === 0 ? 1 : Math.max(1, count(`SELECT count(*) AS n FROM (SELECT DISTINCT ${prefix} ${ix.from})`));
        // SQLite's own rounding (analyze.c statGet): rows per distinct prefix, rounded up; 2 within 10 % of unique is 1.
        let v = Math.floor((n + distinct - 1) / distinct);
        if (v === 2 && n * 10 <= distinct * 11) v = 1;
        stat.push(String(v));
      }
      rows.push({ tbl: table, idx: ix.as, stat: stat.join(" ") });
    }
    if (!fullIndex) rows.push({ tbl: table, idx: null, stat: String(count(`SELECT count(*) AS n FROM ${q(table)}`)) });
    return rows;
  };

  const known = new Map<string, Map<string | null, number>>();
  if (db.query("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get()) {
    for (const r of db.query<Row, []>("SELECT tbl, idx, stat FROM sqlite_stat1").all()) {
      const m = known.get(r.tbl) ?? new Map<string | null, number>();
      m.set(r.idx, Number(String(r.stat).split(" ")[0]));
      known.set(r.tbl, m);
    }
  }
  const out = { tables: [] as string[], rows: [] as Row[] };
  const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  for (const { name: t } of tables) {
    const have = known.get(t);
    // Rows now, for the 10x rule: the rowid span (two seeks; pruning removes the oldest rows) on a
    // rowid table, a count on a WITHOUT ROWID one (small tables here); never a walk of a big table.
    const withoutRowid = !!db.query<{ wr: number }, [string]>("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?").get(t)?.wr;
    const rowsNow = withoutRowid
      ? count(`SELECT count(*) AS n FROM ${q(t)}`)
      : count(`SELECT coalesce((SELECT max(rowid) FROM ${q(t)}) - (SELECT min(rowid) FROM ${q(t)}) + 1, 0) AS n`);
    let stale: boolean;
    if (!have) stale = rowsNow > 0 || indexesOf(t).some((ix) => partial(ix.sql));
    else {
      const was = Math.max(1, ...have.values());
      const now = Math.max(1, rowsNow);
      // A new index (an empty table has rows for its partial indexes only).
      stale = indexesOf(t).some((ix) => !have.has(ix.name) && !ix.name.startsWith("sqlite_autoindex_") && (rowsNow > 0 || !!partial(ix.sql))) || now >= was * factor || was >= now * factor;
    }
    if (!stale) continue;
    const rows = tableStats(t);
    if (!rows) continue;
    out.tables.push(t);
    out.rows.push(...rows);
  }
  return out;
}

/**
 * Writes gathered rows in place of the tables' old ones (one short transaction on the gateway's
 * connection) and has SQLite reload them.
 */
export async function applyStats(db: Db, s: { tables: string[]; rows: StatRow[] }): Promise<void> {
  if (!s.tables.length) return;
  const c = db.$client;
  // sqlite_stat1 is made by SQLite only: ANALYZE of a table of a few rows makes it.
  await writeTx(db, (tx) => {
    // (inside the transaction: ANALYZE writes, and outside one it would join another flow's)
    if (!c.query("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'").get()) c.run('ANALYZE "schema_migrations"');
    const del = tx.$client.prepare("DELETE FROM sqlite_stat1 WHERE tbl = ?");
    const ins = tx.$client.prepare("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)");
    for (const t of s.tables) del.run(t);
    for (const r of s.rows) ins.run(r.tbl, r.idx, r.stat);
  });
  await reloadStats(db);
}

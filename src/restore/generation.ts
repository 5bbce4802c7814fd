// The generation marker (DESIGN 16): a random id the database holds (settings.generation)
// and the data folder keeps beside it (<database>.generation). They differ when the database
// is older than the folder's last word on it: put back by `restore`, by hand, or from a
// backup onto a new machine. Such a database starts in reconcile (./reconcile.ts): HD indexes
// jump by restore.index_gap and payout sources are checked against their chain before they
// send again. `backup` moves the live marker on after its copy, so no backup ever carries
// the marker its folder holds.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { writeTx, type Db, type DbOrTx } from "../db/client";
import { nextIndexOf } from "../wallet/addresses";
import { addressChains, setDerivationFloor } from "../wallet/store";
import { clearReconcile, dbGeneration, insertReconcileChain, scanCursors, setDbGeneration, setGenerationAt } from "./store";
import { chainModules } from "../chains/registry";

export function markerPath(dbPath: string): string {
  return `${dbPath}.generation`;
}

export const newGeneration = () => randomBytes(12).toString("hex");

export function readFolderMarker(dbPath: string): string | null {
  const p = markerPath(dbPath);
  if (!existsSync(p)) return null;
  const v = readFileSync(p, "utf8").trim();
  return v || null;
}

/** Written to a temporary name and renamed: a crash leaves the old marker or the new one, never half. */
export function writeFolderMarker(dbPath: string, generation: string): void {
  const tmp = `${markerPath(dbPath)}.tmp`;
  writeFileSync(tmp, generation + "\n", { mode: 0o600 });
  renameSync(tmp, markerPath(dbPath));
}

export { dbGeneration } from "./store";

export interface GenerationCheck {
  generation: string;
  /** The database was found restored (markers differ) and entered reconcile now. */
  restored: boolean;
}

/**
 * Compares the markers on opening a database. Equal: nothing to do. Neither set (a database
 * from before markers, or a new one): both get one. Otherwise the database is older than its
 * folder believes: reconcile. The database is written first: a crash before the folder
 * file is renamed leaves them different, and the next start reconciles again (harmless).
 */
export async function checkGeneration(db: Db, dbPath: string, o: { indexGap: number; now: number }): Promise<GenerationCheck> {
  if (dbPath === ":memory:") return { generation: await dbGeneration(db) ?? "memory", restored: false };
  const folder = readFolderMarker(dbPath);
  const inDb = await dbGeneration(db);
  if (folder !== null && folder === inDb) return { generation: folder, restored: false };
  const generation = newGeneration();
  const restored = inDb !== null || folder !== null;
  await writeTx(db, async (tx) => {
    if (restored) await enterReconcile(tx, { generation, indexGap: o.indexGap, now: o.now });
    else await setDbGeneration(tx, generation, o.now);
  });
  writeFolderMarker(dbPath, generation);
  return { generation, restored };
}

/**
 * After a backup's copy (src/backup/write.ts): the live database and its folder move on to a
 * new generation, so the copy is recognised if it is ever put back. Its own connection: backup
 * runs beside `serve` without opening the store. A database without a settings table (not
 * migrated yet) is left alone.
 */
export function rotateGenerationAt(dbPath: string, now: number): void {
  const generation = newGeneration();
  if (!setGenerationAt(dbPath, generation, now)) return;
  writeFolderMarker(dbPath, generation);
}

/**
 * What reconcile mode reads and writes, per engine: the SQLite stores below (sqliteReconcileStore),
 * or PostgreSQL's (restore/pg-store.ts) for a database restored there. The rule is written once.
 */
export interface ReconcileStore {
  setGeneration(generation: string, now: number): Promise<void>;
  clearReconcile(): Promise<void>;
  scanCursors(): Promise<Map<string, number | null>>;
  addressChains(): Promise<string[]>;
  nextIndexOf(chain: string): Promise<number>;
  insertReconcileChain(row: { chain: string; sinceBlock: number | null; gapFrom: number; gapTo: number; generation: string; startedAt: number }): Promise<void>;
  setDerivationFloor(chain: string, nextIndex: number, now: number): Promise<void>;
}

const sqliteReconcileStore = (tx: DbOrTx): ReconcileStore => ({
  setGeneration: async (g, now) => await setDbGeneration(tx, g, now),
  clearReconcile: async () => await clearReconcile(tx),
  scanCursors: async () => await scanCursors(tx),
  addressChains: async () => await addressChains(tx),
  nextIndexOf: async (chain) => await nextIndexOf(tx, chain),
  insertReconcileChain: async (row) => await insertReconcileChain(tx, row),
  setDerivationFloor: async (chain, next, now) => await setDerivationFloor(tx, chain, next, now),
});

/**
 * Reconcile mode for a restored database, in the caller's transaction: a new generation,
 * the backup's scan cursor of every chain kept as the point outgoing transfers are read from,
 * every source to be checked again, and every chain's next HD index moved `indexGap` on.
 */
export async function enterReconcile(tx: DbOrTx, o: { generation: string; indexGap: number; now: number }): Promise<void> {
  await enterReconcileWith(sqliteReconcileStore(tx), o);
}

/** enterReconcile over either engine's store. */
export async function enterReconcileWith(store: ReconcileStore, o: { generation: string; indexGap: number; now: number }): Promise<void> {
  await store.setGeneration(o.generation, o.now);
  await store.clearReconcile();
  const cursors = await store.scanCursors();
  const chains = new Set<string>([...chainModules().map((m) => m.code), ...cursors.keys(), ...(await store.addressChains())]);
  for (const chain of chains) {
    const gapFrom = await store.nextIndexOf(chain);
    const next = gapFrom + o.indexGap;
    await store.insertReconcileChain({ chain, sinceBlock: cursors.get(chain) ?? null, gapFrom, gapTo: next, generation: o.generation, startedAt: o.now });
    await store.setDerivationFloor(chain, next, o.now);
  }
}

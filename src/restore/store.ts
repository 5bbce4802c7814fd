// The restore's storage module (docs/architecture.md "Data access"): the generation marker in
// `settings`, reconcile mode's `reconcile_chains` / `reconcile_addresses`, the unrecorded
// outgoing transfers (the held payouts' release is payout/store.ts `releaseHeldPayouts`, through a port). `restore/generation.ts`, `reconcile.ts`
// and `gap-addresses.ts` call these (the gap's address rows: `wallet/store.ts`).
import { Database } from "bun:sqlite";
import { and, count, eq, isNull, sql } from "drizzle-orm";
import { type DbOrTx, prepared } from "../db/client";
import { chainCursors, reconcileAddresses, reconcileChains, settings, unrecordedOutgoing } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type UnrecordedRow = typeof unrecordedOutgoing.$inferSelect;
export type ReconcileChainRow = typeof reconcileChains.$inferSelect;

const GENERATION_KEY = "generation";

export async function dbGeneration(db: DbOrTx): Promise<string | null> {
  if (isPg(db)) return await pg.dbGeneration(pgOf(db));
  return db.select().from(settings).where(sql`${settings.key} = ${GENERATION_KEY}`).get()?.value ?? null;
}

export async function setDbGeneration(tx: DbOrTx, generation: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.setDbGeneration(pgOf(tx), generation, now);
  tx.insert(settings).values({ key: GENERATION_KEY, value: generation, updatedAt: now }).onConflictDoUpdate({ target: settings.key, set: { value: generation, updatedAt: now } }).run();
}

/**
 * Writes the generation through a connection of its own (a backup runs beside `serve`); false
 * when the database has no settings table (not migrated yet) and is left alone.
 */
export function setGenerationAt(dbPath: string, generation: string, now: number): boolean {
  const c = new Database(dbPath);
  try {
    c.run("PRAGMA busy_timeout = 10000");
    if (!c.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get()) return false;
    c.run("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at", [GENERATION_KEY, generation, now]);
    return true;
  } finally {
    c.close();
  }
}

/** Forgets the last reconcile: no chain to read, no source checked. */
export async function clearReconcile(tx: DbOrTx): Promise<void> {
  if (isPg(tx)) return await pg.clearReconcile(pgOf(tx));
  tx.delete(reconcileChains).run();
  tx.delete(reconcileAddresses).run();
}

/** Every chain's scan cursor (block number), as the backup left it. */
export async function scanCursors(tx: DbOrTx): Promise<Map<string, number | null>> {
  if (isPg(tx)) return await pg.scanCursors(pgOf(tx));
  return new Map(tx.select().from(chainCursors).all().map((c) => [c.chain, c.blockNumber]));
}

export async function insertReconcileChain(tx: DbOrTx, row: typeof reconcileChains.$inferInsert): Promise<void> {
  if (isPg(tx)) return await pg.insertReconcileChain(pgOf(tx), row);
  tx.insert(reconcileChains).values(row).run();
}

export async function reconcileChain(db: DbOrTx, chain: string): Promise<ReconcileChainRow | undefined> {
  if (isPg(db)) return await pg.reconcileChain(pgOf(db), chain);
  return db.select().from(reconcileChains).where(eq(reconcileChains.chain, chain)).get();
}

/** A chain in reconcile whose skipped indexes are not all watched yet. */
/** Built once per connection: the restore-gap job asks every 250 ms per chain. */
export async function gapPending(db: DbOrTx, chain: string): Promise<ReconcileChainRow | undefined> {
  if (isPg(db)) return await pg.gapPending(pgOf(db), chain);
  return prepared(db, "gapPending", (d) =>
    d.select().from(reconcileChains).where(and(eq(reconcileChains.chain, sql.placeholder("chain")), isNull(reconcileChains.gapWatchedAt))).prepare(),
  ).get({ chain });
}

export async function markGapWatched(tx: DbOrTx, chain: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.markGapWatched(pgOf(tx), chain, now);
  tx.update(reconcileChains).set({ gapWatchedAt: now }).where(eq(reconcileChains.chain, chain)).run();
}

export async function reconcileAddress(db: DbOrTx, chain: string, address: string) {
  if (isPg(db)) return await pg.reconcileAddress(pgOf(db), chain, address);
  return db.select().from(reconcileAddresses).where(and(eq(reconcileAddresses.chain, chain), eq(reconcileAddresses.address, address))).get();
}

/** Whether the database stored a transaction (a payout, a gas top-up, a token-account creation). */
export async function knownTx(db: DbOrTx, txHash: string): Promise<boolean> {
  if (isPg(db)) return await pg.knownTx(pgOf(db), txHash);
  const h = txHash.toLowerCase();
  return !!db.$client
    .query(
      `SELECT 1 FROM payout_orders WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM gas_topups WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM payout_tx_attempts WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM gas_topup_attempts WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM sol_token_accounts WHERE lower(tx_hash) = ?1 LIMIT 1`,
    )
    .get(h);
}

/** One source's check: the transfers found (if any) and its state in this generation. */
export async function recordCheck(
  tx: DbOrTx,
  o: { chain: string; address: string; generation: string; now: number; found: Omit<typeof unrecordedOutgoing.$inferInsert, "chain" | "address" | "generation" | "foundAt">[] },
): Promise<void> {
  if (isPg(tx)) return await pg.recordCheck(pgOf(tx), o);
  for (const t of o.found) tx.insert(unrecordedOutgoing).values({ ...t, chain: o.chain, address: o.address, generation: o.generation, foundAt: o.now }).run();
  const state = o.found.length ? "held" : "clear";
  tx.insert(reconcileAddresses)
    .values({ chain: o.chain, address: o.address, generation: o.generation, state, checkedAt: o.now })
    .onConflictDoUpdate({ target: [reconcileAddresses.chain, reconcileAddresses.address], set: { generation: o.generation, state, checkedAt: o.now, acknowledgedBy: null, acknowledgedAt: null } })
    .run();
}

const openOf = (chain: string, address: string) => and(eq(unrecordedOutgoing.chain, chain), eq(unrecordedOutgoing.address, address), isNull(unrecordedOutgoing.acknowledgedAt));

export async function openCount(db: DbOrTx, chain: string, address: string): Promise<number> {
  if (isPg(db)) return await pg.openCount(pgOf(db), chain, address);
  return db.select({ n: count() }).from(unrecordedOutgoing).where(openOf(chain, address)).get()?.n ?? 0;
}

/** Unacknowledged unrecorded transfers, newest first (exceptions page, alert). */
export async function openUnrecorded(db: DbOrTx, limit = 500): Promise<UnrecordedRow[]> {
  if (isPg(db)) return await pg.openUnrecorded(pgOf(db), limit);
  return db.select().from(unrecordedOutgoing).where(isNull(unrecordedOutgoing.acknowledgedAt)).orderBy(sql`${unrecordedOutgoing.id} DESC`).limit(limit).all();
}

/** A source's unacknowledged transfers. */
export async function openFrom(tx: DbOrTx, chain: string, address: string): Promise<UnrecordedRow[]> {
  if (isPg(tx)) return await pg.openFrom(pgOf(tx), chain, address);
  return tx.select().from(unrecordedOutgoing).where(openOf(chain, address)).all();
}

/** Marks a source's open transfers and the source acknowledged by `by`. */
export async function acknowledge(tx: DbOrTx, chain: string, address: string, by: string, now: number): Promise<void> {
  if (isPg(tx)) return await pg.acknowledge(pgOf(tx), chain, address, by, now);
  tx.update(unrecordedOutgoing).set({ acknowledgedBy: by, acknowledgedAt: now }).where(openOf(chain, address)).run();
  tx.update(reconcileAddresses)
    .set({ state: "acknowledged", acknowledgedBy: by, acknowledgedAt: now })
    .where(and(eq(reconcileAddresses.chain, chain), eq(reconcileAddresses.address, address)))
    .run();
}

// --- the backup file being checked (restore/restore.ts `checkCopy`): a plain connection to a
// private copy, read before (and, for the summary, after) it is migrated.

const tableExists = (c: Database, name: string) => !!c.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);

/** SQLite's own integrity check: ["ok"] for a sound file. */
export function backupIntegrity(c: Database): string[] {
  return c
    .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
    .all()
    .map((r) => r.integrity_check);
}

/** A stablegate database: a migrations table (either kind) and settings. */
export function hasStablegateSchema(c: Database): boolean {
  return (tableExists(c, "schema_migrations") || tableExists(c, "__drizzle_migrations")) && tableExists(c, "settings");
}

/** What the master key must open: the wallet seed, the key check (src/secrets/key-check.ts) and an API key, those present. */
export function sealedInBackup(c: Database): (readonly [string, string])[] {
  const setting = (k: string) => c.query<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?").get(k)?.value;
  const apiKey = tableExists(c, "api_keys") ? c.query<{ v: string }, []>("SELECT secret_enc AS v FROM api_keys LIMIT 1").get()?.v : undefined;
  return ([["wallet seed", setting("wallet_seed")], ["master key check", setting("master_key_check")], ["API keys", apiKey]] as const).flatMap(([what, v]) => (v === undefined ? [] : [[what, v] as const]));
}

/** The restored database at a glance: order counts, the newest order, each chain's cursor. */
export function backupSummary(c: Database): { payins: number; payouts: number; newestOrderAt: number | null; cursors: { chain: string; block: number }[] } {
  const count = (t: string) => c.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}`).get()!.n;
  const newest = c.query<{ t: number | null }, []>("SELECT max(t) AS t FROM (SELECT max(created_at) AS t FROM payin_orders UNION ALL SELECT max(created_at) FROM payout_orders)").get()?.t ?? null;
  const cursors = c.query<{ chain: string; block: number }, []>("SELECT chain, block_number AS block FROM chain_cursors ORDER BY chain").all();
  return { payins: count("payin_orders"), payouts: count("payout_orders"), newestOrderAt: newest, cursors };
}

/** Leaves the file in rollback-journal mode, so no -wal sits beside it when it is renamed into place. */
export function selfContained(c: Database): void {
  c.run("PRAGMA journal_mode = DELETE");
}

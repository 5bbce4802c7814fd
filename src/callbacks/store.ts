// The callbacks domain's storage: every statement the outbox, the delivery worker and retention
// run on callbacks and callback_attempts, named by what it does. The house data-access style (docs/architecture.md "Data access"):
// a domain's SQL lives in its storage module; hot statements are built once per connection
// with `prepared` (db/client.ts), never a bare `$client.prepare` in a service.
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import { type Db, type DbOrTx, prepared, readDb, writing, type Tx, writeTx } from "../db/client";
import { callbackAttempts, callbacks, merchants } from "../db/schema";
import { ownerGone } from "../lib/process-id";
import { isPg, pgOf, pgSide } from "../db/engine";
import { type HandoffLease, type HandoffTaker, handoffTakerOf } from "./handoff";
import type { FairClaim } from "./store.pg";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

/** A due row as the worker delivers it. */
export interface DueRow {
  rid: number;
  id: string;
  /** payin | payout | test | invoice | refund | epusdt | epay: the compat kinds go out in their protocol's shape. */
  kind: string;
  merchantId: number;
  orderNo: string;
  apiKeyId: string;
  payload: string;
  attempts: number;
  /** The row's url, else the merchant's default callback URL; null: nowhere to send (held). */
  target: string | null;
}

/** What an attempt wrote: callback_attempts' columns. */
export interface AttemptRecord {
  startedAt: number;
  durationMs: number;
  httpStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

/**
 * The delivery worker's statements. Every claim carries `owner` (the process's id,
 * lib/process-id.ts) and every write that ends a claim checks it: several processes may deliver
 * from one database, and none releases or settles another's claim while its lease runs.
 */
/**
 * The claims under way ('delivering': at most the worker's slots, whatever the table holds), read
 * through the `state` prefix of callbacks_due, named: the start-up statistics may be taken while
 * every row is in one state (the table's first rows) and a mature table has a few states over
 * millions of rows, and either way sqlite_stat1 makes `state = 'delivering'` look like most of
 * the table, so the planner scanned all of it (every poll interval under load: a 10-30 ms stall
 * of the event loop at 5,000-10,000 rows).
 */
export const DELIVERING = `callbacks INDEXED BY callbacks_due WHERE state = 'delivering'`;
export const EXPIRED_LEASES = `SELECT rowid AS rid, id FROM ${DELIVERING} AND lease_until <= ?`;
export const LEASE_OWNERS = `SELECT DISTINCT lease_owner AS o FROM ${DELIVERING}`;

/** The delivery worker's store on either engine (store.pg.ts: the PostgreSQL twin). */
export interface CallbackWorkerStore {
  /**
   * PostgreSQL: claims up to `limit` due rows in one statement (FOR UPDATE SKIP LOCKED, leased to
   * this owner for `leaseMs`), already marked 'delivering'. null on SQLite: the planner reads
   * `due` pages and `mark`s each row through the group commit. With `fair`, the planner's limits
   * (claim-plan.ts) hold: a share per (merchant, origin), round-robin, `overflow` extra slots for
   * merchants with nothing in flight (store.pg.ts CLAIM_SQL).
   */
  claimLeased: ((limit: number, leaseMs: number, now: number, fair?: FairClaim) => Promise<ClaimedRows>) | null;
  releaseAllLeases(): Promise<number>;
  releaseCutOff(gone?: (owner: string | null) => boolean): Promise<number>;
  expiredLeases(now: number): Promise<{ rid: number; id: string }[]>;
  release(rid: number, now: number): Promise<void>;
  merchantsWithPending(): Promise<number[]>;
  due(merchantId: number, now: number, after: { nextAt: number; rid: number }, limit: number): Promise<(DueRow & { nextAt: number })[]>;
  mark(rid: number, leaseUntil: number, now: number): Promise<boolean>;
  hold(id: string, now: number): Promise<void>;
  unclaim(id: string): Promise<void>;
  recordAttempt(id: string, r: AttemptRecord, url: string | null): Promise<void>;
  delivered(id: string, now: number): Promise<number | null>;
  /**
   * Moves this owner's claim on (a compare-and-set on state and owner); whether it did. `rid`, when
   * the caller has it (the claimed row's rowid): SQLite finds the row by it, not through the id's index.
   */
  settle(id: string, o: { state: string; attempts: number; nextAt: number; lastError: string | null }, now: number, rid?: number): Promise<boolean>;
  /**
   * PostgreSQL: settle, then (only when it applied) recordAttempt and delivered, in one statement,
   * one round trip (absent on SQLite, whose group commit batches them). `settled` false: the claim
   * is no longer this owner's (its lease ended and another gateway took the row), nothing written.
   */
  recordOutcome?(id: string, r: AttemptRecord, url: string | null, o: { state: string; attempts: number; nextAt: number; lastError: string | null }, now: number): Promise<RecordedOutcome>;
  /**
   * PostgreSQL: whether the row is still this owner's claim with its lease running past `until`
   * (one primary-key read just before a send); absent on SQLite (one gateway per file).
   */
  holdsClaim?(id: string, until: number): Promise<boolean>;
}

/**
 * What a leased claim took; `heldBack`: rows were due but the claim took none (every one held back
 * by its origin's share, its order's earlier event or another gateway's lock): the worker's next
 * claim waits for one of its own deliveries to end, or CLAIM_HELD_GAP_MS (worker.ts).
 */
export type ClaimedRows = DueRow[] & { heldBack?: boolean };

/** What recording an attempt did: `settled` (the owner's compare-and-set applied) and, for a delivery, when the row was written. */
export interface RecordedOutcome {
  settled: boolean;
  changedAt: number | null;
}

export function callbackWorkerStore(db: Db, owner: string): CallbackWorkerStore {
  if (isPg(db)) return pg.callbackWorkerStore(db, owner);
  const stmt = <T>(name: string, build: (c: Db["$client"]) => T): T => prepared(db, `callbacks:${name}`, (d) => build(d.$client));
  // A write statement: built on the write connection (reads outside a transaction go to the read connection).
  const wstmt = <T>(name: string, build: (c: Db["$client"]) => T): T => prepared(writing(db), `callbacks:${name}`, (d) => build(d.$client));
  // The worker's writes outside the group commit: each in a transaction of its own (docs/transactions.md).
  const own = async <T>(fn: () => T): Promise<T> => await writeTx(db, async () => fn());
  const releaseOf = (o: string | null): number =>
    o === null
      ? db.$client.run(`UPDATE callbacks INDEXED BY callbacks_due SET state = 'pending', lease_until = NULL, lease_owner = NULL WHERE state = 'delivering' AND lease_owner IS NULL`).changes
      : db.$client.run(`UPDATE callbacks INDEXED BY callbacks_due SET state = 'pending', lease_until = NULL, lease_owner = NULL WHERE state = 'delivering' AND lease_owner = ?`, [o]).changes;
  /** The owners of the claims under way (the index's 'delivering' range). */
  const leaseOwners = (): (string | null)[] =>
    readDb(db).$client.query<{ o: string | null }, []>(LEASE_OWNERS).all().map((r) => r.o);
  return {
    claimLeased: null,
    /** This process's claims back to pending; how many. Other processes' claims stay. */
    releaseAllLeases: async (): Promise<number> => await own(() => releaseOf(owner)),
    /**
     * At start: this process's claims, and those of every owner `gone` says is dead (a previous
     * run killed on this host), back to pending before their lease ends; how many. A live
     * process's claims stay until their lease expires.
     */
    releaseCutOff: async (gone: (owner: string | null) => boolean = ownerGone): Promise<number> =>
      await own(() => releaseOf(owner) + leaseOwners().filter((o) => o !== owner && gone(o)).reduce((n, o) => n + releaseOf(o), 0)),
    /** Expired leases, any owner's (few rows: the index's 'delivering' range). */
    expiredLeases: async (now: number) =>
      stmt("expired", (c) => c.prepare<{ rid: number; id: string }, [number]>(EXPIRED_LEASES)).all(now),
    /** An expired lease back to pending, if it is still expired (another process may have claimed the row again since). */
    release: async (rid: number, now: number) =>
      await own(() => void wstmt("release", (c) => c.prepare(`UPDATE callbacks SET state = 'pending', lease_until = NULL, lease_owner = NULL WHERE rowid = ? AND state = 'delivering' AND lease_until <= ?`)).run(rid, now)),
    /** Merchants with pending rows: a loose index scan of callbacks_due, one probe per merchant, whatever the backlog. */
    merchantsWithPending: async (): Promise<number[]> =>
      stmt("merchants", (c) =>
        c.prepare<{ id: number }, []>(`
        WITH RECURSIVE m(id) AS (
          SELECT (SELECT min(merchant_id) FROM callbacks WHERE state = 'pending')
          UNION ALL
          SELECT (SELECT min(merchant_id) FROM callbacks WHERE state = 'pending' AND merchant_id > m.id) FROM m WHERE m.id IS NOT NULL
        ) SELECT id FROM m WHERE id IS NOT NULL`),
      )
        .all()
        .map((r) => r.id),
    /**
     * One page of a merchant's due rows after a position, in due order; rows behind an earlier
     * unfinished event of their order wait. The position as a row value: the index seek starts
     * there (an OR of the two cases made every page scan again from the first due row).
     * `+?` for the merchant and the limit: a bare parameter in the equality the ORDER BY rests on,
     * or in LIMIT, makes bun's SQLite (3.54) prepare the statement again on every run (~3x this
     * statement's cost: see `prepared` in db/client.ts).
     */
    due: async (merchantId: number, now: number, after: { nextAt: number; rid: number }, limit: number) =>
      stmt("due", (c) =>
        c.prepare<DueRow & { nextAt: number }, [number, number, number, number, number]>(`
        SELECT c.rowid AS rid, c.id, c.kind, c.merchant_id AS merchantId, c.order_no AS orderNo, c.api_key_id AS apiKeyId,
               c.payload, c.attempts, c.next_attempt_at AS nextAt, COALESCE(c.url, m.default_callback_url) AS target
        FROM callbacks c LEFT JOIN merchants m ON m.id = c.merchant_id
        WHERE c.state = 'pending' AND c.merchant_id = +? AND c.next_attempt_at <= ?
          AND (c.next_attempt_at, c.rowid) > (?, ?)
          AND NOT EXISTS (SELECT 1 FROM callbacks p
                          WHERE p.order_no = c.order_no AND p.rowid < c.rowid AND p.state IN ('pending', 'delivering'))
        ORDER BY c.next_attempt_at, c.rowid LIMIT +?`),
      ).all(merchantId, now, after.nextAt, after.rid, limit),
    /** Claims a row still pending (a resend or another run may have moved it); whether it did. */
    mark: async (rid: number, leaseUntil: number, now: number): Promise<boolean> =>
      wstmt("mark", (c) => c.prepare(`UPDATE callbacks SET state = 'delivering', lease_until = ?, lease_owner = ?, updated_at = ? WHERE rowid = ? AND state = 'pending'`)).run(leaseUntil, owner, now, rid)
        .changes === 1,
    /** No target (no notifyUrl, no default URL): held, not an attempt. */
    hold: async (id: string, now: number) =>
      await own(() => void db.$client.run(`UPDATE callbacks SET state = 'held', lease_until = NULL, lease_owner = NULL, updated_at = ? WHERE id = ? AND state = 'delivering' AND lease_owner = ?`, [now, id, owner])),
    /** Shutdown cut the delivery off: not an attempt; the next start delivers it again. */
    unclaim: async (id: string) =>
      await own(() => void db.$client.run(`UPDATE callbacks SET state = 'pending', lease_until = NULL, lease_owner = NULL WHERE id = ? AND state = 'delivering' AND lease_owner = ?`, [id, owner])),
    /** One attempt, with the URL it went to (the callbacks page shows each attempt's target). */
    recordAttempt: async (id: string, r: AttemptRecord, url: string | null) =>
      void wstmt("attempt", (c) =>
        c.prepare<unknown, [string, number, number, number | null, string | null, string | null, string | null]>(
          `INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, http_status, response_body, error, url)
         VALUES (?1, (SELECT count(*) FROM callback_attempts WHERE callback_id = ?1) + 1, ?2, ?3, ?4, ?5, ?6, ?7)`,
        ),
      ).run(id, r.startedAt, r.durationMs, r.httpStatus, r.responseBody, r.error, url),
    /**
     * A 2xx: when the row was written (its status change), and the completed pay-in's detection
     * row gets its callback time (detection_times, DESIGN 25).
     */
    delivered: async (id: string, now: number): Promise<number | null> => {
      const r = stmt("deliveredRow", (c) => c.prepare<{ createdAt: number; kind: string; orderNo: string; status: string }, [string]>(`SELECT created_at AS createdAt, kind, order_no AS orderNo, order_status AS status FROM callbacks WHERE id = ?`)).get(id);
      if (!r) return null;
      if (r.kind === "payin" && r.status === "completed") {
        wstmt("detectionCallback", (c) => c.prepare(`UPDATE detection_times SET callback_at = ? WHERE order_no = ? AND completed_at IS NOT NULL AND callback_at IS NULL`)).run(now, r.orderNo);
      }
      return r.createdAt;
    },
    settle: async (id: string, o: { state: string; attempts: number; nextAt: number; lastError: string | null }, now: number, rid?: number) =>
      (rid === undefined
        ? wstmt("settle", (c) =>
          c.prepare<unknown, [string, number, number, string | null, number, string, string]>(
            `UPDATE callbacks SET state = ?, attempts = ?, next_attempt_at = ?, lease_until = NULL, lease_owner = NULL, last_error = ?, updated_at = ? WHERE id = ? AND state = 'delivering' AND lease_owner = ?`,
          ),
        ).run(o.state, o.attempts, o.nextAt, o.lastError, now, id, owner)
        : wstmt("settleRow", (c) =>
          c.prepare<unknown, [string, number, number, string | null, number, number, string, string]>(
            `UPDATE callbacks SET state = ?, attempts = ?, next_attempt_at = ?, lease_until = NULL, lease_owner = NULL, last_error = ?, updated_at = ? WHERE rowid = ? AND id = ? AND state = 'delivering' AND lease_owner = ?`,
          ),
        ).run(o.state, o.attempts, o.nextAt, o.lastError, now, rid, id, owner)
      ).changes === 1,
  };
}


/** A callbacks row as the outbox writes it (attempts 0, due at once). */
export interface NewCallbackRow {
  id: string;
  merchantId: number;
  kind: string;
  orderNo: string;
  status: string;
  apiKeyId: string;
  url: string | null;
  payload: string;
  state: "pending" | "held";
  now: number;
}

/**
 * Writes the row unless its id is taken; whether it did. A plain bun:sqlite statement (no
 * drizzle parameter mapping): this runs for every create. `seq` (the order an order's events were
 * written in, carried to PostgreSQL by move-to-pg) is the row's rowid: both are given here as
 * max(rowid) + 1, the rowid SQLite would pick (migrations/sqlite/0570; a trigger did it before).
 */
export async function insertCallback(tx: Tx, r: NewCallbackRow): Promise<boolean> {
  if (isPg(tx)) return await pg.insertCallback(pgOf(tx), r);
  const insert = prepared(writing(tx), "enqueueCallback", (d) =>
    d.$client.prepare(
      `INSERT INTO callbacks (rowid, seq, id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
       VALUES ((SELECT coalesce(max(rowid), 0) + 1 FROM callbacks), (SELECT coalesce(max(rowid), 0) + 1 FROM callbacks), ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
  );
  return insert.run(r.id, r.merchantId, r.kind, r.orderNo, r.status, r.apiKeyId, r.url, r.payload, r.state, r.now, r.now, r.now).changes === 1;
}

/**
 * SQLite: the row written already claimed by this process's worker (callbacks/handoff.ts), with
 * its lease; its rowid, or null when its id is taken (nothing written). The same insert as
 * insertCallback's but for the state and the lease.
 */
export async function insertClaimedCallback(tx: Tx, r: NewCallbackRow, lease: HandoffLease): Promise<number | null> {
  const insert = prepared(writing(tx), "enqueueClaimedCallback", (d) =>
    d.$client.prepare(
      `INSERT INTO callbacks (rowid, seq, id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, lease_until, lease_owner, created_at, updated_at)
       VALUES ((SELECT coalesce(max(rowid), 0) + 1 FROM callbacks), (SELECT coalesce(max(rowid), 0) + 1 FROM callbacks), ?, ?, ?, ?, ?, ?, ?, ?, 'delivering', 0, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
    ),
  );
  const done = insert.run(r.id, r.merchantId, r.kind, r.orderNo, r.status, r.apiKeyId, r.url, r.payload, r.now, lease.until, lease.owner, r.now, r.now);
  return done.changes === 1 ? Number(done.lastInsertRowid) : null;
}

/** The worker that takes this database's new callbacks straight from their transaction (SQLite: one process delivers; PostgreSQL: none, the gateways claim). */
export async function callbackHandoff(tx: Tx): Promise<HandoffTaker | undefined> {
  if (isPg(tx)) return await pg.callbackHandoff();
  return handoffTakerOf(tx.$client);
}

/** The merchant's default callback URL (null: none, its callbacks without a URL are held). */
export async function merchantDefaultUrl(tx: DbOrTx, merchantId: number): Promise<string | null> {
  if (isPg(tx)) return await pg.merchantDefaultUrl(pgOf(tx), merchantId);
  const q = prepared(tx, "merchantDefaultUrl", (d) =>
    d.select({ url: merchants.defaultCallbackUrl }).from(merchants).where(sql`${merchants.id} = ${sql.placeholder("id")}`).prepare(),
  );
  return q.get({ id: merchantId })?.url ?? null;
}

/** The oldest delivered callbacks past the cutoff, through the partial index callbacks_delivered. */
export const DELIVERED_BEFORE = `SELECT id FROM callbacks INDEXED BY callbacks_delivered
  WHERE state = 'delivered' AND updated_at < ?1 ORDER BY updated_at LIMIT ?2`;

/** Deletes up to `limit` delivered callbacks older than `cutoff` with their attempts (the caller's transaction); how many callbacks. */
export async function pruneDelivered(db: Db, cutoff: number, limit: number): Promise<number> {
  if (isPg(db)) return await pg.pruneDelivered(pgOf(db), cutoff, limit);
  const attempts = prepared(writing(db), "pruneAttempts", (d) => d.$client.prepare<never, [number, number]>(`DELETE FROM callback_attempts WHERE callback_id IN (${DELIVERED_BEFORE})`));
  const rows = prepared(writing(db), "pruneCallbacks", (d) => d.$client.prepare<never, [number, number]>(`DELETE FROM callbacks WHERE id IN (${DELIVERED_BEFORE})`));
  attempts.run(cutoff, limit);
  return rows.run(cutoff, limit).changes;
}

/**
 * Moves a merchant's held callbacks back to the queue (the worker resolves the default URL at
 * delivery); how many. `merchants/settings.ts` runs it through its `releaseHeldCallbacks` port.
 */
export async function releaseHeldCallbacks(db: DbOrTx, merchantId: number, now: number): Promise<number> {
  if (isPg(db)) return await pg.releaseHeldCallbacks(pgOf(db), merchantId, now);
  return db
    .update(callbacks)
    .set({ state: "pending", nextAttemptAt: now, updatedAt: now })
    .where(and(eq(callbacks.merchantId, merchantId), eq(callbacks.state, "held")))
    .returning({ id: callbacks.id })
    .all().length;
}

// --- the operator's view of the outbox (callbacks/resend.ts) and the test events (callbacks/test-event.ts) ---

export type CallbackRow = typeof callbacks.$inferSelect;
export type CallbackAttemptRow = typeof callbackAttempts.$inferSelect;

/** Callbacks by state, merchant and order (each optional), newest first. */
export async function listCallbackRows(db: DbOrTx, o: { state?: string; merchantId?: number; orderNo?: string; limit: number }): Promise<CallbackRow[]> {
  if (isPg(db)) return await pg.listCallbackRows(pgOf(db), o);
  const where: SQL[] = [];
  if (o.state) where.push(eq(callbacks.state, o.state));
  if (o.merchantId !== undefined) where.push(eq(callbacks.merchantId, o.merchantId));
  if (o.orderNo) where.push(eq(callbacks.orderNo, o.orderNo));
  return db
    .select()
    .from(callbacks)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(callbacks.createdAt))
    .limit(o.limit)
    .all();
}

export async function getCallback(db: DbOrTx, eventId: string): Promise<CallbackRow | undefined> {
  if (isPg(db)) return await pg.getCallback(pgOf(db), eventId);
  return db.select().from(callbacks).where(eq(callbacks.id, eventId)).get();
}

export async function callbackAttemptsOf(db: DbOrTx, eventId: string): Promise<CallbackAttemptRow[]> {
  if (isPg(db)) return await pg.callbackAttemptsOf(pgOf(db), eventId);
  return db.select().from(callbackAttempts).where(eq(callbackAttempts.callbackId, eventId)).orderBy(asc(callbackAttempts.attemptNo)).all();
}

/** Back to pending for a fresh round (attempts 0, due now), if it is still in `fromState`: the new row, or undefined. */
export async function requeueCallback(tx: Tx, eventId: string, fromState: string, now: number): Promise<CallbackRow | undefined> {
  if (isPg(tx)) return await pg.requeueCallback(pgOf(tx), eventId, fromState, now);
  return tx
    .update(callbacks)
    .set({ state: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, leaseOwner: null, lastError: null, updatedAt: now })
    .where(and(eq(callbacks.id, eventId), eq(callbacks.state, fromState)))
    .returning()
    .get();
}

/** The merchant's latest test events, newest first. */
export async function recentTestCallbackRows(db: DbOrTx, merchantId: number, limit: number): Promise<CallbackRow[]> {
  if (isPg(db)) return await pg.recentTestCallbackRows(pgOf(db), merchantId, limit);
  return db
    .select()
    .from(callbacks)
    // The kind as a literal: the partial index callbacks_test (merchant_id, created_at) serves it.
    .where(and(eq(callbacks.merchantId, merchantId), sql`${callbacks.kind} = 'test'`))
    .orderBy(desc(callbacks.createdAt))
    .limit(limit)
    .all();
}

// callbacks/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL
// handle): the outbox's writes, the operator's reads and the delivery worker's store, whose claim
// is one `FOR UPDATE SKIP LOCKED` statement with a lease owner and expiry (cluster/leases.ts
// CALLBACK_LEASES): several gateways deliver from one database and never take the same row.
import type { SQL as BunSQL } from "bun";
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { firstRow, type PgQ, pgOf, pgState } from "../db/engine";
import { pgSendGenericPlan } from "../db/tx-pg";
import { callbackAttempts, callbacks, detectionTimes, merchants } from "../db/schema-pg";
import { CALLBACK_LEASES } from "../cluster/leases";
import { FAILING_SLOTS, PAGE } from "./claim-plan";
import { ownerGone } from "../lib/process-id";
import type { AttemptRecord, CallbackAttemptRow, CallbackRow, CallbackWorkerStore, ClaimedRows, DueRow, NewCallbackRow, RecordedOutcome } from "./store";

/**
 * The claim's table: CALLBACK_LEASES returning what the worker delivers, the target resolved as on
 * SQLite (the row's url, else the merchant's default callback URL). PostgreSQL has no rowid: `rid`
 * is 0 (the worker names rows by id here; ordering is next_attempt_at, seq: migrations/pg/0431).
 */
const CLAIM_TABLE = {
  ...CALLBACK_LEASES,
  returning: `0 AS rid, id, kind, merchant_id AS "merchantId", order_no AS "orderNo", api_key_id AS "apiKeyId", payload, attempts,
    COALESCE(url, (SELECT m.default_callback_url FROM merchants m WHERE m.id = callbacks.merchant_id)) AS target`,
};

/** scheme://host[:port] of a target, as claim-plan.ts originOf reads it (null: no target, no origin slot). */
const ORIGIN = (target: string) => `COALESCE(substring(${target} FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'), ${target})`;
/** A row's target: its url, else its merchant's default callback URL. */
const TARGET = (t: string) => `COALESCE(${t}.url, (SELECT d.default_callback_url FROM merchants d WHERE d.id = ${t}.merchant_id))`;

/**
 * Due rows read per merchant per claim, SQLite's first page (claim-plan.ts PAGE): a merchant whose
 * first 32 due rows all go to saturated origins waits for them, as on SQLite between deep scans.
 */
export const CLAIM_SCAN = PAGE;

/**
 * The fair claim (DESIGN 7, issue 38; migrations/pg/0490, 0520), the SQLite planner's rules
 * (claim-plan.ts) in one statement:
 * - candidates: each merchant with pending rows (a loose index scan of callbacks_pending_merchant)
 *   gives its first CLAIM_SCAN due rows in due order (a seek per merchant), plus the 'delivering'
 *   rows whose lease ended (callbacks_lease_end: a dead gateway's claims);
 * - the slots held: every row 'delivering' under a live lease, this gateway's and the others',
 *   counted per merchant and per (merchant, origin);
 * - a (merchant, origin) takes at most `perTarget` slots with those it holds, the whole pool when
 *   the worker proved it healthy (a fast success, nothing slow in flight); a row without target
 *   (held at delivery) takes no origin slot;
 * - the free slots go round-robin, a merchant with fewer in flight first; beyond them, a merchant
 *   with nothing in flight takes one of `overflow` extra slots, so a merchant whose endpoints hang
 *   never holds back another;
 * - the picked rows are locked `FOR UPDATE SKIP LOCKED` and re-checked (still pending, or their
 *   lease still ended), looked up by primary key (`= ANY (ARRAY(…))`: with `IN (SELECT …)` the
 *   planner, expecting hundreds of picked rows, hash-joined a Seq Scan of the whole table per claim,
 *   6-14 ms under the bench's load and growing with the table): gateways claiming at once never
 *   wait for each other nor take one row. Two
 *   gateways claiming in the same instant each count the other's claims only once committed: a
 *   (merchant, origin) may briefly hold perTarget slots per gateway.
 * - a failing (merchant, origin) (its last attempts all failed, claim-plan.ts FAILING_AFTER) takes at
 *   most FAILING_SLOTS in flight, counted across the gateways (the ones that saw it fail say so);
 * $1 now, $2 owner, $3 lease ms, $4 free slots, $5 perTarget, $6 overflow slots, $7 healthy
 * (merchant, origin) keys "merchantId origin" joined by newlines, $8 the pool (a healthy origin's cap),
 * $9 failing keys (as $7), $10 a failing origin's cap.
 */
export const CLAIM_SQL = `
  WITH RECURSIVE m(id) AS (
    SELECT (SELECT min(merchant_id) FROM callbacks WHERE state = 'pending')
    UNION ALL
    SELECT (SELECT min(merchant_id) FROM callbacks WHERE state = 'pending' AND merchant_id > m.id) FROM m WHERE m.id IS NOT NULL),
  cand AS (
    (SELECT t.id, t.merchant_id, ${ORIGIN(TARGET("t"))} AS origin, 0 AS pri, t.next_attempt_at AS at, t.seq
     FROM callbacks t WHERE t.state = 'delivering' AND t.lease_until <= $1::bigint ORDER BY t.lease_until LIMIT ${CLAIM_SCAN})
    UNION ALL
    SELECT c.id, c.merchant_id, ${ORIGIN(TARGET("c"))}, 1, c.next_attempt_at, c.seq
    FROM m CROSS JOIN LATERAL (
      SELECT t.id, t.merchant_id, t.url, t.next_attempt_at, t.seq FROM callbacks t
      WHERE t.merchant_id = m.id AND ${CALLBACK_LEASES.due}
      ORDER BY ${CALLBACK_LEASES.order} LIMIT ${CLAIM_SCAN}) c
    WHERE m.id IS NOT NULL),
  busy AS (
    SELECT t.merchant_id, ${ORIGIN(TARGET("t"))} AS origin FROM callbacks t
    WHERE t.state = 'delivering' AND t.lease_until > $1::bigint),
  busy_origin AS (SELECT merchant_id, origin, count(*) AS n FROM busy WHERE origin IS NOT NULL GROUP BY merchant_id, origin),
  busy_merchant AS (SELECT merchant_id, count(*) AS n FROM busy GROUP BY merchant_id),
  per_origin AS (
    SELECT c.*, COALESCE(bo.n, 0) + row_number() OVER (PARTITION BY c.merchant_id, c.origin ORDER BY c.pri, c.at, c.seq) AS taken,
      CASE WHEN c.merchant_id || ' ' || c.origin = ANY (string_to_array($7::text, chr(10))) THEN $8::int
        WHEN c.merchant_id || ' ' || c.origin = ANY (string_to_array($9::text, chr(10))) THEN $10::int ELSE $5::int END AS cap
    FROM cand c LEFT JOIN busy_origin bo ON bo.merchant_id = c.merchant_id AND bo.origin = c.origin),
  startable AS (
    SELECT p.id, p.merchant_id, p.pri, p.at, p.seq, COALESCE(bm.n, 0) AS held,
      row_number() OVER (PARTITION BY p.merchant_id ORDER BY p.pri, p.at, p.seq) AS turn
    FROM per_origin p LEFT JOIN busy_merchant bm ON bm.merchant_id = p.merchant_id
    WHERE p.origin IS NULL OR p.taken <= p.cap),
  ranked AS (
    SELECT s.id, s.held = 0 AND s.turn = 1 AS idle,
      row_number() OVER (ORDER BY s.held + s.turn, s.pri, s.at, s.seq) AS g
    FROM startable s),
  picked AS (
    SELECT r.id FROM (
      SELECT r.*, sum(CASE WHEN r.idle AND r.g > $4::int THEN 1 ELSE 0 END) OVER (ORDER BY r.g) AS extra FROM ranked r) r
    WHERE r.g <= $4::int OR (r.idle AND r.extra <= $6::int)),
  locked AS (
    SELECT t.id FROM callbacks t
    WHERE t.id = ANY (ARRAY(SELECT id FROM picked))
      AND (t.state = 'pending' OR (t.state = 'delivering' AND t.lease_until <= $1::bigint))
    FOR UPDATE SKIP LOCKED)
  UPDATE callbacks SET lease_owner = $2::text, lease_until = $1::bigint + $3::bigint, ${CALLBACK_LEASES.onClaim}
  WHERE id = ANY (ARRAY(SELECT id FROM locked))
  RETURNING ${CLAIM_TABLE.returning}`;

/**
 * Whether a claim could take anything: a pending row due now (callbacks_pending_due) or a lease
 * ended (callbacks_lease_end), the first entry of each index (min(): one plan whatever `now` is;
 * `EXISTS (… <= $1)` as a cached generic plan walked every pending row, 0.7 ms with 2,000 retries
 * waiting). The claim runs only then: planned per execution (its
 * custom plan), it cost the server ~1-5 ms even with nothing due, and every gateway polls every
 * 200 ms, so idle gateways spent nearly all the server's idle CPU planning claims (issue 38). A
 * row due but held back (its order's earlier event unfinished, its origin's share taken) still
 * runs the claim, which decides.
 */
export const CLAIMABLE_SQL = `SELECT (SELECT min(next_attempt_at) FROM callbacks WHERE state = 'pending') <= $1::bigint
  OR (SELECT min(lease_until) FROM callbacks WHERE state = 'delivering') <= $1::bigint AS due`;

/** The planner's limits for one PostgreSQL claim (claim-plan.ts PlanLimits, and the origins proven healthy). */
export interface FairClaim {
  perTarget: number;
  overflow: number;
  /** The pool: a healthy (merchant, origin)'s cap. */
  concurrency: number;
  /** "merchantId origin" keys proven healthy (claim-plan.ts healthyKeys). */
  healthy: readonly string[];
  /** "merchantId origin" keys failing (claim-plan.ts failingKeys): FAILING_SLOTS each. */
  failing?: readonly string[];
}

/** The parameters of CLAIM_SQL; without `fair`, `limit` rows in due order, no origin share (store tests). */
export const claimParams = (now: number, owner: string, leaseMs: number, limit: number, fair?: FairClaim): unknown[] => {
  const f = fair ?? { perTarget: Math.max(1, limit), overflow: 0, concurrency: Math.max(1, limit), healthy: [] };
  return [now, owner, leaseMs, limit, f.perTarget, f.overflow, f.healthy.join("\n"), f.concurrency, (f.failing ?? []).join("\n"), Math.min(f.perTarget, FAILING_SLOTS)];
};

/** The row is still 'delivering' under this owner ($2) with its lease lasting until $3 (worker claimHolds). */
const HOLDS_SQL = `SELECT 1 AS ok FROM callbacks WHERE id = $1 AND state = 'delivering' AND lease_owner = $2::text AND lease_until >= $3::bigint`;

/** CLAIMABLE_SQL at `now` (PostgreSQL's own step of the claim, as claimParams: no SQLite twin to dispatch from). */
export const anyClaimable = async (pool: Pick<BunSQL, "unsafe">, now: number): Promise<boolean> => {
  const [r] = (await pool.unsafe(CLAIMABLE_SQL, [now])) as { due: boolean }[];
  return r?.due === true;
};

/**
 * The outcomes of attempts, as a batch in one statement (issue 38): each row moved on only where
 * it is still 'delivering' under this owner (a compare-and-set on state and owner, per row), and
 * only for those rows the attempt row and, for a delivered completed pay-in, its detection time,
 * as settle + recordAttempt + delivered do in one transaction. A gateway whose lease ended and
 * whose row another gateway took writes nothing for that row. $1 the outcomes as a JSON array, $2
 * the owner; returns the rows it moved. The ids of one batch are distinct (outcomeWriter).
 */
export const OUTCOMES_SQL = `WITH o AS (
    SELECT * FROM json_to_recordset($1::text::json) AS o(id text, state text, attempts bigint, next_at bigint, last_error text, now bigint,
      started_at bigint, duration_ms bigint, http_status bigint, response_body text, error text, url text, delivered boolean)),
  settled AS (
    UPDATE callbacks c SET state = o.state, attempts = o.attempts, next_attempt_at = o.next_at, lease_until = NULL, lease_owner = NULL, last_error = o.last_error, updated_at = o.now
    FROM o WHERE c.id = o.id AND c.state = 'delivering' AND c.lease_owner = $2::text
    RETURNING c.id, c.created_at, c.kind, c.order_no, c.order_status, o.delivered, o.now),
  attempt AS (
    INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, http_status, response_body, error, url)
    SELECT o.id, (SELECT count(*) FROM callback_attempts a WHERE a.callback_id = o.id) + 1, o.started_at, o.duration_ms, o.http_status, o.response_body, o.error, o.url
    FROM o JOIN settled s ON s.id = o.id),
  seen AS (
    UPDATE detection_times d SET callback_at = s.now FROM settled s
    WHERE d.order_no = s.order_no AND s.kind = 'payin' AND s.order_status = 'completed' AND s.delivered AND d.completed_at IS NOT NULL AND d.callback_at IS NULL)
  SELECT id, created_at AS "createdAt" FROM settled`;

/** Outcomes one statement writes at most. */
export const OUTCOME_BATCH = 64;

type OutcomeFields = { state: string; attempts: number; nextAt: number; lastError: string | null };
interface QueuedOutcome {
  id: string;
  json: Record<string, unknown>;
  delivered: boolean;
  done: (r: RecordedOutcome) => void;
  fail: (e: unknown) => void;
}

/** PostgreSQL text holds no NUL: a receiver's answer with one would fail its outcome's write for ever. */
const textOf = (s: string | null) => (s === null ? null : s.includes("\u0000") ? s.replaceAll("\u0000", "\uFFFD") : s);

/**
 * recordOutcome on PostgreSQL: the outcomes of attempts finishing together go in one statement
 * (OUTCOMES_SQL), one transaction and one WAL flush, up to OUTCOME_BATCH; one batch at a time per
 * worker, those finishing meanwhile going in the next. Before, one statement and one commit per
 * attempt: a claim's rows failing together (a receiver down) made as many commits. Each caller
 * gets its own row's answer; a batch that fails is written again row by row, so one row's error
 * is only its own.
 */
function outcomeWriter(pool: BunSQL, owner: string): NonNullable<CallbackWorkerStore["recordOutcome"]> {
  let queue: QueuedOutcome[] = [];
  let busy = false;
  const write = async (batch: QueuedOutcome[]) => {
    const rows = (await pool.unsafe(OUTCOMES_SQL, [JSON.stringify(batch.map((b) => b.json)), owner])) as { id: string; createdAt: number | string }[];
    const moved = new Map(rows.map((r) => [r.id, Number(r.createdAt)]));
    for (const b of batch) {
      const at = moved.get(b.id);
      b.done(at === undefined ? { settled: false, changedAt: null } : { settled: true, changedAt: b.delivered ? at : null });
    }
  };
  /** The next batch: distinct ids (a second outcome of one row waits for the next batch). */
  const take = (): QueuedOutcome[] => {
    const ids = new Set<string>();
    const batch: QueuedOutcome[] = [];
    const rest: QueuedOutcome[] = [];
    for (const q of queue) {
      if (batch.length < OUTCOME_BATCH && !ids.has(q.id)) {
        ids.add(q.id);
        batch.push(q);
      } else rest.push(q);
    }
    queue = rest;
    return batch;
  };
  const drain = async () => {
    while (queue.length) {
      const batch = take();
      try {
        await write(batch);
      } catch (e) {
        if (batch.length === 1) batch[0]!.fail(e);
        else for (const b of batch) await write([b]).catch(b.fail);
      }
    }
    busy = false;
  };
  return async (id, r, url, o: OutcomeFields, now) =>
    await new Promise<RecordedOutcome>((done, fail) => {
      const delivered = o.state === "delivered";
      queue.push({
        id,
        delivered,
        done,
        fail,
        json: {
          id, state: o.state, attempts: o.attempts, next_at: o.nextAt, last_error: textOf(o.lastError), now, delivered,
          started_at: r.startedAt, duration_ms: r.durationMs, http_status: r.httpStatus, response_body: textOf(r.responseBody), error: textOf(r.error), url,
        },
      });
      if (busy) return;
      busy = true;
      // After this turn: the attempts finishing in it (a claim's rows failing at once) share the batch.
      setImmediate(() => void drain());
    });
}

/** The delivery worker's statements on PostgreSQL (callbacks/store.ts callbackWorkerStore's twin). */
export function callbackWorkerStore(db: Db, owner: string): CallbackWorkerStore {
  const q = () => pgOf(db);
  const pool = pgState(db).pool;
  const mine = (id: string) => and(eq(callbacks.id, id), eq(callbacks.state, "delivering"), eq(callbacks.leaseOwner, owner));
  const releaseOf = async (o: string | null): Promise<number> =>
    (
      await q()
        .update(callbacks)
        .set({ state: "pending", leaseUntil: null, leaseOwner: null })
        .where(and(eq(callbacks.state, "delivering"), o === null ? sql`${callbacks.leaseOwner} IS NULL` : eq(callbacks.leaseOwner, o)))
        .returning({ id: callbacks.id })
    ).length;
  return {
    claimLeased: async (limit: number, leaseMs: number, now: number, fair?: FairClaim) => {
      if (!(await anyClaimable(pool, now))) return [];
      const rows: ClaimedRows = (await pgSendGenericPlan<DueRow>(pool, CLAIM_SQL, claimParams(now, owner, leaseMs, limit, fair))).map((r) => ({ ...r, merchantId: Number(r.merchantId), attempts: Number(r.attempts) }));
      if (!rows.length) rows.heldBack = true;
      return rows;
    },
    releaseAllLeases: async () => await releaseOf(owner),
    releaseCutOff: async (gone: (owner: string | null) => boolean = ownerGone) => {
      const owners = (await q().selectDistinct({ o: callbacks.leaseOwner }).from(callbacks).where(eq(callbacks.state, "delivering"))).map((r) => r.o);
      let n = await releaseOf(owner);
      for (const o of owners) if (o !== owner && gone(o)) n += await releaseOf(o);
      return n;
    },
    // The claim takes rows whose lease ended itself (leases.ts): nothing to release apart.
    expiredLeases: async () => [],
    release: async () => undefined,
    merchantsWithPending: async () => [],
    due: async () => [],
    mark: async () => false,
    hold: async (id: string, now: number) =>
      void (await q().update(callbacks).set({ state: "held", leaseUntil: null, leaseOwner: null, updatedAt: now }).where(mine(id))),
    unclaim: async (id: string) => void (await q().update(callbacks).set({ state: "pending", leaseUntil: null, leaseOwner: null }).where(mine(id))),
    recordAttempt: async (id: string, r: AttemptRecord, url: string | null) =>
      void (await q().execute(sql`INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, http_status, response_body, error, url)
        VALUES (${id}, (SELECT count(*) FROM callback_attempts WHERE callback_id = ${id}) + 1, ${r.startedAt}, ${r.durationMs}, ${r.httpStatus}, ${r.responseBody}, ${r.error}, ${url})`)),
    delivered: async (id: string, now: number) => {
      const r = await firstRow(q().select({ createdAt: callbacks.createdAt, kind: callbacks.kind, orderNo: callbacks.orderNo, status: callbacks.status }).from(callbacks).where(eq(callbacks.id, id)));
      if (!r) return null;
      if (r.kind === "payin" && r.status === "completed") {
        await q()
          .update(detectionTimes)
          .set({ callbackAt: now })
          .where(and(eq(detectionTimes.orderNo, r.orderNo), sql`${detectionTimes.completedAt} IS NOT NULL`, sql`${detectionTimes.callbackAt} IS NULL`));
      }
      return r.createdAt;
    },
    // Outcomes written together (issue 38): see outcomeWriter.
    recordOutcome: outcomeWriter(pool, owner),
    // Once per attempt, just before the send: its own text (not drizzle's select builder), one primary-key read.
    holdsClaim: async (id: string, until: number) =>
      ((await pool.unsafe(HOLDS_SQL, [id, owner, until])) as unknown[]).length === 1,
    settle: async (id: string, o: { state: string; attempts: number; nextAt: number; lastError: string | null }, now: number) =>
      (
        await q()
          .update(callbacks)
          .set({ state: o.state as CallbackRow["state"], attempts: o.attempts, nextAttemptAt: o.nextAt, leaseUntil: null, leaseOwner: null, lastError: o.lastError, updatedAt: now })
          .where(mine(id))
          .returning({ id: callbacks.id })
      ).length === 1,
  };
}

/** The callback row; false when its id exists. Its own text, not drizzle's insert builder (rebuilt per create, issue 38). */
export async function insertCallback(tx: PgQ, r: NewCallbackRow): Promise<boolean> {
  const rows = await tx.execute(sql`INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, created_at, updated_at)
    VALUES (${r.id}, ${r.merchantId}, ${r.kind}, ${r.orderNo}, ${r.status}, ${r.apiKeyId}, ${r.url}, ${r.payload}, ${r.state}, 0, ${r.now}, ${r.now}, ${r.now})
    ON CONFLICT (id) DO NOTHING RETURNING id`);
  return (rows as unknown as unknown[]).length === 1;
}

export async function merchantDefaultUrl(tx: PgQ, merchantId: number): Promise<string | null> {
  return (await firstRow(tx.select({ url: merchants.defaultCallbackUrl }).from(merchants).where(eq(merchants.id, merchantId))))?.url ?? null;
}

/**
 * Retention (DESIGN 11): up to `limit` delivered callbacks older than `cutoff`, oldest first
 * (callbacks_delivered), deleted with their attempts in one statement; how many callbacks. Rows
 * another transaction holds are skipped (the next slice or run takes them).
 */
export async function pruneDelivered(db: PgQ, cutoff: number, limit: number): Promise<number> {
  const rows = (await db.execute(sql`WITH gone AS (
      SELECT id FROM callbacks WHERE state = 'delivered' AND updated_at < ${cutoff} ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED),
    attempts AS (DELETE FROM callback_attempts WHERE callback_id IN (SELECT id FROM gone))
    DELETE FROM callbacks WHERE id IN (SELECT id FROM gone) RETURNING id`)) as unknown as unknown[];
  return rows.length;
}

export async function releaseHeldCallbacks(db: PgQ, merchantId: number, now: number): Promise<number> {
  const rows = await db
    .update(callbacks)
    .set({ state: "pending", nextAttemptAt: now, updatedAt: now })
    .where(and(eq(callbacks.merchantId, merchantId), eq(callbacks.state, "held")))
    .returning({ id: callbacks.id });
  return rows.length;
}

export async function listCallbackRows(db: PgQ, o: { state?: string; merchantId?: number; orderNo?: string; limit: number }): Promise<CallbackRow[]> {
  const where: SQL[] = [];
  if (o.state) where.push(eq(callbacks.state, o.state));
  if (o.merchantId !== undefined) where.push(eq(callbacks.merchantId, o.merchantId));
  if (o.orderNo) where.push(eq(callbacks.orderNo, o.orderNo));
  return await db
    .select()
    .from(callbacks)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(callbacks.createdAt), desc(callbacks.seq))
    .limit(o.limit);
}

export async function getCallback(db: PgQ, eventId: string): Promise<CallbackRow | undefined> {
  return await firstRow(db.select().from(callbacks).where(eq(callbacks.id, eventId)));
}

export async function callbackAttemptsOf(db: PgQ, eventId: string): Promise<CallbackAttemptRow[]> {
  return await db.select().from(callbackAttempts).where(eq(callbackAttempts.callbackId, eventId)).orderBy(asc(callbackAttempts.attemptNo));
}

export async function requeueCallback(tx: PgQ, eventId: string, fromState: string, now: number): Promise<CallbackRow | undefined> {
  return await firstRow(
    tx
      .update(callbacks)
      .set({ state: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null, leaseOwner: null, lastError: null, updatedAt: now })
      .where(and(eq(callbacks.id, eventId), eq(callbacks.state, fromState)))
      .returning(),
  );
}

export async function recentTestCallbackRows(db: PgQ, merchantId: number, limit: number): Promise<CallbackRow[]> {
  return await db
    .select()
    .from(callbacks)
    .where(and(eq(callbacks.merchantId, merchantId), sql`${callbacks.kind} = 'test'`))
    .orderBy(desc(callbacks.createdAt))
    .limit(limit);
}

/** No worker takes a row straight from its transaction here (callbacks/handoff.ts is SQLite's): the gateways claim with leases and shares counted across them. */
export async function callbackHandoff(): Promise<undefined> {
  return undefined;
}

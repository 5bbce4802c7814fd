// callbacks/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL
// handle): the outbox's writes, the operator's reads and the delivery worker's store, whose claim
// is one `FOR UPDATE SKIP LOCKED` statement with a lease owner and expiry (cluster/leases.ts
// CALLBACK_LEASES): several gateways deliver from one database and never take the same row.
import { and, asc, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { firstRow, type PgQ, pgOf, pgState } from "../db/engine";
import { callbackAttempts, callbacks, detectionTimes, merchants } from "../db/schema-pg";
import { CALLBACK_LEASES } from "../cluster/leases";
import { ownerGone } from "../lib/process-id";
import type { AttemptRecord, CallbackAttemptRow, CallbackRow, CallbackWorkerStore, DueRow, NewCallbackRow } from "./store";

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

/**
 * The claim as two seeks (issue 38; migrations/pg/0490): the pending rows due now in due order
 * (callbacks_pending_due, walked from its start until `limit` rows pass the order rule), and the
 * 'delivering' rows whose lease ended (callbacks_lease_end: a dead gateway's claims), those first;
 * both `FOR UPDATE SKIP LOCKED`, so gateways claiming at once never wait for each other nor take
 * one row. leaseClaimer's single statement ORs the two conditions, which PostgreSQL answers with a
 * bitmap scan of every due row and a sort per claim (a backlog made every claim cost the backlog).
 * $1 now, $2 owner, $3 lease ms, $4 limit. Conditions and order are CALLBACK_LEASES's.
 */
export const CLAIM_SQL = `
  WITH due AS (
    SELECT t.id FROM callbacks t
    WHERE t.state = 'pending' AND (${CALLBACK_LEASES.due})
    ORDER BY ${CALLBACK_LEASES.order} LIMIT $4::int FOR UPDATE SKIP LOCKED),
  ended AS (
    SELECT t.id FROM callbacks t
    WHERE t.state = 'delivering' AND t.lease_until <= $1::bigint
    ORDER BY t.lease_until LIMIT $4::int FOR UPDATE SKIP LOCKED),
  picked AS (SELECT id FROM ended UNION ALL SELECT id FROM due LIMIT $4::int)
  UPDATE callbacks SET lease_owner = $2::text, lease_until = $1::bigint + $3::bigint, ${CALLBACK_LEASES.onClaim}
  WHERE id IN (SELECT id FROM picked)
  RETURNING ${CLAIM_TABLE.returning}`;

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
    claimLeased: async (limit: number, leaseMs: number, now: number) =>
      ((await pool.unsafe(CLAIM_SQL, [now, owner, leaseMs, limit])) as DueRow[]).map((r) => ({ ...r, merchantId: Number(r.merchantId), attempts: Number(r.attempts) })),
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
    // One round trip for an attempt's outcome (issue 38): the attempt row, this owner's row moved
    // on, and for a delivered completed pay-in its detection time, as recordAttempt + settle +
    // delivered do in one transaction (every CTE sees the same snapshot: the row as claimed).
    recordOutcome: async (id: string, r: AttemptRecord, url: string | null, o: { state: string; attempts: number; nextAt: number; lastError: string | null }, now: number) => {
      const rows = (await q().execute(sql`WITH attempt AS (
          INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, http_status, response_body, error, url)
          VALUES (${id}, (SELECT count(*) FROM callback_attempts WHERE callback_id = ${id}) + 1, ${r.startedAt}, ${r.durationMs}, ${r.httpStatus}, ${r.responseBody}, ${r.error}, ${url})),
        settled AS (
          UPDATE callbacks SET state = ${o.state}, attempts = ${o.attempts}, next_attempt_at = ${o.nextAt}, lease_until = NULL, lease_owner = NULL, last_error = ${o.lastError}, updated_at = ${now}
          WHERE id = ${id} AND state = 'delivering' AND lease_owner = ${owner}),
        cb AS (SELECT created_at, kind, order_no, order_status FROM callbacks WHERE id = ${id} AND ${o.state === "delivered"}::boolean),
        seen AS (
          UPDATE detection_times SET callback_at = ${now}
          WHERE order_no = (SELECT order_no FROM cb WHERE kind = 'payin' AND order_status = 'completed') AND completed_at IS NOT NULL AND callback_at IS NULL)
        SELECT created_at AS "createdAt" FROM cb`)) as unknown as { createdAt: number | string }[];
      return rows[0] ? Number(rows[0].createdAt) : null;
    },
    settle: async (id: string, o: { state: string; attempts: number; nextAt: number; lastError: string | null }, now: number) =>
      void (await q()
        .update(callbacks)
        .set({ state: o.state as CallbackRow["state"], attempts: o.attempts, nextAttemptAt: o.nextAt, leaseUntil: null, leaseOwner: null, lastError: o.lastError, updatedAt: now })
        .where(mine(id))),
  };
}

export async function insertCallback(tx: PgQ, r: NewCallbackRow): Promise<boolean> {
  const row = await firstRow(
    tx
      .insert(callbacks)
      .values({
        id: r.id, merchantId: r.merchantId, kind: r.kind as CallbackRow["kind"], orderNo: r.orderNo, status: r.status, apiKeyId: r.apiKeyId, url: r.url, payload: r.payload,
        state: r.state, attempts: 0, nextAttemptAt: r.now, createdAt: r.now, updatedAt: r.now,
      })
      .onConflictDoNothing({ target: callbacks.id })
      .returning({ id: callbacks.id }),
  );
  return !!row;
}

export async function merchantDefaultUrl(tx: PgQ, merchantId: number): Promise<string | null> {
  return (await firstRow(tx.select({ url: merchants.defaultCallbackUrl }).from(merchants).where(eq(merchants.id, merchantId))))?.url ?? null;
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

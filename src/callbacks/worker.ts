// The delivery worker over the outbox (DESIGN 7). Rows are claimed with a lease
// (state 'delivering', lease_until) inside a write transaction, delivered by a
// bounded pool, and the outcome of every attempt is written back. A crash
// leaves rows 'delivering': they are reclaimed when the lease runs out, or at
// once when a gateway starts (only the serving process delivers for its
// database). Events of one order go out in the order they were written.
import { countDelivery } from "../ops/metrics";
import type { Db } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { AppContext } from "../app/context";
import { keySecret } from "../merchants/service";
import { type AttemptOutcome, deliverOnce } from "./deliver";
import type { Lookup } from "./target";

export interface WorkerOptions {
  db: Db;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  retryDelays: number[];
  concurrency: number;
  allowPrivate: boolean;
  /** Outbox poll interval; kick() polls at once. */
  pollMs?: number;
  /** Lease = timeout + this margin (DNS, writing the result). */
  leaseMarginMs?: number;
  /** stop() waits this long for deliveries in flight, then aborts and releases them. */
  shutdownGraceMs?: number;
  lookup?: Lookup;
  ca?: string;
}

export function workerOptions(ctx: AppContext, over: Partial<WorkerOptions> = {}): WorkerOptions {
  return {
    db: ctx.db,
    cipher: ctx.cipher,
    clock: ctx.clock,
    logger: ctx.logger.child({ component: "callbacks" }),
    timeoutMs: ctx.ms.callbackTimeout,
    retryDelays: ctx.ms.retryDelays,
    concurrency: ctx.config.callbacks.concurrency,
    allowPrivate: ctx.config.callbacks.allow_private_targets,
    ...over,
  };
}

interface DueRow {
  rid: number;
  id: string;
  merchantId: number;
  orderNo: string;
  apiKeyId: string;
  payload: string;
  attempts: number;
  target: string | null;
}

interface InFlight {
  row: DueRow;
  origin: string;
  abort: AbortController;
  done: Promise<void>;
}

const running = new Set<CallbackWorker>();

/** Polls every running worker of this process now (call after committing a callback). */
export function kick(): void {
  for (const w of running) w.kick();
}

/** scheme://host[:port] as written, the unit the per-target limit counts. */
export function originOf(url: string | null): string {
  if (!url) return "";
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  return m ? m[0] : url;
}

export class CallbackWorker {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly graceMs: number;
  /** One slow or dead endpoint may hold at most this many of the pool's slots. */
  readonly perTarget: number;
  private readonly inflight = new Map<string, InFlight>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private stopping = false;

  constructor(private readonly o: WorkerOptions) {
    this.pollMs = o.pollMs ?? 200;
    this.leaseMs = o.timeoutMs + (o.leaseMarginMs ?? 10_000);
    this.graceMs = o.shutdownGraceMs ?? Math.min(o.timeoutMs, 5_000);
    this.perTarget = Math.max(1, Math.ceil(o.concurrency / 2));
  }

  get maxDeliveries(): number {
    return 1 + this.o.retryDelays.length;
  }

  get inFlightCount(): number {
    return this.inflight.size;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    // Rows left 'delivering' by a previous run of this database were cut off mid-delivery.
    const n = this.o.db.$client.run(`UPDATE callbacks SET state = 'pending', lease_until = NULL WHERE state = 'delivering'`).changes;
    if (n) this.o.logger.info("callbacks reclaimed after restart", { count: n });
    running.add(this);
    this.schedule(0);
  }

  kick(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.started || this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        this.poll();
      } catch (e) {
        this.o.logger.error("callback poll failed", { error: String((e as Error)?.message ?? e) });
      }
      this.schedule(this.pollMs);
    }, ms);
  }

  /** Claims due rows up to the free pool slots and starts delivering them. */
  poll(): number {
    if (this.stopping) return 0;
    const free = this.o.concurrency - this.inflight.size;
    if (free <= 0) return 0;
    const claimed = this.claim(free);
    for (const c of claimed) this.launch(c.row, c.origin);
    return claimed.length;
  }

  private claim(free: number): Array<{ row: DueRow; origin: string }> {
    const now = this.o.clock.now();
    const perOrigin = new Map<string, number>();
    for (const f of this.inflight.values()) perOrigin.set(f.origin, (perOrigin.get(f.origin) ?? 0) + 1);
    const saturated = [...perOrigin].filter(([, n]) => n >= this.perTarget).map(([o]) => o);
    // Saturated targets are skipped in SQL so a backlog for one dead endpoint
    // cannot fill every candidate page and starve the others.
    const skip = saturated
      .filter((o) => o)
      .map(() => `AND NOT (substr(target, 1, length(?)) = ? AND substr(target, length(?) + 1, 1) IN ('', '/', '?', '#'))`)
      .join(" ");
    const skipParams = saturated.filter((o) => o).flatMap((o) => [o, o, o]);
    const sql = `
      WITH due AS (
        SELECT c.rowid AS rid, c.id, c.merchant_id AS merchantId, c.order_no AS orderNo, c.api_key_id AS apiKeyId,
               c.payload, c.attempts, c.next_attempt_at AS nextAt, COALESCE(c.url, m.default_callback_url) AS target
        FROM callbacks c LEFT JOIN merchants m ON m.id = c.merchant_id
        WHERE ((c.state = 'pending' AND c.next_attempt_at <= ?) OR (c.state = 'delivering' AND c.lease_until <= ?))
          AND NOT EXISTS (SELECT 1 FROM callbacks p
                          WHERE p.order_no = c.order_no AND p.rowid < c.rowid AND p.state IN ('pending', 'delivering'))
      )
      SELECT rid, id, merchantId, orderNo, apiKeyId, payload, attempts, target FROM due
      WHERE 1 ${skip}
      ORDER BY nextAt, rid LIMIT ?`;
    const client = this.o.db.$client;
    return client
      .transaction(() => {
        const rows = client.query<DueRow, (string | number)[]>(sql).all(now, now, ...skipParams, Math.max(free * 4, 64));
        const out: Array<{ row: DueRow; origin: string }> = [];
        const mark = client.query(`UPDATE callbacks SET state = 'delivering', lease_until = ?, updated_at = ? WHERE rowid = ?`);
        for (const row of rows) {
          if (out.length >= free) break;
          if (this.inflight.has(row.id)) continue;
          const origin = originOf(row.target);
          const n = perOrigin.get(origin) ?? 0;
          if (origin && n >= this.perTarget) continue;
          perOrigin.set(origin, n + 1);
          mark.run(now + this.leaseMs, now, row.rid);
          out.push({ row, origin });
        }
        return out;
      })
      .immediate();
  }

  private launch(row: DueRow, origin: string): void {
    const abort = new AbortController();
    const f: InFlight = { row, origin, abort, done: Promise.resolve() };
    f.done = this.deliver(row, abort.signal)
      .catch((e) => this.o.logger.error("callback delivery crashed", { eventId: row.id, error: String((e as Error)?.stack ?? e) }))
      .finally(() => {
        this.inflight.delete(row.id);
        this.schedule(0); // a slot is free, and the order's next event may now be due
      });
    this.inflight.set(row.id, f);
  }

  private async deliver(row: DueRow, signal: AbortSignal): Promise<void> {
    if (!row.target) {
      // No notifyUrl and no default URL (cleared since it was queued): held, not an attempt;
      // `merchant set --default-notify-url` releases it.
      this.o.db.$client.run(`UPDATE callbacks SET state = 'held', lease_until = NULL, updated_at = ? WHERE id = ? AND state = 'delivering'`, [this.o.clock.now(), row.id]);
      return;
    }
    let apiKey: string | undefined;
    try {
      apiKey = keySecret({ db: this.o.db, cipher: this.o.cipher }, row.apiKeyId);
    } catch (e) {
      return this.finish(row, this.failure(`API key ${row.apiKeyId} cannot be decrypted: ${(e as Error).message}`), true);
    }
    if (!apiKey) return this.finish(row, this.failure(`API key ${row.apiKeyId} not found; cannot sign the callback`), true);
    const outcome = await deliverOnce({
      url: row.target,
      body: row.payload,
      apiKey,
      timeoutMs: this.o.timeoutMs,
      allowPrivate: this.o.allowPrivate,
      now: () => this.o.clock.now(),
      signal,
      lookup: this.o.lookup,
      ca: this.o.ca,
    });
    if (signal.aborted && !outcome.ok) {
      // Shutdown cut it off: not an attempt; the next start delivers it again.
      this.o.db.$client.run(`UPDATE callbacks SET state = 'pending', lease_until = NULL WHERE id = ? AND state = 'delivering'`, [row.id]);
      return;
    }
    this.finish(row, outcome, false);
  }

  private failure(error: string): AttemptOutcome {
    return { ok: false, startedAt: this.o.clock.now(), durationMs: 0, httpStatus: null, responseBody: null, error };
  }

  /** Records the attempt and moves the row on: delivered, retry later, or failed. */
  private finish(row: DueRow, r: AttemptOutcome, final: boolean): void {
    const now = this.o.clock.now();
    const attempts = row.attempts + 1;
    let state: "delivered" | "pending" | "failed";
    let nextAt = now;
    if (r.ok) state = "delivered";
    else if (final || attempts >= this.maxDeliveries) state = "failed";
    else {
      state = "pending";
      nextAt = now + this.o.retryDelays[attempts - 1];
    }
    const client = this.o.db.$client;
    client
      .transaction(() => {
        const prior = client.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM callback_attempts WHERE callback_id = ?`).get(row.id)!.n;
        client.run(
          `INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, http_status, response_body, error) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [row.id, prior + 1, r.startedAt, r.durationMs, r.httpStatus, r.responseBody, r.error],
        );
        client.run(
          `UPDATE callbacks SET state = ?, attempts = ?, next_attempt_at = ?, lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ? AND state = 'delivering'`,
          [state, attempts, nextAt, r.ok ? null : r.error, now, row.id],
        );
      })
      .immediate();
    countDelivery(r.ok ? "delivered" : state === "failed" ? "failed" : "retry");
    const fields = { eventId: row.id, orderNo: row.orderNo, attempt: attempts, status: r.httpStatus, ms: r.durationMs };
    if (r.ok) this.o.logger.debug("callback delivered", fields);
    else if (state === "failed") this.o.logger.warn("callback failed", { ...fields, error: r.error });
    else this.o.logger.info("callback attempt failed; will retry", { ...fields, error: r.error, retryAt: new Date(nextAt).toISOString() });
  }

  /** Stops claiming; waits for deliveries in flight, then aborts and releases the rest. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    running.delete(this);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const all = () => Promise.all([...this.inflight.values()].map((f) => f.done));
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const finished = await Promise.race([
      all().then(() => true),
      new Promise<boolean>((r) => (graceTimer = setTimeout(() => r(false), this.graceMs))),
    ]);
    clearTimeout(graceTimer);
    if (!finished) {
      for (const f of this.inflight.values()) f.abort.abort();
      await all();
    }
  }
}

export function startCallbackWorker(ctx: AppContext, over: Partial<WorkerOptions> = {}): CallbackWorker {
  const w = new CallbackWorker(workerOptions(ctx, over));
  w.start();
  return w;
}

// The delivery worker over the outbox (DESIGN 7). Rows are claimed with a lease
// (state 'delivering', lease_until, written through the group commit), delivered
// by a bounded pool shared fairly across merchants and origins, and the outcome
// of every attempt is written back (batched with the group commit). A crash
// leaves rows 'delivering': they are reclaimed when the lease runs out, or at
// once when a gateway starts (only the serving process delivers for its
// database). Events of one order go out in the order they were written.
import { countDelivery, observeCallbackDelay } from "../lib/event-metrics";
import { onCallbacksDue } from "../db/callbacks-due";
import type { Db } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import { sleep, type Clock, type Timer } from "../lib/clock";
import { LogLimiter } from "../lib/log-limit";
import type { Logger } from "../lib/logger";
import type { Config } from "../config/schema";
import { keySecret } from "../merchants/service";
import { groupCommit } from "../db/group-commit";
import { type AttemptOutcome, deliverOnce, type PlainRequest } from "./deliver";
import { compatRequest, isCompatKind } from "./compat";
import { compatSecretOf } from "../merchants/compat-keys";
import type { CompatProtocol } from "../lib/compat-signing";
import { failingKeys, forgetFirstPage, healthyKeys, newPlanMemory, noteOutcome, originCap, originOf, planClaims, type PlanInFlight, SLOW_MS } from "./claim-plan";
import { callbackWorkerStore, type CallbackWorkerStore, type DueRow, type RecordedOutcome } from "./store";
import { PROCESS_ID } from "../lib/process-id";
import type { Lookup } from "./target";
import { filterSeq } from "../lib/async-seq";
import { type HandoffLease, type HandoffTaker, takeHandoffs } from "./handoff";

export interface WorkerOptions {
  db: Db;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  retryDelays: number[];
  concurrency: number;
  allowPrivate: boolean;
  /** Outbox poll interval; callbacksDue() (src/db/callbacks-due.ts) polls at once. */
  pollMs?: number;
  /** Lease = timeout + this margin (DNS, writing the result). */
  leaseMarginMs?: number;
  /** stop() waits this long for deliveries in flight, then aborts and releases them. */
  shutdownGraceMs?: number;
  lookup?: Lookup;
  ca?: string;
  /** Who holds this worker's claims (default: this process, lib/process-id.ts); tests run two owners in one process. */
  owner?: string;
  /**
   * What wakes this worker (default: callbacksDue() of this process, src/db/callbacks-due.ts,
   * which on PostgreSQL the bus also raises for the other gateways' wake-ups); tests give two
   * owners in one process each its own gateway's wake-ups.
   */
  wakeups?: (kick: () => void) => () => void;
}

/** What the worker's options are built from (the gateway's context satisfies it). */
export interface CallbackWorkerCtx {
  db: Db;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, "callbacks">;
  ms: { callbackTimeout: number; retryDelays: number[] };
}

export function workerOptions(ctx: CallbackWorkerCtx, over: Partial<WorkerOptions> = {}): WorkerOptions {
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


interface InFlight {
  row: DueRow;
  origin: string;
  /** Delivery and the write of its outcome. */
  done: Promise<void>;
  /** The answer is in; only the outcome's write is pending (the slot is free). */
  settling?: boolean;
  /** Clock time it started. */
  startedAt: number;
  /** Clock time its claim's lease ends (the claim's time + the lease). */
  leaseUntil: number;
  /** Its outcome, written: another attempt later (its row sorts after every row due now). */
  retries?: boolean;
  /** Taken from its create's transaction (callbacks/handoff.ts), with the worker's kick count then. */
  handed?: { kicks: number };
}

export { originOf };

/** An attempt's outcome to write (SQLite: batched, CallbackWorker.writeOutcome). */
interface OutcomeWrite {
  row: DueRow;
  r: AttemptOutcome;
  outcome: { state: string; attempts: number; nextAt: number; lastError: string | null };
  now: number;
}

/**
 * After a database error (a full disk, an I/O error) the worker waits before it
 * touches the database again, doubling from DB_BACKOFF_MS to DB_BACKOFF_MAX_MS:
 * never a busy loop of claims and deliveries that cannot be recorded.
 */
export const DB_BACKOFF_MS = 500;
export const DB_BACKOFF_MAX_MS = 60_000;
/**
 * PostgreSQL: leased claims start at least this far apart (real time). A kick per committed
 * callback and one per finished attempt each ran a claim (a plan and a scan on the server: ~2 ms
 * of its CPU, about half of it planning), per gateway; coalesced, one claim takes what came due
 * meanwhile. Bounds a gateway's claims to 20 a second; a callback waits at most this much more.
 * 50 ms, not 20: under the two-gateway bench the claims at 50 a second per gateway were most of
 * what (c) cost the server beyond (b), and its p99 fell from 41-53 ms to 27-32 ms (three pairs,
 * docs/performance.md "PostgreSQL: claims 50 ms apart").
 */
export const CLAIM_GAP_MS = 50;
/**
 * PostgreSQL: after a claim that found rows due but could take none (held back: their origin's
 * share taken, by this gateway's deliveries or another's, or their order's earlier event
 * unfinished), the next claim waits for one of this worker's deliveries to end or this long.
 * A kick per committed callback ran such a claim every CLAIM_GAP_MS (~1 ms of the server's CPU
 * each) while a merchant's endpoint was down or another gateway held the origin's share (issue
 * 38: half the claims under the two-gateway bench). A callback held back only by another
 * gateway's deliveries, or a new merchant's first, waits at most this much more.
 */
export const CLAIM_HELD_GAP_MS = 100;
/** A handoff slot offered to a transaction that never committed (rolled back) is free again after this long (real time, ms). */
export const OFFER_TTL_MS = 2_000;

export class CallbackWorker implements HandoffTaker {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly graceMs: number;
  /** One slow or dead endpoint of a merchant may hold at most this many of the pool's slots. */
  readonly perTarget: number;
  /**
   * Beyond the pool: a merchant with nothing in flight may always start one
   * delivery, up to this many extra slots in all, so endpoints that hang
   * (other merchants' filling the pool) never hold it back until they time out.
   */
  readonly overflow: number;
  private readonly inflight = new Map<string, InFlight>();
  /**
   * Aborts every delivery in flight at once when stop()'s grace runs out: one signal for the
   * worker, not a controller per delivery (an attempt's objects are the bench's garbage).
   */
  private readonly shutdown = new AbortController();
  private reclaimedAt = -Infinity;
  private readonly secrets = new Map<string, string>();
  /** The claim planner's memory: healthy endpoints, deep scans (claim-plan.ts). */
  private readonly plan = newPlanMemory();
  private timer: Timer | null = null;
  private timerAt = Infinity;
  /**
   * The poll running now: polls never overlap (review R4). Two polls planning from the same
   * `inflight` would both claim a row; the second launch would replace the first in `inflight`
   * and its `finally` erase it, so limits, leases and stop() would lose the real delivery.
   */
  private polling: Promise<number> | null = null;
  /** A poll asked for while one runs: the earliest clock time it is wanted (armed when it ends). */
  private wantedAt = Infinity;
  private started = false;
  private unlisten: (() => void) | null = null;
  private stopping = false;
  /** Round-robin start: the merchant served first in the last claim goes last in the next. */
  private rr = 0;
  /** The current wait after a database error (0: healthy), and the clock time it ends. */
  private backoffMs = 0;
  private blockedUntil = -Infinity;
  private readonly limited: LogLimiter;
  /**
   * Handoffs (callbacks/handoff.ts, SQLite): slots offered to rows whose transaction has not
   * committed yet (event id → its merchant's origin key and real time). One whose transaction
   * rolled back is never adopted: it is dropped after OFFER_TTL_MS.
   */
  private readonly offers = new Map<string, { key: string; at: number }>();
  /** The last claim left nothing due behind and no kick came since: a new row may skip the queue. */
  private caughtUp = false;
  /** Kicks so far (a row written to the queue, a resend, a release): a handed delivery that saw none needs no claim when it ends. */
  private kicks = 0;
  private unhand: (() => void) | null = null;

  /** Every statement the worker runs (callbacks/store.ts). */
  private readonly store: ReturnType<typeof callbackWorkerStore>;

  private readonly owner: string;

  constructor(private readonly o: WorkerOptions) {
    this.owner = o.owner ?? PROCESS_ID;
    this.store = callbackWorkerStore(o.db, this.owner);
    this.pollMs = o.pollMs ?? 200;
    this.leaseMs = o.timeoutMs + (o.leaseMarginMs ?? 10_000);
    this.graceMs = o.shutdownGraceMs ?? Math.min(o.timeoutMs, 5_000);
    this.perTarget = Math.max(1, Math.ceil(o.concurrency / 2));
    this.overflow = o.concurrency;
    this.limited = new LogLimiter(o.logger, () => o.clock.now());
  }

  /** The wait after the last database error; 0 once a write succeeded again. */
  get dbBackoffMs(): number {
    return this.backoffMs;
  }

  /** A database write failed: nothing is claimed or retried before the (doubling) wait is over. */
  private dbFailed(what: string, e: unknown): void {
    this.backoffMs = this.backoffMs ? Math.min(DB_BACKOFF_MAX_MS, this.backoffMs * 2) : DB_BACKOFF_MS;
    this.blockedUntil = this.o.clock.now() + this.backoffMs;
    this.limited.log("error", "callbacks:db", what, { error: String((e as Error)?.message ?? e), backoffMs: this.backoffMs });
    // A poll armed sooner must not run inside the wait.
    this.timer?.cancel();
    this.timer = null;
    this.timerAt = Infinity;
    this.schedule(0);
  }

  private dbOk(): void {
    if (!this.backoffMs) return;
    this.o.logger.info("callback worker: database writes succeed again", { backoffMs: this.backoffMs });
    this.limited.reset("callbacks:db");
    this.backoffMs = 0;
    this.blockedUntil = -Infinity;
  }

  get maxDeliveries(): number {
    return 1 + this.o.retryDelays.length;
  }

  /**
   * Whether a callback due now would be claimed by this worker at once: running, not waiting
   * after a database error, a free slot (callbacks/cluster-wake.ts wakes the other gateways otherwise).
   */
  get hasRoom(): boolean {
    return this.started && !this.stopping && this.o.clock.now() >= this.blockedUntil && this.inFlightCount < this.o.concurrency;
  }

  get inFlightCount(): number {
    let n = 0;
    for (const f of this.inflight.values()) if (!f.settling) n++;
    return n;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Rows left 'delivering' by this process, or by one known dead (a previous run killed on this
    // host), were cut off mid-delivery; another live process's claims are its own until their lease ends.
    const n = await this.store.releaseCutOff();
    if (n) this.o.logger.info("callbacks reclaimed after restart", { count: n });
    this.unlisten = (this.o.wakeups ?? onCallbacksDue)(() => this.kick());
    // PostgreSQL's gateways claim with leases and shares counted across them: no handoffs there.
    if (!this.store.claimLeased) this.unhand = takeHandoffs(this.o.db.$client, this);
    this.schedule(0);
  }

  kick(): void {
    this.kicks++;
    this.caughtUp = false;
    this.schedule(0);
  }

  /**
   * A slot for a new order's first callback, straight from its transaction (callbacks/handoff.ts):
   * only while the last claim left nothing due behind (no older row waits for a slot), the pool
   * and the (merchant, origin)'s share have room counting the slots offered and not yet adopted,
   * and no database error is being waited out.
   */
  offer(id: string, merchantId: number, target: string): HandoffLease | null {
    if (!this.caughtUp || this.stopping || !this.started) return null;
    const now = this.o.clock.now();
    if (now < this.blockedUntil) return null;
    const t = performance.now();
    let offered = 0;
    const key = merchantId + " " + originOf(target);
    let sameKey = 0;
    for (const [k, o] of this.offers) {
      if (t - o.at > OFFER_TTL_MS) this.offers.delete(k);
      else {
        offered++;
        if (o.key === key) sameKey++;
      }
    }
    let inUse = offered;
    let slow = false;
    for (const f of this.inflight.values()) {
      if (f.settling) continue;
      inUse++;
      if (f.row.merchantId + " " + f.origin === key) {
        sameKey++;
        if (now - f.startedAt > SLOW_MS) slow = true;
      }
    }
    if (inUse >= this.o.concurrency) return null;
    if (sameKey >= originCap(this.plan, key, slow, now, { concurrency: this.o.concurrency, perTarget: this.perTarget })) return null;
    this.offers.set(id, { key, at: t });
    return { owner: this.owner, until: now + this.leaseMs };
  }

  /** The offered row is committed: delivered like a claimed one (its claim was committed with it). */
  adopt(row: DueRow, leaseUntil: number): void {
    this.offers.delete(row.id);
    if (this.stopping) {
      // Not started: back to the queue (else the next start releases it).
      void this.store.unclaim(row.id).catch(() => undefined);
      return;
    }
    this.launch(row, originOf(row.target), Promise.resolve(new Set([row.id])), leaseUntil, { kicks: this.kicks });
  }

  cancel(id: string): void {
    this.offers.delete(id);
  }

  /**
   * Arms the poll timer for `ms` from now unless it already fires sooner: a
   * stream of kicks (one per committed callback) can never push a due poll back.
   */
  private schedule(ms: number): void {
    if (!this.started || this.stopping) return;
    // Clock time (src/lib/clock.ts): with a test clock, polls and retries come due as the test moves it.
    const now = this.o.clock.now();
    // After a database error, nothing polls before the wait is over (kicks included).
    const at = Math.max(now + ms, this.blockedUntil);
    ms = at - now;
    if (this.polling) {
      this.wantedAt = Math.min(this.wantedAt, at);
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.o.clock.after(ms, async () => {
      this.timer = null;
      this.timerAt = Infinity;
      try {
        await this.poll();
      } catch (e) {
        this.dbFailed("callback poll failed", e);
      }
      this.schedule(this.pollMs);
    });
  }

  /** Marks of claimed rows waiting for their group commit (stop() waits for them). */
  private marking: Promise<void> | null = null;

  /**
   * Claims due rows up to the free slots. The rows are reserved in memory at
   * once (another process's claims are told apart by their lease owner); their
   * 'delivering' mark goes through the group commit, its fsync shared with
   * requests and finished deliveries, and a row is delivered only once that
   * commit has returned (DESIGN 16). A mark that fails (a full disk) sends
   * nothing: the rows stay pending and the worker backs off.
   */
  async poll(): Promise<number> {
    if (this.polling) return await this.polling;
    const run = this.claimAndLaunch();
    this.polling = run;
    try {
      return await run;
    } finally {
      this.polling = null;
      const wanted = this.wantedAt;
      this.wantedAt = Infinity;
      if (wanted < Infinity) this.schedule(Math.max(0, wanted - this.o.clock.now()));
    }
  }

  private async claimAndLaunch(): Promise<number> {
    if (this.stopping || this.o.clock.now() < this.blockedUntil) return 0;
    if (this.store.claimLeased) {
      await this.claimGap();
      if (this.stopping) return 0;
      return await this.claimLeasedAndLaunch(this.store.claimLeased);
    }
    const kicks = this.kicks;
    const report = { leftBehind: true };
    const claimed = await this.claim(report);
    // Caught up: every row due was started, and nothing was written to the queue meanwhile.
    this.caughtUp = !report.leftBehind && this.kicks === kicks;
    // Nothing is written for a claim before its mark: rows claimed while stop() began are left pending.
    if (!claimed.length || this.stopping) return 0;
    const now = this.o.clock.now();
    const mark = groupCommit(this.o.db).run({
      // Only rows still pending are marked (a resend or another run may have moved one).
      work: async () => new Set((await filterSeq(claimed, async (c) => await this.store.mark(c.row.rid, now + this.leaseMs, now))).map((c) => c.row.id)),
    });
    const marked = mark.then(
      (ids) => (this.dbOk(), ids),
      (e) => (this.dbFailed("callback claim not recorded; nothing sent", e), new Set<string>()),
    );
    this.marking = Promise.all([this.marking, marked]).then(() => {});
    for (const c of claimed) this.launch(c.row, c.origin, marked, now + this.leaseMs);
    return claimed.length;
  }

  /**
   * PostgreSQL: one statement claims up to the free slots under the planner's limits (a share per
   * merchant and origin counting every gateway's claims, round-robin, overflow slots for merchants
   * with nothing in flight: store.pg.ts CLAIM_SQL), FOR UPDATE SKIP LOCKED with this process's
   * lease (cluster/leases.ts), committed before anything is sent; rows another gateway holds are
   * skipped, never waited for.
   */
  private async claimLeasedAndLaunch(claimLeased: NonNullable<CallbackWorkerStore["claimLeased"]>): Promise<number> {
    const cap = this.o.concurrency;
    const inUse = this.inFlightCount;
    const free = Math.max(0, cap - inUse);
    const overflow = Math.max(0, cap + this.overflow - Math.max(inUse, cap));
    if (free + overflow <= 0) return 0;
    const now = this.o.clock.now();
    const fair = { perTarget: this.perTarget, overflow, concurrency: cap, healthy: healthyKeys(this.plan, this.planInFlight(), now), failing: failingKeys(this.plan) };
    let rows: DueRow[];
    try {
      const ended = this.deliveriesEnded;
      const claimed = await claimLeased(free, this.leaseMs, now, fair);
      // A delivery that ended while the claim ran may have freed what held it back: no wait then.
      this.heldBack = claimed.heldBack === true && this.deliveriesEnded === ended;
      rows = claimed.filter((r) => !this.inflight.has(r.id));
      this.dbOk();
    } catch (e) {
      this.dbFailed("callback claim failed; nothing sent", e);
      return 0;
    }
    if (this.stopping) {
      // Claimed while stop() began: back to pending at once, not when the lease ends.
      for (const r of rows) await this.store.unclaim(r.id).catch(() => undefined);
      return 0;
    }
    const marked = Promise.resolve(new Set(rows.map((r) => r.id)));
    for (const r of rows) this.launch(r, originOf(r.target), marked, now + this.leaseMs);
    return rows.length;
  }

  /** Real time the last leased claim started (CLAIM_GAP_MS). */
  private lastClaimAt = -Infinity;
  /** The last leased claim found rows due and took none (CLAIM_HELD_GAP_MS); cleared when a delivery of this worker ends. */
  private heldBack = false;
  /** Ends a claim's wait early: one of this worker's deliveries ended while the last claim was held back. */
  private endGap: (() => void) | null = null;
  /** Deliveries of this worker ended so far. */
  private deliveriesEnded = 0;

  /** A delivery of this worker ended: a slot (and maybe its origin's share, its order's next event) is free. */
  private deliveryEnded(): void {
    this.deliveriesEnded++;
    this.heldBack = false;
    this.endGap?.();
  }

  /**
   * Waits out CLAIM_GAP_MS since the last leased claim, CLAIM_HELD_GAP_MS after a held-back one
   * until one of this worker's deliveries ends (kicks meanwhile join the next poll: `polling` is set).
   */
  private async claimGap(): Promise<void> {
    const gap = () => this.lastClaimAt + (this.heldBack ? CLAIM_HELD_GAP_MS : CLAIM_GAP_MS) - performance.now();
    for (let wait = gap(); wait > 0 && !this.stopping; wait = gap()) {
      await new Promise<void>((woken) => {
        const t = setTimeout(woken, wait);
        this.endGap = () => (clearTimeout(t), woken());
      });
      this.endGap = null;
    }
    this.lastClaimAt = performance.now();
  }

  /** Fair claiming (DESIGN 7): the planner (claim-plan.ts) picks, on this worker's clock. */
  private async claim(report: { leftBehind: boolean }): Promise<Array<{ row: DueRow; origin: string }>> {
    const st = this.store;
    const now = this.o.clock.now();
    // Expired leases (another run's rows, cut off) at most once per poll interval, not per claim.
    if (now - this.reclaimedAt >= this.pollMs || now < this.reclaimedAt) {
      for (const r of await st.expiredLeases(now)) {
        if (this.inflight.has(r.id)) continue;
        await st.release(r.rid, now);
        forgetFirstPage(this.plan); // a released row may sort before a kept first page
      }
      this.reclaimedAt = now;
    }
    return await planClaims({
      now,
      merchants: await st.merchantsWithPending(),
      turn: this.rr++,
      inflight: this.planInFlight(),
      limits: { concurrency: this.o.concurrency, perTarget: this.perTarget, overflow: this.overflow },
      memory: this.plan,
      readDue: async (m, after, limit) => await st.due(m, now, after, limit),
      report,
    });
  }

  /** What is in flight, as the planner counts it. */
  private planInFlight(): PlanInFlight[] {
    return [...this.inflight.values()].map((f) => ({ id: f.row.id, merchantId: f.row.merchantId, origin: f.origin, startedAt: f.startedAt, settling: f.settling }));
  }

  /** `marked` settles once the claim's 'delivering' mark is committed, with the rows it marked. */
  private launch(row: DueRow, origin: string, marked: Promise<Set<string>>, leaseUntil: number, handed?: InFlight["handed"]): void {
    // Never two deliveries of one row from this worker (the planner skips rows in flight; this keeps it so).
    if (this.inflight.has(row.id)) return;
    const f: InFlight = { row, origin, done: Promise.resolve(), startedAt: this.o.clock.now(), leaseUntil, handed };
    f.done = this.deliver(row, this.shutdown.signal, marked)
      .catch((e) => this.o.logger.error("callback delivery crashed", { eventId: row.id, error: String((e as Error)?.stack ?? e) }))
      .finally(() => {
        if (this.inflight.get(row.id) === f) this.inflight.delete(row.id);
        // Its row left the due set for good (a row of its order behind it may be due now) or went
        // back to where it was: the merchant's kept first page may be wrong. A retry changes
        // neither: its row is due again after every row due now, and still holds its order's next.
        if (!f.retries) forgetFirstPage(this.plan, row.merchantId);
        this.deliveryEnded();
        // A slot is free, and the order's next event may now be due; not for a handed row when
        // nothing waits (caught up, no row written to the queue since it started: its order has no next).
        if (!this.quietEnd(f)) this.schedule(0);
      });
    this.inflight.set(row.id, f);
  }

  private async deliver(row: DueRow, signal: AbortSignal, markedP: Promise<Set<string>>): Promise<void> {
    // Never before the claim is committed: a delivery whose claim is lost would be sent again.
    if (!(await markedP).has(row.id)) return;
    if (!row.target) {
      // No notifyUrl and no default URL (cleared since it was queued): held, not an attempt;
      // `merchant set --default-notify-url` releases it.
      await this.write("callback hold not recorded", async () =>
        await this.store.hold(row.id, this.o.clock.now()),
      );
      return;
    }
    if (isCompatKind(row.kind)) return this.deliverCompat(row, row.kind, row.target, signal);
    let apiKey: string | undefined;
    try {
      // A key id's secret never changes (rotation makes a new key): decrypt it once.
      apiKey = this.secrets.get(row.apiKeyId) ?? await keySecret({ db: this.o.db, cipher: this.o.cipher }, row.apiKeyId);
      if (apiKey !== undefined && this.secrets.size < 10_000) this.secrets.set(row.apiKeyId, apiKey);
    } catch (e) {
      return this.finish(row, this.failure(`API key ${row.apiKeyId} cannot be decrypted: ${(e as Error).message}`), true);
    }
    if (!apiKey) return this.finish(row, this.failure(`API key ${row.apiKeyId} not found; cannot sign the callback`), true);
    await this.settle(row, await this.attempt(row.id, row.target, row.payload, apiKey, signal), signal);
  }

  /** One delivery attempt with the worker's limits (a shop protocol's own request when `plain` is given). */
  private attempt(id: string, url: string, body: string, apiKey: string, signal: AbortSignal, plain?: PlainRequest): Promise<AttemptOutcome> {
    const mayStillSend = this.store.holdsClaim ? () => this.claimHolds(id) : undefined;
    return deliverOnce({ url, body, apiKey, timeoutMs: this.o.timeoutMs, allowPrivate: this.o.allowPrivate, now: () => this.o.clock.now(), signal, lookup: this.o.lookup, ca: this.o.ca, plain, mayStillSend });
  }

  /**
   * PostgreSQL, just before a request goes out: the claim is still this gateway's and its lease
   * outlasts the attempt (now + timeout). First the clock (free: a gateway frozen past its lease
   * sees it at once when it resumes), then the row (one primary-key read: another gateway may have
   * taken it on a clock ahead of this one's, or an operator resent it). A read that fails sends
   * nothing either: the row stays claimed until its lease ends, then any gateway takes it.
   * The window left: a gateway frozen after this check, mid-send, whose lease ends before it
   * resumes (docs/postgresql.md "Callbacks"). The read is kept however fresh the claim: only another
   * gateway's clock decides when it may take the row, and this process's clock cannot tell (same place).
   */
  private async claimHolds(id: string): Promise<boolean> {
    const f = this.inflight.get(id);
    const until = this.o.clock.now() + this.o.timeoutMs;
    if (!f || until > f.leaseUntil) return false;
    try {
      return await this.store.holdsClaim!(id, until);
    } catch (e) {
      this.limited.log("warn", "callbacks:holds", "callback claim could not be checked; not sent", { eventId: id, error: String((e as Error)?.message ?? e) });
      return false;
    }
  }

  /** A shop plugin's callback (DESIGN 19): signed with the merchant's key in force now, in the protocol's shape. */
  private async deliverCompat(row: DueRow, protocol: CompatProtocol, target: string, signal: AbortSignal): Promise<void> {
    let secret: string | undefined;
    try {
      secret = await compatSecretOf({ db: this.o.db, cipher: this.o.cipher }, row.merchantId, protocol);
    } catch (e) {
      return this.finish(row, this.failure(`${protocol} key cannot be decrypted: ${(e as Error).message}`), true);
    }
    if (!secret) return this.finish(row, this.failure(`the merchant has no ${protocol} key any more; cannot sign the callback`), true);
    await this.settle(row, await this.attempt(row.id, target, row.payload, "", signal, compatRequest(protocol, target, row.payload, secret)), signal);
  }

  /** After an attempt: free its slot, note the origin's health, record the outcome. */
  private async settle(row: DueRow, outcome: AttemptOutcome, signal: AbortSignal): Promise<void> {
    if (outcome.notSent) {
      // The claim ended (its lease ran out while this gateway was frozen or slow, and another
      // gateway may have taken and delivered it): nothing sent, nothing recorded. A row nobody
      // took is claimable again (its lease ended), by any gateway.
      this.o.logger.warn("callback not sent: its claim ended before the request went out", { eventId: row.id, orderNo: row.orderNo });
      this.schedule(0);
      return;
    }
    const f = this.inflight.get(row.id);
    if (f) {
      f.settling = true;
      noteOutcome(this.plan, row.merchantId, f.origin, outcome.ok, outcome.durationMs, this.o.clock.now());
    }
    // Its slot is free now (nothing to claim for it after a handed row while caught up). On a timer, not in this turn (branch hot5 claimed in the turn): under create load a claim per
    // freed slot read a due page and wrote its marks for one or two rows each, and the bench's
    // create groups grew from 19.7 to 23.5 writes (CPU per create 1.05-1.27x -> 1.16-1.41x the
    // floor, alternated runs, 2026-11-29 16:35-16:45); draining alone it saved commits.
    if (!f || !this.quietEnd(f)) this.schedule(0);
    if (signal.aborted && !outcome.ok) {
      // Shutdown cut it off: not an attempt; the next start delivers it again.
      await this.write("callback release not recorded", async () =>
        await this.store.unclaim(row.id),
      );
      return;
    }
    await this.finish(row, outcome, false, signal);
  }

  /** A direct write whose failure only delays the row (its lease runs out; it is claimed again). */
  private async write(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
      this.dbOk();
    } catch (e) {
      this.dbFailed(what, e);
    }
  }

  private failure(error: string): AttemptOutcome {
    return { ok: false, startedAt: this.o.clock.now(), durationMs: 0, httpStatus: null, responseBody: null, error };
  }

  /**
   * Records the attempt and moves the row on: delivered, retry later, or failed.
   * Written through the group commit: the outcomes of deliveries finishing
   * together (and concurrent requests) share one transaction and one fsync.
   * An outcome that cannot be written (a full disk) is kept in memory and
   * written again after each backoff, the row staying reserved: what was sent
   * is never sent again because its record failed. Only shutdown gives up
   * (the row stays 'delivering'; the next start delivers it again, at least once).
   */
  private async finish(row: DueRow, r: AttemptOutcome, final: boolean, signal?: AbortSignal): Promise<void> {
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
    const st = this.store;
    let recorded: RecordedOutcome = { settled: false, changedAt: null };
    let tries = 0;
    for (;;) {
      try {
        const outcome = { state, attempts, nextAt, lastError: r.ok ? null : r.error };
        // Only this owner's claim moves on (a compare-and-set on the owner); the attempt is written only when it did.
        if (st.recordOutcome) recorded = await st.recordOutcome(row.id, r, row.target, outcome, now);
        // SQLite: with the outcomes of the attempts that finished meanwhile (one group-commit job);
        // after a failure alone, so one row's write that keeps failing holds back no other.
        else recorded = await this.writeOutcome({ row, r, outcome, now }, tries++ === 0);
        this.dbOk();
        const f = this.inflight.get(row.id);
        if (f && state === "pending" && nextAt > now) f.retries = true;
        break;
      } catch (e) {
        this.dbFailed("callback outcome not recorded; kept in memory", e);
        if (this.stopping || signal?.aborted) return;
        try {
          await sleep(this.o.clock, Math.max(0, this.blockedUntil - this.o.clock.now()), signal);
        } catch {
          return;
        }
      }
    }
    const fields = { eventId: row.id, orderNo: row.orderNo, attempt: attempts, status: r.httpStatus, ms: r.durationMs };
    if (!recorded.settled) {
      // Its lease ended and another gateway took the row (the send was already under way): that one's record stands.
      this.o.logger.warn("callback attempt not recorded: the claim is no longer this gateway's", { ...fields, ok: r.ok });
      return;
    }
    countDelivery(r.ok ? "delivered" : state === "failed" ? "failed" : "retry");
    if (recorded.changedAt !== null) observeCallbackDelay(recorded.changedAt, now);
    if (r.ok) this.o.logger.debug("callback delivered", fields);
    else if (state === "failed") this.o.logger.warn("callback failed", { ...fields, error: r.error });
    else this.o.logger.info("callback attempt failed; will retry", { ...fields, error: r.error, retryAt: new Date(nextAt).toISOString() });
  }

  /**
   * SQLite: the outcomes waiting for their group-commit job to start. Attempts that finish
   * together (a claim's rows failing at once) share one job: one savepoint, one closure and one
   * promise for all of them instead of one each; every row is still its own compare-and-set on
   * state and owner, and the whole job commits (or rolls back) in one transaction.
   */
  private outcomes: { items: OutcomeWrite[]; done: Promise<RecordedOutcome[]> } | null = null;

  /** Writes one attempt's outcome through the group commit, `batched` with others whose job has not started. */
  private async writeOutcome(w: OutcomeWrite, batched: boolean): Promise<RecordedOutcome> {
    if (!batched) return (await this.outcomeJob(null, [w]))[0]!;
    let batch = this.outcomes;
    const i = batch ? batch.items.push(w) - 1 : 0;
    if (!batch) {
      const items = [w];
      // run() only queues the job (group-commit.ts): `done` is set before the job can start.
      batch = this.outcomes = { items, done: Promise.resolve([]) };
      batch.done = this.outcomeJob(batch, items);
    }
    return (await batch.done)[i]!;
  }

  /** One group-commit job writing `ws` in order (a batch closes when its job starts: later outcomes open the next). */
  private async outcomeJob(batch: { items: OutcomeWrite[] } | null, ws: OutcomeWrite[]): Promise<RecordedOutcome[]> {
    const st = this.store;
    return await groupCommit(this.o.db).run({
      work: async () => {
        if (batch && this.outcomes === batch) this.outcomes = null;
        const out: RecordedOutcome[] = [];
        for (const { row, r, outcome, now } of ws) {
          if (!(await st.settle(row.id, outcome, now, row.rid))) out.push({ settled: false, changedAt: null });
          else {
            await st.recordAttempt(row.id, r, row.target);
            out.push({ settled: true, changedAt: r.ok ? await st.delivered(row.id, now) : null });
          }
        }
        return out;
      },
    });
  }

  /** A handed delivery's end while caught up with no kick since it started: no claim needed for it. */
  private quietEnd(f: InFlight): boolean {
    return f.handed !== undefined && this.caughtUp && this.kicks === f.handed.kicks;
  }

  /** Stops claiming; waits for deliveries in flight, then aborts and releases the rest. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.unhand?.();
    this.unhand = null;
    this.unlisten?.();
    this.unlisten = null;
    this.timer?.cancel();
    this.timer = null;
    this.endGap?.(); // a claim waiting out its gap runs no more (stopping)
    // The grace period counts from here (armed before any await, so a test clock moved right after stop() ends it).
    let graceTimer: Timer | undefined;
    const grace = new Promise<boolean>((r) => (graceTimer = this.o.clock.after(this.graceMs, async () => r(false))));
    // A poll under way may still launch what it claimed before `stopping` was set: wait for it first.
    await this.polling?.catch(() => 0);
    await this.marking;
    const all = () => Promise.all([...this.inflight.values()].map((f) => f.done));
    const finished = await Promise.race([all().then(() => true), grace]);
    graceTimer?.cancel();
    if (!finished) {
      this.shutdown.abort();
      await all();
    }
  }
}

export async function startCallbackWorker(ctx: CallbackWorkerCtx, over: Partial<WorkerOptions> = {}): Promise<CallbackWorker> {
  const w = new CallbackWorker(workerOptions(ctx, over));
  await w.start();
  return w;
}

// Which due callbacks the worker starts next (DESIGN 7, fair claiming), as a pure function of
// its inputs: the clock's time, the merchants with pending rows, what is in flight, and a page
// reader for each merchant's due rows. No timers, no database, no performance.now(): the
// worker (callbacks/worker.ts) passes its injected clock's time and its statements, and the
// table-driven tests (claim-plan.test.ts) pass arrays.

/**
 * A (merchant, origin) whose last delivery succeeded within SLOW_MS, with nothing in flight
 * longer than that, may use the whole pool (a burst of 1,000 completions to one healthy
 * endpoint); any other holds at most `perTarget` slots. A hanging endpoint never qualifies.
 */
export const SLOW_MS = 1000;
export const HEALTHY_FOR_MS = 5000;

/**
 * A (merchant, origin) whose last FAILING_AFTER attempts all failed (an error status, a timeout, a
 * refused or unresolvable target) is probed with at most FAILING_SLOTS deliveries at a time until
 * one succeeds. Its rows wait their turn as pending rows, their attempts not spent: a shop that is
 * down gets a trickle of probes instead of every due callback at once, each failing and moving on
 * to its next retry delay; the first success lifts the limit (and, fast, proves it healthy).
 * Measured: the bench's creates notify a name that does not resolve, and its attempts at 8 slots
 * were ~18 % of a create's CPU and most of the RSS spikes (docs/performance.md, "A failing
 * endpoint is probed").
 */
export const FAILING_AFTER = 3;
export const FAILING_SLOTS = 2;

/** Due rows read per page, and pages per merchant per claim. */
export const PAGE = 32;
export const MAX_PAGES = 4;
/**
 * Pages after a merchant's first are read at most this often: while its first page holds only
 * rows of saturated origins (a dead endpoint's backlog), every poll (one per commit under load)
 * would otherwise re-read MAX_PAGES pages to start nothing. Its other origins wait this long at most.
 */
export const DEEP_SCAN_MS = 100;
/**
 * A kept first page with fewer rows left than this is read again: the next claim then sees a
 * whole page, and pages past the first stay a deep scan's (throttled) business.
 */
export const KEEP_MIN = PAGE / 2;

/** scheme://host[:port] as written, the unit the per-target limit counts. */
export function originOf(url: string | null): string {
  if (!url) return "";
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  return m ? m[0] : url;
}

/** What the planner reads of a due row. */
export interface PlanRow {
  /** Position in due order (with nextAt): the next page starts after it. */
  rid: number;
  nextAt: number;
  id: string;
  merchantId: number;
  /** Where it goes; null: held (no target), it takes no origin slot. */
  target: string | null;
}

/** A delivery in flight, as the planner counts it. */
export interface PlanInFlight {
  id: string;
  merchantId: number;
  origin: string;
  /** Clock time it started. */
  startedAt: number;
  /** Its answer is in and only its outcome's write is pending: it holds no slot. */
  settling?: boolean;
}

export interface PlanLimits {
  /** The pool. */
  concurrency: number;
  /** Slots one (merchant, origin) may hold unless proven healthy. */
  perTarget: number;
  /** Extra slots beyond the pool, one per merchant with nothing in flight. */
  overflow: number;
}

/** The planner's memory between claims, kept by the worker. */
export interface PlanMemory {
  /** (merchant, origin) key → clock time until which it counts as healthy. */
  healthyUntil: Map<string, number>;
  /** (merchant, origin) key → attempts failed in a row since its last success (FAILING_AFTER). */
  failures: Map<string, number>;
  /** Merchant → clock time of its last deep scan (pages past the first). */
  deepScanAt: Map<number, number>;
  /**
   * Merchant → its first page of due rows as last read, kept while that page was full, less the
   * rows started from it since (while at least KEEP_MIN remain). A kick (one per commit under load)
   * or a freed slot then plans on it instead of reading the same 32 rows again: rows made since
   * sort after a full page (they are due now or later, as is a retry's next attempt), so the page
   * cannot change but by rows leaving it, which the worker reports (forgetFirstPage: a delivery of
   * the merchant ended otherwise than with a retry, leases were released). Kept DEEP_SCAN_MS at most.
   */
  firstPage: Map<number, { at: number; rows: readonly PlanRow[]; after: { nextAt: number; rid: number } }>;
}

export function newPlanMemory(): PlanMemory {
  return { healthyUntil: new Map(), failures: new Map(), deepScanAt: new Map(), firstPage: new Map() };
}

/** A merchant's first page may have changed (one of its deliveries ended); undefined: every merchant's (leases released). */
export function forgetFirstPage(mem: PlanMemory, merchantId?: number): void {
  if (merchantId === undefined) mem.firstPage.clear();
  else mem.firstPage.delete(merchantId);
}

const keyOf = (merchantId: number, origin: string) => merchantId + " " + origin;

/**
 * After a delivery: a fast success proves its (merchant, origin) healthy for HEALTHY_FOR_MS;
 * anything else ends that. A success ends a run of failures; a failure adds to it (FAILING_AFTER).
 */
export function noteOutcome(mem: PlanMemory, merchantId: number, origin: string, ok: boolean, durationMs: number, now: number): void {
  const k = keyOf(merchantId, origin);
  if (ok && durationMs < SLOW_MS) mem.healthyUntil.set(k, now + HEALTHY_FOR_MS);
  else mem.healthyUntil.delete(k);
  if (ok) mem.failures.delete(k);
  else mem.failures.set(k, (mem.failures.get(k) ?? 0) + 1);
  if (mem.healthyUntil.size > 10_000) mem.healthyUntil.clear();
  if (mem.failures.size > 10_000) mem.failures.clear();
}

/** Whether the (merchant, origin)'s last FAILING_AFTER attempts all failed. */
export function isFailing(mem: PlanMemory, key: string): boolean {
  return (mem.failures.get(key) ?? 0) >= FAILING_AFTER;
}

/** The slots a (merchant, origin) may hold: the pool when healthy (and nothing slow in flight), FAILING_SLOTS while failing, else perTarget. */
export function originCap(mem: PlanMemory, key: string, slowInFlight: boolean, now: number, limits: Pick<PlanLimits, "concurrency" | "perTarget">): number {
  if (!slowInFlight && (mem.healthyUntil.get(key) ?? 0) > now) return limits.concurrency;
  if (isFailing(mem, key)) return Math.min(limits.perTarget, FAILING_SLOTS);
  return limits.perTarget;
}

/** The (merchant, origin) keys that are failing (PostgreSQL's claim caps them in SQL, callbacks/store.pg.ts). */
export function failingKeys(mem: PlanMemory): string[] {
  const out: string[] = [];
  for (const [k, n] of mem.failures) if (n >= FAILING_AFTER) out.push(k);
  return out;
}

/**
 * The (merchant, origin) keys that may use the whole pool now (PostgreSQL's claim applies the
 * same rule in SQL, callbacks/store.pg.ts): proven healthy, nothing of theirs in flight longer than SLOW_MS.
 */
export function healthyKeys(mem: PlanMemory, inflight: Iterable<PlanInFlight>, now: number): string[] {
  const slow = new Set<string>();
  for (const f of inflight) if (!f.settling && now - f.startedAt > SLOW_MS) slow.add(keyOf(f.merchantId, f.origin));
  const out: string[] = [];
  for (const [k, until] of mem.healthyUntil) if (until > now && !slow.has(k)) out.push(k);
  return out;
}

export interface PlanInput<R extends PlanRow> {
  /** The injected clock's time. */
  now: number;
  /** Merchants with pending rows, in id order. */
  merchants: readonly number[];
  /** Round-robin turn: the rotation starts at merchants[turn % merchants.length]. */
  turn: number;
  inflight: Iterable<PlanInFlight>;
  limits: PlanLimits;
  memory: PlanMemory;
  /** One page of a merchant's due rows after a position, in due order (nextAt, rid), at most `limit`. */
  readDue(merchantId: number, after: { nextAt: number; rid: number }, limit: number): Promise<R[]>;
  /**
   * Set on return: whether due rows may be left unstarted (a merchant not reached, a page not
   * used up, more pages): the worker offers handoffs (callbacks/handoff.ts) only when none are.
   */
  report?: { leftBehind: boolean };
}

/**
 * Fair claiming (DESIGN 7): free slots go round-robin across merchants, one at a time, a
 * merchant with fewer deliveries in flight first; each (merchant, origin) holds at most
 * `perTarget` slots (the whole pool when proven healthy); a merchant with nothing in flight
 * may use an overflow slot when the pool is full. Returns the rows to start, in order.
 */
export async function planClaims<R extends PlanRow>(input: PlanInput<R>): Promise<Array<{ row: R; origin: string }>> {
  const { now, merchants, limits, memory } = input;
  if (input.report) input.report.leftBehind = true;
  if (!merchants.length) {
    if (input.report) input.report.leftBehind = false;
    return [];
  }
  const perMerchant = new Map<number, number>();
  const perOrigin = new Map<string, number>();
  const slowInFlight = new Set<string>();
  const inflightIds = new Set<string>();
  let inUse = 0;
  for (const f of input.inflight) {
    inflightIds.add(f.id);
    // A delivery whose answer is in and whose outcome is being written holds no slot.
    if (f.settling) continue;
    inUse++;
    perMerchant.set(f.merchantId, (perMerchant.get(f.merchantId) ?? 0) + 1);
    const k = keyOf(f.merchantId, f.origin);
    perOrigin.set(k, (perOrigin.get(k) ?? 0) + 1);
    if (now - f.startedAt > SLOW_MS) slowInFlight.add(k);
  }
  // Round-robin order, then fewest in flight first (stable sort keeps the rotation among equals).
  const start = input.turn % merchants.length;
  const order = [...merchants.slice(start), ...merchants.slice(0, start)].sort((a, b) => (perMerchant.get(a) ?? 0) - (perMerchant.get(b) ?? 0));
  // Each merchant's due rows, one page at a time and only as far as needed: when a page holds
  // nothing startable (its origins are saturated), the next page is read, at most MAX_PAGES, so
  // one dead origin's backlog does not hide the merchant's other rows, and the cost per claim
  // stays bounded whatever the backlog.
  const pages = new Map<number, { rows: R[]; more: boolean; after: { nextAt: number; rid: number }; read: number }>();
  const capOf = (k: string) => originCap(memory, k, slowInFlight.has(k), now, limits);
  const eligible = (m: number, row: R) => {
    if (inflightIds.has(row.id)) return false;
    if (!row.target) return true;
    const k = keyOf(m, originOf(row.target));
    return (perOrigin.get(k) ?? 0) < capOf(k);
  };
  /** The merchant's first page: kept (what is left of a full page: more may follow), else read. */
  const firstPage = async (m: number): Promise<{ rows: R[]; more: boolean; after?: { nextAt: number; rid: number } }> => {
    const kept = memory.firstPage.get(m);
    if (kept && now >= kept.at && now - kept.at < DEEP_SCAN_MS) return { rows: kept.rows.slice() as R[], more: true, after: kept.after };
    const rows = await input.readDue(m, { nextAt: -1, rid: 0 }, PAGE);
    const last = rows[rows.length - 1];
    if (rows.length === PAGE && last) {
      if (memory.firstPage.size >= 10_000) memory.firstPage.clear();
      memory.firstPage.set(m, { at: now, rows: rows.slice(), after: { nextAt: last.nextAt, rid: last.rid } });
    } else memory.firstPage.delete(m);
    return { rows, more: rows.length === PAGE };
  };
  /** A row of the kept first page started: it leaves the page, which is dropped once too few rows remain. */
  const startedFromFirstPage = (m: number, id: string) => {
    const kept = memory.firstPage.get(m);
    if (!kept) return;
    const rows = kept.rows.filter((r) => r.id !== id);
    if (rows.length < KEEP_MIN) memory.firstPage.delete(m);
    else kept.rows = rows;
  };
  const nextEligible = async (m: number): Promise<number> => {
    let p = pages.get(m);
    if (!p) pages.set(m, (p = { rows: [], more: true, after: { nextAt: -1, rid: 0 }, read: 0 }));
    for (;;) {
      const i = p.rows.findIndex((row) => eligible(m, row));
      if (i >= 0 || !p.more || p.read >= MAX_PAGES) return i;
      if (p.read === 1) {
        if (now - (memory.deepScanAt.get(m) ?? -Infinity) < DEEP_SCAN_MS) return i;
        if (memory.deepScanAt.size >= 10_000) memory.deepScanAt.clear();
        memory.deepScanAt.set(m, now);
      }
      const page = p.read === 0 ? await firstPage(m) : { rows: await input.readDue(m, p.after, PAGE), more: undefined };
      const rows = page.rows;
      p.read++;
      p.more = page.more ?? rows.length === PAGE;
      const last = rows[rows.length - 1];
      if (page.more !== undefined && page.after) p.after = page.after;
      else if (last) p.after = { nextAt: last.nextAt, rid: last.rid };
      p.rows.push(...rows);
    }
  };
  const out: Array<{ row: R; origin: string }> = [];
  const cap = limits.concurrency;
  let progress = true;
  while (progress) {
    progress = false;
    for (const m of order) {
      const busy = perMerchant.get(m) ?? 0;
      if (inUse >= cap && !(busy === 0 && inUse < cap + limits.overflow)) continue;
      const i = await nextEligible(m);
      if (i < 0) continue;
      const [row] = pages.get(m)!.rows.splice(i, 1);
      const origin = originOf(row!.target);
      const k = keyOf(m, origin);
      perOrigin.set(k, (perOrigin.get(k) ?? 0) + 1);
      perMerchant.set(m, busy + 1);
      out.push({ row: row!, origin });
      startedFromFirstPage(m, row!.id);
      inUse++;
      progress = true;
    }
  }
  if (input.report) input.report.leftBehind = merchants.some((m) => {
    const p = pages.get(m);
    return !p || p.more || p.rows.some((r) => !inflightIds.has(r.id));
  });
  return out;
}

// What one gateway tells the others (DESIGN 22 "Shared state"), over PostgreSQL LISTEN/NOTIFY
// through Bun's SQL client (`sql.listen`: one dedicated connection per pool, reconnected with
// backoff and re-subscribed; `onlisten` runs again after each reconnect). One channel carries:
// - cache invalidations (api keys, merchant settings, rates): every gateway drops the entry;
// - wake-ups (a payout created → the leader's executor; a callback due that its gateway's worker
//   cannot take at once → every other gateway's worker: callbacks/cluster-wake.ts, at most one per
//   50 ms per gateway), so work starts at once instead of at the next poll.
// A notification sent inside a transaction is delivered when it commits, and never if it rolls
// back: publish in the transaction of the change. Notifications sent while a gateway's listening
// connection was down are lost to it, so on every reconnect the bus drops every cache (each
// invalidation handler is called with no key) and wakes every waiter, then emits `reconnected`.
// The polls stay as they are: a lost wake-up delays work by one poll, never loses it.
import type { SQL } from "bun";
import type { Logger } from "../lib/logger";
import { PROCESS_ID } from "../lib/process-id";

/** The channel every gateway of one database listens on. */
export const CLUSTER_CHANNEL = "stablegate_cluster";

export const CACHE_TOPICS = ["api_keys", "merchant_settings", "rates"] as const;
export type CacheTopic = (typeof CACHE_TOPICS)[number];
export const WAKE_TOPICS = ["payouts", "callbacks"] as const;
export type WakeTopic = (typeof WAKE_TOPICS)[number];

export type ClusterMessage = { kind: "invalidate"; topic: CacheTopic; key?: string; from: string } | { kind: "wake"; topic: WakeTopic; from: string };

/** An invalidation: `key` is the entry to drop; undefined drops every entry (a reconnect, or a bulk change). */
export type InvalidateHandler = (key: string | undefined, fromSelf: boolean) => void;
export type WakeHandler = (fromSelf: boolean) => void;

/**
 * Sends a message to every gateway (this one too). On a transaction handle it goes out at commit.
 * `sql` is any handle that runs a query: the pool, a reserved connection, a transaction.
 */
export async function publish(sql: Pick<SQL, "unsafe">, message: Omit<ClusterMessage, "from">, from = PROCESS_ID): Promise<void> {
  await sql.unsafe(`SELECT pg_notify($1, $2)`, [CLUSTER_CHANNEL, JSON.stringify({ ...message, from })]);
}

/** Every gateway drops `key` of `topic` (no key: every entry). */
export const invalidate = (sql: Pick<SQL, "unsafe">, topic: CacheTopic, key?: string, from = PROCESS_ID) =>
  publish(sql, { kind: "invalidate", topic, ...(key === undefined ? {} : { key }) }, from);
/** Every gateway's `topic` waiters look for work now. */
export const wake = (sql: Pick<SQL, "unsafe">, topic: WakeTopic, from = PROCESS_ID) => publish(sql, { kind: "wake", topic }, from);

/** One gateway's subscription: start() once the pool is open, stop() at shutdown. */
export class ClusterBus {
  private readonly invalidators = new Map<CacheTopic, Set<InvalidateHandler>>();
  private readonly wakers = new Map<WakeTopic, Set<WakeHandler>>();
  private readonly reconnects = new Set<() => void>();
  private subscription: Awaited<ReturnType<SQL["listen"]>> | null = null;
  private listens = 0;

  constructor(
    private readonly sql: Pick<SQL, "listen">,
    private readonly opts: { self?: string; logger?: Logger } = {},
  ) {}

  /** How many times the listening connection was (re)subscribed; 1 after start, +1 per reconnect. */
  get subscriptions(): number {
    return this.listens;
  }

  onInvalidate(topic: CacheTopic, fn: InvalidateHandler): () => void {
    return addTo(this.invalidators, topic, fn);
  }

  onWake(topic: WakeTopic, fn: WakeHandler): () => void {
    return addTo(this.wakers, topic, fn);
  }

  /** After the listening connection came back (caches already dropped, waiters woken). */
  onReconnected(fn: () => void): () => void {
    this.reconnects.add(fn);
    return () => this.reconnects.delete(fn);
  }

  /** Who this gateway is in its messages (`fromSelf` tells its own apart). */
  get self(): string {
    return this.opts.self ?? PROCESS_ID;
  }

  /** invalidate() sent as this gateway. */
  invalidate(sql: Pick<SQL, "unsafe">, topic: CacheTopic, key?: string): Promise<void> {
    return invalidate(sql, topic, key, this.self);
  }

  /** wake() sent as this gateway. */
  wake(sql: Pick<SQL, "unsafe">, topic: WakeTopic): Promise<void> {
    return wake(sql, topic, this.self);
  }

  /** Subscribes; resolves once the server acknowledged the LISTEN. */
  async start(): Promise<void> {
    if (this.subscription) return;
    this.subscription = await this.sql.listen(
      CLUSTER_CHANNEL,
      (payload) => this.receive(payload),
      () => this.listened(),
    );
  }

  async stop(): Promise<void> {
    const s = this.subscription;
    this.subscription = null;
    await s?.unlisten();
  }

  private listened(): void {
    this.listens++;
    if (this.listens === 1) return;
    // Whatever was sent while the connection was down never arrives: forget every cached entry and look for work.
    this.opts.logger?.warn("cluster: the notification connection came back; caches dropped", { reconnects: this.listens - 1 });
    for (const set of this.invalidators.values()) for (const fn of set) safely(() => fn(undefined, false), this.opts.logger);
    for (const set of this.wakers.values()) for (const fn of set) safely(() => fn(false), this.opts.logger);
    for (const fn of this.reconnects) safely(fn, this.opts.logger);
  }

  private receive(payload: string): void {
    const m = parseMessage(payload);
    if (!m) {
      this.opts.logger?.warn("cluster: an unreadable notification was ignored", { payload: payload.slice(0, 200) });
      return;
    }
    const fromSelf = m.from === this.self;
    if (m.kind === "invalidate") for (const fn of this.invalidators.get(m.topic) ?? []) safely(() => fn(m.key, fromSelf), this.opts.logger);
    else for (const fn of this.wakers.get(m.topic) ?? []) safely(() => fn(fromSelf), this.opts.logger);
  }
}

/** A payload as a message, or null when it is not one (another program on the channel, a newer gateway's kind). */
export function parseMessage(payload: string): ClusterMessage | null {
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.from !== "string") return null;
  if (o.kind === "invalidate" && (CACHE_TOPICS as readonly unknown[]).includes(o.topic) && (o.key === undefined || typeof o.key === "string")) {
    return { kind: "invalidate", topic: o.topic as CacheTopic, ...(o.key === undefined ? {} : { key: o.key as string }), from: o.from };
  }
  if (o.kind === "wake" && (WAKE_TOPICS as readonly unknown[]).includes(o.topic)) return { kind: "wake", topic: o.topic as WakeTopic, from: o.from };
  return null;
}

function addTo<K, F>(map: Map<K, Set<F>>, key: K, fn: F): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** A throwing handler is logged; the others still run (Bun reports a throw in onnotify as uncaught). */
function safely(fn: () => void, logger: Logger | undefined): void {
  try {
    fn();
  } catch (e) {
    logger?.error("cluster: a notification handler failed", { error: String((e as Error)?.stack ?? e) });
  }
}

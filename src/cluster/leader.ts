// Leader election on PostgreSQL (DESIGN 22 "Cluster roles"). Every gateway runs one elector. It
// keeps a dedicated connection (its own one-connection client, never the request pool) and, every
// `takeover_after / 5`, either tries the leader's session advisory lock (raising the epoch in the
// same statement when it gets it) or, when it leads, sends a heartbeat on that connection.
//
// Losing: a heartbeat that fails, times out or finds the session is not the one that took the
// epoch (a reconnected client), or the connection closing, makes the elector a follower at once:
// the `lost` event runs synchronously, before anything else can be scheduled, and the connection
// is closed so the server ends the session and the lock is free for another gateway. A leader
// that could not confirm its lock for two heartbeat periods (its process stalled) steps down the
// same way; isLeader() already answers false past that point.
//
// Taking over within takeover_after (T):
// - a leader process that dies (SIGKILL, crash) closes its socket: the server ends the session
//   and releases the lock; the next try of another gateway (at most T/5 later) takes it;
// - a leader machine that vanishes (no FIN): the lock connection's TCP keepalives (set on the
//   session: idle T/5, interval T/10, 3 probes) end the session on the server;
// - a leader that hangs with its connection open: the heartbeat-age rule. A follower whose try
//   fails looks at the heartbeat (database time); older than 3T/5, it ends the leader's session
//   (pg_terminate_backend, only if that session still holds the lock) and tries again at once.
// The epoch fence (assertEpoch) keeps a deposed leader that wakes up from storing anything.
import type { SQL } from "bun";
import { openPg } from "../db/client-pg";
import type { Logger } from "../lib/logger";
import { PROCESS_ID } from "../lib/process-id";
import { beat, endStaleLeader, leaderRow, releaseLead, tryTakeLead, type KeepaliveSettings, type LeaderRow } from "./leader-store";

export { assertEpoch, checkEpoch, EPOCH_FENCE_SQL, NotLeader, LEADER_LOCK_KEY } from "./leader-store";

export type Role = "leader" | "follower";

/** The periods derived from takeover_after (ms): see the header. */
export interface LeaderTimings {
  takeoverAfterMs: number;
  /** A follower's try, and the leader's heartbeat. */
  tickMs: number;
  /** A leader that has not confirmed its lock this long steps down (its own monotonic clock). */
  selfStaleMs: number;
  /** A heartbeat older than this (database time) lets a follower end the leader's session. */
  staleMs: number;
  keepalive: KeepaliveSettings;
}

export function leaderTimings(takeoverAfterMs: number): LeaderTimings {
  const tickMs = Math.max(200, Math.floor(takeoverAfterMs / 5));
  const sec = (ms: number) => Math.max(1, Math.round(ms / 1000));
  return {
    takeoverAfterMs,
    tickMs,
    selfStaleMs: 2 * tickMs,
    staleMs: 3 * tickMs,
    keepalive: { idleS: sec(tickMs), intervalS: sec(tickMs / 2), count: 3 },
  };
}

export interface ElectorOptions {
  url: string;
  /** [cluster] takeover_after in ms (config: parseDuration(config.cluster.takeover_after)). */
  takeoverAfterMs: number;
  /** Who this gateway is in cluster_leader.owner (lib/process-id.ts). */
  owner?: string;
  logger?: Logger;
}

type Listener = (epoch: number) => void;

/** One gateway's part in the election; start() it once, stop() it at shutdown. */
export class LeaderElector {
  readonly timings: LeaderTimings;
  readonly owner: string;
  private conn: SQL | null = null;
  private held: number | null = null;
  /** performance.now() of the last confirmation of the lock (take or heartbeat). */
  private confirmedAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private readonly listeners = { gained: new Set<Listener>(), lost: new Set<Listener>() };

  constructor(private readonly opts: ElectorOptions) {
    this.timings = leaderTimings(opts.takeoverAfterMs);
    this.owner = opts.owner ?? PROCESS_ID;
  }

  /** Whether this gateway leads now: it holds the lock and confirmed it within selfStaleMs. */
  isLeader(): boolean {
    return this.held !== null && performance.now() - this.confirmedAt < this.timings.selfStaleMs;
  }

  role(): Role {
    return this.isLeader() ? "leader" : "follower";
  }

  /** The epoch this gateway leads, for the fence; null when it does not lead. */
  epoch(): number | null {
    return this.isLeader() ? this.held : null;
  }

  /** `gained` when this gateway becomes the leader (with its epoch), `lost` when it stops being it. Returns the unsubscribe. */
  on(event: "gained" | "lost", fn: Listener): () => void {
    this.listeners[event].add(fn);
    return () => this.listeners[event].delete(fn);
  }

  /** Runs the first try now and keeps trying or beating every tickMs until stop(). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.tick();
  }

  /** One try or heartbeat (the timer calls it; tests may too). Never overlaps itself. */
  tick(): Promise<void> {
    if (this.running) return this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.step().finally(() => {
      this.running = null;
      if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.timings.tickMs);
    });
    return this.running;
  }

  /** Stops: a leader gives the lock up first (the others take over at their next try), then the connection closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    const conn = this.conn;
    if (this.held !== null && conn) {
      this.lose("stopping");
      try {
        await withTimeout(releaseLead(conn), this.timings.tickMs);
      } catch {
        // Closing the connection below releases it all the same.
      }
    }
    this.conn = null;
    if (conn) await conn.close({ timeout: 0 }).catch(() => {});
  }

  /** The leadership row as it stands (database clock), through the elector's connection. */
  async row(): Promise<LeaderRow | null> {
    return await leaderRow(this.connection());
  }

  private async step(): Promise<void> {
    if (this.stopped) return;
    if (this.held !== null) await this.heartbeat();
    else await this.tryLead();
  }

  private async heartbeat(): Promise<void> {
    const epoch = this.held!;
    if (performance.now() - this.confirmedAt >= this.timings.selfStaleMs) return this.lose("the lock was not confirmed in time (the process stalled)");
    try {
      const ok = await withTimeout(beat(this.connection(), epoch), this.timings.tickMs);
      if (this.held !== epoch) return;
      if (!ok) return this.lose("the lock's session is gone or the epoch moved on");
      this.confirmedAt = performance.now();
    } catch (e) {
      if (this.held === epoch) this.lose(`heartbeat failed: ${errorText(e)}`);
    }
  }

  private async tryLead(): Promise<void> {
    try {
      const conn = this.connection();
      let epoch = await withTimeout(tryTakeLead(conn, this.owner, this.timings.keepalive), this.timings.tickMs);
      if (epoch === null && (await withTimeout(endStaleLeader(conn, this.timings.staleMs), this.timings.tickMs))) {
        this.opts.logger?.warn("cluster: the leader's heartbeat is stale; its session was ended", { staleMs: this.timings.staleMs });
        // The ended session lets go of the lock as its process exits: a few quick tries.
        for (let i = 0; i < 10 && epoch === null && !this.stopped; i++) {
          await Bun.sleep(50);
          epoch = await withTimeout(tryTakeLead(conn, this.owner, this.timings.keepalive), this.timings.tickMs);
        }
      }
      if (epoch === null) return;
      if (this.stopped) {
        await this.dropConnection();
        return;
      }
      this.gain(epoch);
    } catch (e) {
      // The database is unreachable: a follower stays one; a fresh connection next time.
      this.opts.logger?.debug("cluster: leader try failed", { error: errorText(e) });
      await this.dropConnection();
    }
  }

  private gain(epoch: number): void {
    this.held = epoch;
    this.confirmedAt = performance.now();
    this.opts.logger?.info("cluster: this gateway is the leader", { epoch });
    for (const fn of this.listeners.gained) fn(epoch);
  }

  /** Follower at once (synchronously: the lost listeners run before anything else), then the session ends. */
  private lose(why: string): void {
    const epoch = this.held;
    if (epoch === null) return;
    this.held = null;
    this.opts.logger?.warn("cluster: this gateway is no longer the leader", { epoch, why });
    for (const fn of this.listeners.lost) fn(epoch);
    if (why !== "stopping") void this.dropConnection();
  }

  private connection(): SQL {
    if (this.conn) return this.conn;
    // openPg: a failover URL (several hosts, target_session_attrs) picks the writable host.
    const conn: SQL = openPg(this.opts.url, 1, {
      idleTimeout: 0,
      connectionTimeout: Math.max(1, Math.ceil(this.timings.tickMs / 1000)),
      // The lock lives in this connection's session: its end is the end of the leadership.
      onclose: () => {
        if (this.conn === conn) this.lose("the lock's connection closed");
      },
    });
    this.conn = conn;
    return conn;
  }

  private async dropConnection(): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    if (conn) await conn.close({ timeout: 0 }).catch(() => {});
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A query that does not answer within `ms` counts as failed (the connection is then dropped). */
async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

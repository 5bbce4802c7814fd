// Callback wake-ups between gateways (PostgreSQL, DESIGN 22 "Shared state"; issue 38). A gateway
// that commits a callback due now wakes its own worker (callbacksDue(), src/db/callbacks-due.ts).
// When that worker cannot take it at once (none running here, every slot busy, or waiting after a
// database error), this relay sends one NOTIFY on the bus's `callbacks` topic, after the commit,
// and every other gateway's worker polls now instead of at its next poll. Bounded: at most one
// NOTIFY per `gapMs` per gateway (a burst of creates is one wake-up at its start and one at the
// end of the gap), none while the local worker has room, and a wake-up that came over the bus is
// never relayed again. A lost NOTIFY costs one poll interval, never a callback.
import type { Clock, Timer } from "../lib/clock";
import { LogLimiter } from "../lib/log-limit";
import type { Logger } from "../lib/logger";
import { onCallbacksDue } from "../db/callbacks-due";

/** At most one wake-up NOTIFY per this many ms from one gateway. */
export const WAKE_GAP_MS = 50;

export interface WakeRelayOptions {
  /** Sends the wake-up (ClusterBus.wake on the pool: outside any transaction, the rows are committed). */
  publish: () => Promise<void>;
  /** Whether this gateway's own worker takes a callback due now at once (CallbackWorker.hasRoom). */
  localRoom: () => boolean;
  clock: Clock;
  logger: Logger;
  gapMs?: number;
}

export class CallbackWakeRelay {
  private readonly gapMs: number;
  private lastAt = -Infinity;
  private timer: Timer | null = null;
  private unlisten: (() => void) | null = null;
  private readonly limited: LogLimiter;
  /** Wake-ups sent (tests, and the bound they show). */
  sent = 0;

  constructor(private readonly o: WakeRelayOptions) {
    this.gapMs = o.gapMs ?? WAKE_GAP_MS;
    this.limited = new LogLimiter(o.logger, () => o.clock.now());
  }

  /** Follows this process's callbacksDue() (rows written here, not wake-ups from the bus). */
  start(): this {
    this.unlisten ??= onCallbacksDue((from) => {
      if (from === "here") this.due();
    });
    return this;
  }

  stop(): void {
    this.unlisten?.();
    this.unlisten = null;
    this.timer?.cancel();
    this.timer = null;
  }

  /** A callback written here is due now: the other gateways are told when this one has no room (coalesced). */
  due(): void {
    if (this.timer || this.o.localRoom()) return;
    const wait = this.lastAt + this.gapMs - this.o.clock.now();
    if (wait <= 0) return this.send();
    this.timer = this.o.clock.after(wait, () => {
      this.timer = null;
      // Room again by then (a slot freed): the local worker polls on its own.
      if (!this.o.localRoom()) this.send();
    });
  }

  private send(): void {
    this.lastAt = this.o.clock.now();
    this.sent++;
    this.o.publish().catch((e: unknown) => this.limited.log("warn", "callbacks:wake", "callbacks: the wake-up for the other gateways was not sent", { error: String((e as Error)?.message ?? e) }));
  }
}

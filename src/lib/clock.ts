// Injected time source that also drives timers, so time-dependent logic (order expiry,
// job loops, callback retries, RPC backoff, waits for a gas top-up) is tested by moving a
// TestClock, never by sleeping.

/** A pending timer; cancel() is a no-op once it has fired. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once, `ms` of this clock's time from now. */
  after(ms: number, fn: () => unknown): Timer;
}

/** Real time: Date.now() and the runtime's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, fn) => {
    // The callback may await stores: its failure is reported, never an unhandled rejection.
    const t = setTimeout(() => void Promise.resolve(fn()).catch((e: unknown) => console.error("timer callback failed", e)), Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves `ms` of clock time from now, or at once when `signal` aborts (shutdown). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      timer.cancel();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = clock.after(ms, done);
    signal?.addEventListener("abort", done, { once: true });
  });
}

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Lets promise chains started by a fired timer run (a few turns of the event loop; no real I/O is awaited). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
}

/**
 * A clock tests move by hand. Semantics (as Unkey's test clock): time stands still until
 * `advance()` or `set()` moves it; then every timer due by the new time fires, earliest
 * first (ties in the order they were set), each seeing the new time, with the promise
 * chains it starts given a chance to run before the next fires. A timer a callback sets
 * counts from the new time, so a periodic job runs once per advance, as it would after
 * its process was paused. A timer that is already due when set (0 ms) fires on its own
 * right away (asynchronously), as setTimeout(fn, 0) would; advance() does not wait for
 * those set while it runs. `await advance(0)` just lets pending promise chains run.
 */
export class TestClock implements Clock {
  private readonly timers: Pending[] = [];
  private seq = 0;
  private firing: Promise<void> = Promise.resolve();
  private kickArmed = false;

  constructor(private t = Date.parse("2026-11-21T00:00:00.000Z")) {}

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): Timer {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(p);
    if (p.at <= this.t) this.fireSoon();
    return { cancel: () => void (p.cancelled = true) };
  }

  /** Timers not yet fired or cancelled. */
  get pending(): number {
    return this.timers.filter((p) => !p.cancelled).length;
  }

  /** Moves time to `ms` (forward or back) and fires the timers due by then. */
  set(ms: number): Promise<void> {
    this.t = ms;
    return this.fireDue();
  }

  /** Moves time forward by `ms` and fires the timers due by then; resolves once they ran. */
  advance(ms: number): Promise<void> {
    return this.set(this.t + ms);
  }

  /** Fires already-due timers on a later turn, as a real 0 ms timer would. */
  private fireSoon(): void {
    if (this.kickArmed) return;
    this.kickArmed = true;
    setImmediate(() => {
      this.kickArmed = false;
      void this.fireDue();
    });
  }

  /** Runs due timers one at a time, serialized with any run already going. */
  private fireDue(): Promise<void> {
    this.firing = this.firing.then(async () => {
      // Work already under way (a promise chain about to set a timer) runs first, even when nothing is due.
      await settle();
      // Only timers set by now: a stream of new 0 ms timers (a kick per event-loop turn) cannot
      // keep this loop going; each of those fires on its own (fireSoon).
      const limit = this.seq;
      for (;;) {
        let next: Pending | undefined;
        for (const p of this.timers) if (!p.cancelled && p.seq < limit && p.at <= this.t && (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq))) next = p;
        if (!next) break;
        next.cancelled = true;
        this.timers.splice(this.timers.indexOf(next), 1);
        try {
          void Promise.resolve(next.fn()).catch((e: unknown) => console.error("TestClock timer threw", e));
        } catch (e) {
          // A real timer's exception would not stop the others either.
          console.error("TestClock timer threw", e);
        }
        await settle();
      }
      for (let i = this.timers.length - 1; i >= 0; i--) if (this.timers[i].cancelled) this.timers.splice(i, 1);
    });
    return this.firing;
  }
}

export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

// Generic waits and ports for tests: the one copy every test imports.

/** A port free on 127.0.0.1 right now (it can be taken before you bind it: retry on EADDRINUSE). */
export async function freePort(): Promise<number> {
  const range = portRange(process.env.TEST_PORT_RANGE);
  if (!range) return listenOnce(0)!;
  // A block of its own (scripts/test.sh gives each shard one below the ephemeral range): no
  // other shard, and no outgoing connection, takes a port handed out here before it is bound.
  const span = range.last - range.first + 1;
  for (let tried = 0; tried < span; tried++) {
    const port = range.first + (nextInRange++ % span);
    if (listenOnce(port)) return port;
  }
  throw new Error(`no free port in TEST_PORT_RANGE ${process.env.TEST_PORT_RANGE}`);
}

/** "FIRST-LAST" (TEST_PORT_RANGE), else undefined. */
export function portRange(value: string | undefined): { first: number; last: number } | undefined {
  const m = value?.match(/^(\d+)-(\d+)$/);
  if (!m) return undefined;
  const [first, last] = [Number(m[1]), Number(m[2])];
  return first > 0 && first <= last && last < 65536 ? { first, last } : undefined;
}

/** Successive freePort() calls walk the range from a random start, so a port is not handed out twice soon. */
let nextInRange = Math.floor(Math.random() * 1_000_000);

/** Binds and releases `port` (0: any); the port bound, or undefined when it is taken. */
function listenOnce(port: number): number | undefined {
  try {
    const s = Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });
    const bound = s.port;
    s.stop(true);
    return bound;
  } catch {
    return undefined;
  }
}

/**
 * Polls `fn` (sync or async) until it returns a truthy value, which it returns. A call of `fn`
 * still unsettled well past the deadline (`timeoutMs` more, at least 30 s: a slow call on loaded
 * cores still counts) fails the wait too: a read hung on a dead socket names what it waited for
 * instead of holding the test until the runner's timeout.
 */
export async function eventually<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 10_000, what = "condition", everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const grace = Math.max(timeoutMs, 30_000);
  for (;;) {
    const v = await settledBy(fn(), deadline + grace, () => `${what} not met within ${timeoutMs}ms: its last check did not answer within another ${grace}ms`);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs}ms`);
    await Bun.sleep(everyMs);
  }
}

/** `value` once it settles, or an Error with `why()` when it has not by `deadline` (epoch ms). */
export async function settledBy<T>(value: T | Promise<T>, deadline: number, why: () => string): Promise<T> {
  if (!(value instanceof Promise)) return value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why())), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([value, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `read` until `ok` holds for its value; returns the value and how long it took. */
export async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 10_000, everyMs = 50): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  for (;;) {
    const value = await read();
    if (ok(value)) return { value, ms: Date.now() - t0 };
    if (Date.now() - t0 > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`);
    await Bun.sleep(everyMs);
  }
}

/** True when the child exits within `ms`. */
export function exitsWithin(proc: { exited: Promise<number> }, ms: number): Promise<boolean> {
  return Promise.race([proc.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
}

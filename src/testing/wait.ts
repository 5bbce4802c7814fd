// Generic waits and ports for tests: the one copy every test imports.

/** A port free on 127.0.0.1 right now (it can be taken before you bind it: retry on EADDRINUSE). */
export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/** Polls `fn` (sync or async) until it returns a truthy value, which it returns. */
export async function eventually<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 10_000, what = "condition", everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs}ms`);
    await Bun.sleep(everyMs);
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

import { describe, expect, test } from "bun:test";
import { FailoverTransport, retryAfterMs, TokenBucket, type EndpointFailure, type EndpointTarget } from "./failover";
import { TestClock } from "../../lib/clock";

const failure = (kind: string, httpStatus?: number, retryAfterMs?: number): EndpointFailure =>
  Object.assign(new Error(kind), { kind, httpStatus, retryAfterMs });

describe("pause after a failure (backoff ×0.75–1.25 jitter, suspension rules, Retry-After, cap)", () => {
  const t = new FailoverTransport({
    urls: ["http://a"],
    backoffBaseMs: 100,
    backoffMaxMs: 10_000,
    suspensions: [{ statuses: [403, 429], minPauseMs: 5_000 }],
    logName: "test",
  });
  test.each([
    ["first network failure: the base", 1, failure("network"), 75, 125],
    ["third failure: base × 4", 3, failure("timeout"), 300, 500],
    ["many failures: at most the cap (jittered below it)", 20, failure("network"), 7_500, 10_000],
    ["a 429 on the first failure: the rule's pause", 1, failure("http", 429), 5_000, 5_000],
    ["a 403 too", 1, failure("http", 403), 5_000, 5_000],
    ["a 503 is plain backoff", 1, failure("http", 503), 75, 125],
    ["Retry-After longer than the backoff wins", 1, failure("http", 503, 2_000), 2_000, 2_000],
    ["Retry-After past backoffMaxMs is honoured", 1, failure("http", 429, 30_000), 30_000, 30_000],
    ["Retry-After past a minute waits a minute", 1, failure("http", 429, 600_000), 60_000, 60_000],
    ["a short Retry-After replaces the rule's guess", 1, failure("http", 429, 1_000), 1_000, 1_000],
  ])("%s", (_label, failures, err, min, max) => {
    for (let i = 0; i < 20; i++) {
      const p = t.pauseFor(failures, err);
      expect(p).toBeGreaterThanOrEqual(min);
      expect(p).toBeLessThanOrEqual(max);
    }
  });
});

describe("failover over endpoints", () => {
  test("fails over in preference order, counts outcomes per endpoint", async () => {
    const t = new FailoverTransport({ urls: ["http://a", "http://b"], attempts: 2, backoffBaseMs: 60_000, backoffMaxMs: 60_000, logName: "test" });
    const asFailure = (e: unknown) => failure((e as Error).message);
    const closed = () => failure("closed");
    const seen: string[] = [];
    const out = await t.run({ call: "x", exchange: async ({ url }) => (seen.push(url), url === "http://a" ? Promise.reject(new Error("network")) : "ok-" + url), asFailure, closed });
    expect(out).toBe("ok-http://b");
    expect(seen).toEqual(["http://a", "http://b"]);
    const [a, b] = t.healthSnapshot();
    expect(a).toMatchObject({ url: "http://a", healthy: false, up: true, failures: 1, lastError: "network", outcomes: { network: 1 } });
    expect(b).toMatchObject({ url: "http://b", healthy: true, up: true, failures: 0, outcomes: { ok: 1 } });
    t.close();
    await expect(t.run({ call: "x", exchange: async () => "never", asFailure, closed })).rejects.toThrow("closed");
  });
});

describe("waiting for an endpoint to recover runs on the injected clock", () => {
  const asFailure = (e: unknown) => failure((e as Error).message);
  const closed = () => failure("closed");

  test("with every endpoint paused, a call waits until the clock reaches the first recovery", async () => {
    const clock = new TestClock(0);
    const t = new FailoverTransport({ urls: ["http://a", "http://b"], attempts: 3, backoffBaseMs: 1000, backoffMaxMs: 1000, logName: "test", clock });
    const seen: Array<[string, number]> = [];
    let settled = false;
    const out = t
      .run({ call: "x", exchange: async ({ url }) => (seen.push([url, clock.now()]), seen.length < 3 ? Promise.reject(new Error("network")) : "ok"), asFailure, closed })
      .finally(() => (settled = true));
    await clock.advance(0); // both fail at once; the call now waits
    expect(clock.pending).toBe(1);
    await clock.advance(749); // pauses are 750-1000 ms (jitter): nobody has recovered yet
    expect(seen).toEqual([["http://a", 0], ["http://b", 0]]);
    expect(settled).toBe(false);
    await clock.advance(251);
    expect(await out).toBe("ok");
    expect(seen[2][1]).toBe(1000);
  });

  test("close() ends the wait at once", async () => {
    const clock = new TestClock(0);
    const t = new FailoverTransport({ urls: ["http://a"], attempts: 2, backoffBaseMs: 60_000, backoffMaxMs: 60_000, logName: "test", clock });
    const out = t.run({ call: "x", exchange: async () => Promise.reject(new Error("network")), asFailure, closed }).catch((e) => e);
    await clock.advance(0);
    expect(clock.pending).toBe(1);
    t.close();
    expect(await out).toMatchObject({ message: "closed" });
  });
});

describe("RPC limits (DESIGN 25): rate_limit as a token bucket, api_keys rotated, throttling counted", () => {
  const asFailure = (e: unknown) => e as EndpointFailure;
  const closed = () => failure("closed");

  test("a token bucket of 4/s lets a second's burst go, then one request every 250 ms", () => {
    const clock = new TestClock(0);
    const b = new TokenBucket(4, clock);
    expect([b.reserve(), b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0, 0]);
    expect([b.reserve(), b.reserve()]).toEqual([250, 500]);
  });

  test("requests to a rate-limited endpoint wait on the clock for their token", async () => {
    const clock = new TestClock(0);
    const t = new FailoverTransport({ urls: [{ url: "http://a", rate_limit: 2 }], backoffMaxMs: 1000, logName: "test", clock });
    const at: number[] = [];
    const calls = [1, 2, 3, 4].map(() => t.run({ call: "x", exchange: async () => at.push(clock.now()), asFailure, closed }));
    await clock.advance(0);
    expect(at).toEqual([0, 0]);
    await clock.advance(500);
    expect(at).toEqual([0, 0, 500]);
    await clock.advance(500);
    await Promise.all(calls);
    expect(at).toEqual([0, 0, 500, 1000]);
  });

  test.each([
    ["in the header", "http://a/rpc", { url: "http://a/rpc", headers: { "x-api-key": "k1" } }, { url: "http://a/rpc", headers: { "x-api-key": "k2" } }],
    ["in the URL's {api_key}", "https://p.example/v2/{api_key}", { url: "https://p.example/v2/k1", headers: {} }, { url: "https://p.example/v2/k2", headers: {} }],
  ])("api_keys take turns per request, %s", async (_label, url, first, second) => {
    const t = new FailoverTransport({ urls: [{ url, api_keys: ["k1", "k2"] }], backoffMaxMs: 1000, logName: "test" });
    const seen: EndpointTarget[] = [];
    for (let i = 0; i < 3; i++) await t.run({ call: "x", exchange: async (target) => seen.push(target), asFailure, closed });
    expect(seen).toEqual([first, second, first]);
    expect(t.healthSnapshot()[0]!.url).not.toContain("k1");
  });

  test("a 429 is counted as throttled, retried after its pause, and the call succeeds", async () => {
    const clock = new TestClock(0);
    const t = new FailoverTransport({ urls: ["http://a"], backoffMaxMs: 10_000, suspensions: [{ statuses: [429], minPauseMs: 250 }], logName: "test", clock });
    let n = 0;
    const out = t.run({ call: "x", exchange: async () => (++n === 1 ? Promise.reject(failure("http", 429, 2_000)) : "ok"), asFailure, closed });
    await clock.advance(0);
    await clock.advance(1_999);
    expect(n).toBe(1);
    await clock.advance(1);
    expect(await out).toBe("ok");
    expect(t.healthSnapshot()[0]).toMatchObject({ throttled: 1, outcomes: { http: 1, ok: 1 } });
  });

  test.each([
    ["seconds", "7", 7_000],
    ["zero", "0", undefined],
    ["an HTTP date 3 s ahead", new Date(1_000_000 + 3_000).toUTCString(), 3_000],
    ["an HTTP date past", new Date(1_000_000 - 3_000).toUTCString(), undefined],
    ["garbage", "soon", undefined],
  ])("Retry-After as %s", (_label, header, ms) => {
    expect(retryAfterMs(new Response("", { status: 429, headers: { "retry-after": header } }), 1_000_000)).toBe(ms);
  });
});

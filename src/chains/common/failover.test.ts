import { describe, expect, test } from "bun:test";
import { FailoverTransport, type EndpointFailure } from "./failover";
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
    ["Retry-After past the cap is capped", 1, failure("http", 429, 60_000), 10_000, 10_000],
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
    const out = await t.run({ call: "x", exchange: async (url) => (seen.push(url), url === "http://a" ? Promise.reject(new Error("network")) : "ok-" + url), asFailure, closed });
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
      .run({ call: "x", exchange: async (url) => (seen.push([url, clock.now()]), seen.length < 3 ? Promise.reject(new Error("network")) : "ok"), asFailure, closed })
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

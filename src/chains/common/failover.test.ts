import { describe, expect, test } from "bun:test";
import { FailoverTransport, type EndpointFailure } from "./failover";

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

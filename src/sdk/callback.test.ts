import { describe, expect, test } from "bun:test";
import { signCallback } from "../auth/signing";
import { verifyCallback } from "./callback";

const KEY = "mch_" + "ab".repeat(32);
const OLD = "mch_" + "cd".repeat(32);
const body = '{"orderNo":"PI1","status":"completed","paidAmount":"1.000000"}';
const ts = "1763683260000";
const signed = (over: Record<string, string | undefined> = {}, key = KEY) => {
  const h: Record<string, string | undefined> = {
    "x-callback-timestamp": ts,
    "x-callback-nonce": "n-1",
    "x-callback-signature": signCallback(key, ts, "n-1", body),
    "x-callback-signature-algorithm": "HMAC-SHA256",
    "x-callback-signature-version": "v1",
    ...over,
  };
  return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>;
};

describe("verifyCallback", () => {
  test("accepts the signed raw body", () => {
    expect(verifyCallback(body, signed(), KEY)).toBe(true);
  });

  test("Node-style headers: mixed case and array values", () => {
    const h = signed();
    const node = { "X-Callback-Timestamp": [h["x-callback-timestamp"]!], "X-CALLBACK-NONCE": h["x-callback-nonce"], "x-callback-signature": h["x-callback-signature"] };
    expect(verifyCallback(body, node, KEY)).toBe(true);
  });

  test("a key from before a rotation: pass both keys", () => {
    expect(verifyCallback(body, signed({}, OLD), KEY)).toBe(false);
    expect(verifyCallback(body, signed({}, OLD), [KEY, OLD])).toBe(true);
  });

  test.each([
    ["body changed", () => verifyCallback(body.replace("1.000000", "1.00000"), signed(), KEY)],
    ["body re-serialised with spaces", () => verifyCallback(JSON.stringify(JSON.parse(body), null, 2), signed(), KEY)],
    ["wrong key", () => verifyCallback(body, signed(), OLD)],
    ["upper-case hex", () => verifyCallback(body, signed({ "x-callback-signature": signCallback(KEY, ts, "n-1", body).toUpperCase() }), KEY)],
    ["truncated signature", () => verifyCallback(body, signed({ "x-callback-signature": signCallback(KEY, ts, "n-1", body).slice(0, 63) }), KEY)],
    ["other nonce", () => verifyCallback(body, signed({ "x-callback-nonce": "n-2" }), KEY)],
    ["other timestamp", () => verifyCallback(body, signed({ "x-callback-timestamp": "1763683260001" }), KEY)],
    ["missing signature", () => verifyCallback(body, signed({ "x-callback-signature": undefined }), KEY)],
    ["missing timestamp", () => verifyCallback(body, signed({ "x-callback-timestamp": undefined }), KEY)],
    ["unknown algorithm", () => verifyCallback(body, signed({ "x-callback-signature-algorithm": "HMAC-SHA1" }), KEY)],
    ["unknown version", () => verifyCallback(body, signed({ "x-callback-signature-version": "v2" }), KEY)],
    ["empty key", () => verifyCallback(body, signed(), "")],
  ])("rejects: %s", (_n, run) => {
    expect(run()).toBe(false);
  });

  test("maxAgeMs bounds the timestamp both ways", () => {
    const at = (now: number) => verifyCallback(body, signed(), KEY, { maxAgeMs: 300_000, now: () => now });
    expect(at(Number(ts) + 300_000)).toBe(true);
    expect(at(Number(ts) - 300_000)).toBe(true);
    expect(at(Number(ts) + 300_001)).toBe(false);
    expect(at(Number(ts) - 300_001)).toBe(false);
  });
});

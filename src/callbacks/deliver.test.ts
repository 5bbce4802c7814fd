import { afterAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { verifyCallbackSignature } from "../auth/signing";
import { startReceiver } from "../testing/receiver";
import { deliverOnce, RESPONSE_BODY_LIMIT, USER_AGENT } from "./deliver";

const apiKey = "mch_" + "ab".repeat(32);
// Non-ASCII, escaped slash and spacing a re-serialization would change.
const body = '{"orderNo":"PI1","paidAmount":"100.000000","note":"caf\u00e9 \\/ ok","eventId":"EV1"}';
const base = { body, apiKey, timeoutMs: 1000, allowPrivate: true, now: () => Date.now() };

const receiver = startReceiver();
afterAll(() => receiver.stop());

describe("deliverOnce", () => {
  test("signs the raw bytes; an independent HMAC accepts them, a re-serialized body does not", async () => {
    receiver.setScript([{ status: 204 }]);
    const before = receiver.requests.length;
    const r = await deliverOnce({ ...base, url: receiver.url + "/cb?shop=1" });
    expect(r).toMatchObject({ ok: true, httpStatus: 204, error: null });
    const got = receiver.requests[before];
    expect(got.method).toBe("POST");
    expect(got.path).toBe("/cb?shop=1");
    expect(got.text).toBe(body);
    const h = got.headers;
    expect(h["content-type"]).toBe("application/json");
    expect(h["user-agent"]).toBe(USER_AGENT);
    expect(h["x-callback-signature-algorithm"]).toBe("HMAC-SHA256");
    expect(h["x-callback-signature-version"]).toBe("v1");
    expect(h["x-callback-timestamp"]).toMatch(/^\d{13}$/);
    expect(h["x-callback-nonce"]).toMatch(/^[0-9a-f]{32}$/);
    const ts = h["x-callback-timestamp"], nonce = h["x-callback-nonce"];
    const independent = createHmac("sha256", apiKey)
      .update(Buffer.concat([Buffer.from(`${ts}.${nonce}.`), Buffer.from(got.raw)]))
      .digest("hex");
    expect(h["x-callback-signature"]).toBe(independent);
    expect(verifyCallbackSignature(apiKey, ts, nonce, got.raw, h["x-callback-signature"])).toBe(true);
    const reserialized = JSON.stringify(JSON.parse(got.text));
    expect(reserialized).not.toBe(got.text);
    expect(verifyCallbackSignature(apiKey, ts, nonce, reserialized, h["x-callback-signature"])).toBe(false);
    expect(verifyCallbackSignature("mch_other", ts, nonce, got.raw, h["x-callback-signature"])).toBe(false);
  });

  const failures: Array<[string, Parameters<typeof receiver.setScript>[0], number | null, RegExp]> = [
    ["a redirect is not followed", [{ status: 302, headers: { location: "/elsewhere" } }], 302, /redirect 302 not followed \(to \/elsewhere\)/],
    ["a 500", [{ status: 500, body: "boom" }], 500, /HTTP 500/],
    ["a 404", [{ status: 404 }], 404, /HTTP 404/],
    ["a reply slower than the timeout", [{ status: 200, delayMs: 1500 }], null, /timed out after 1000ms/],
  ];
  for (const [name, script, status, err] of failures) {
    test(`fails on ${name}`, async () => {
      receiver.setScript(script);
      const before = receiver.requests.length;
      const r = await deliverOnce({ ...base, url: receiver.url + "/cb" });
      expect(r.ok).toBe(false);
      expect(r.httpStatus).toBe(status);
      expect(r.error).toMatch(err);
      // Exactly one request: nothing followed the redirect.
      expect(receiver.requests.length).toBe(before + 1);
    });
  }

  test("a refused connection is a failure with the error", async () => {
    const dead = startReceiver();
    const url = dead.url;
    await dead.stop();
    const r = await deliverOnce({ ...base, url });
    expect(r.ok).toBe(false);
    expect(r.httpStatus).toBeNull();
    expect(r.error).toBeTruthy();
  });

  test("the response body is kept, truncated", async () => {
    receiver.setScript([{ status: 200, body: "x".repeat(RESPONSE_BODY_LIMIT * 3) }]);
    const r = await deliverOnce({ ...base, url: receiver.url });
    expect(r.ok).toBe(true);
    expect(r.responseBody!.length).toBe(RESPONSE_BODY_LIMIT);
  });

  test("a loopback target is refused unless private targets are allowed, and nothing is sent", async () => {
    receiver.setScript([{ status: 200 }]);
    const before = receiver.requests.length;
    const r = await deliverOnce({ ...base, allowPrivate: false, url: receiver.url + "/cb" });
    expect(r).toMatchObject({ ok: false, httpStatus: null });
    expect(r.error).toMatch(/special-purpose address \(127\.0\.0\.1, loopback\); refused/);
    expect(receiver.requests.length).toBe(before);
  });

  test("the Host header keeps the name while the request goes to the checked address", async () => {
    receiver.setScript([{ status: 200 }]);
    const before = receiver.requests.length;
    const r = await deliverOnce({ ...base, url: `http://merchant.test:${receiver.port}/cb`, lookup: async () => ["127.0.0.1"] });
    expect(r.ok).toBe(true);
    expect(receiver.requests[before].headers.host).toBe(`merchant.test:${receiver.port}`);
  });
});

describe("deliverOnce over https", () => {
  // A throwaway self-signed certificate for merchant.test, made at test time.
  const hasOpenssl = !!Bun.which("openssl");
  test.skipIf(!hasOpenssl)("connects to the checked address but verifies the certificate against the name", async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "stablegate-tls-"));
    try {
      const gen = Bun.spawnSync([
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
        "-subj", "/CN=merchant.test", "-addext", "subjectAltName=DNS:merchant.test",
      ], { stdout: "ignore", stderr: "ignore" });
      expect(gen.exitCode).toBe(0);
      const cert = readFileSync(join(dir, "cert.pem"), "utf8");
      const seen: Array<{ host: string | null; body: string }> = [];
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") },
        async fetch(req) {
          seen.push({ host: req.headers.get("host"), body: await req.text() });
          return new Response("ok");
        },
      });
      try {
        const lookup = async () => ["127.0.0.1"];
        const ok = await deliverOnce({ ...base, url: `https://merchant.test:${server.port}/cb`, lookup, ca: cert });
        expect(ok).toMatchObject({ ok: true, httpStatus: 200 });
        expect(seen).toEqual([{ host: `merchant.test:${server.port}`, body }]);
        // Same address, another name: the certificate does not match, nothing is sent.
        const wrong = await deliverOnce({ ...base, url: `https://shop.test:${server.port}/cb`, lookup, ca: cert });
        expect(wrong.ok).toBe(false);
        expect(wrong.error).toMatch(/ALTNAME|certificate|hostname/i);
        expect(seen).toHaveLength(1);
      } finally {
        await server.stop(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Every signing vector, sent as a real HTTP request to a real gateway: the
// server must accept the signature (it may still refuse the content).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { testSql } from "../testing/engine-rows";
import vectors from "./signing-vectors.json";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { installMerchant } from "../testing/merchants";
import { sendSigned } from "../testing/signed-request";
import { TestClock } from "../lib/clock";
import { verifyCallback } from "../sdk/callback";

const AUTH_FAILURES = [20005, 20011, 20012, 20016];
let gw: TestGateway;
let merchantId: number;
const clock = new TestClock(Number(vectors.timestamp));

beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false });
  const deps = { db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() };
  merchantId = (await installMerchant(deps, vectors.merchantUid, vectors.apiKey)).id;
});
afterAll(() => gw.stop());

const nonceRecorded = async (nonce: string) =>
  (await testSql(gw.ctx.db, sql`SELECT 1 AS one FROM nonces WHERE merchant_id = ${merchantId} AND nonce = ${nonce}`)).length === 1;
const forgetNonce = async (nonce: string) => await testSql(gw.ctx.db, sql`DELETE FROM nonces WHERE merchant_id = ${merchantId} AND nonce = ${nonce}`);

describe("request vectors through the HTTP server", () => {
  for (const c of vectors.cases) {
    const variants: Array<[string, string]> = [["encodeURIComponent", c.signature]];
    if ("strictRfc3986Signature" in c) variants.push(["strict RFC 3986", (c as { strictRfc3986Signature: string }).strictRfc3986Signature]);
    for (const [variant, signature] of variants) {
      test(`${c.name} (${variant})`, async () => {
        await forgetNonce(c.nonce);
        const res = await sendSigned({
          baseUrl: gw.url,
          uid: vectors.merchantUid,
          apiKey: vectors.apiKey,
          method: c.method,
          path: c.path,
          query: c.query as Array<[string, string]>,
          body: c.body === null ? undefined : c.body,
          timestamp: vectors.timestamp,
          nonce: c.nonce,
          signature,
        });
        expect(AUTH_FAILURES).not.toContain(res.body.code);
        expect(res.status).not.toBe(500);
        // Passing authentication records the nonce: proof the route exists and the signature held.
        expect(await nonceRecorded(c.nonce)).toBe(true);
      });
    }
  }

  test("a vector's signature does not verify once the path is decoded", async () => {
    const c = vectors.cases.find((x) => x.path.includes("%2F"))!;
    await forgetNonce(c.nonce);
    const res = await sendSigned({
      baseUrl: gw.url,
      uid: vectors.merchantUid,
      apiKey: vectors.apiKey,
      path: c.path.replace("%20", "%2520"),
      query: c.query as Array<[string, string]>,
      timestamp: vectors.timestamp,
      nonce: c.nonce,
      signature: c.signature,
    });
    expect(res.body.code).toBe(20011);
  });
});

describe("callback vectors through verifyCallback", () => {
  for (const c of vectors.callbacks) {
    const headers = {
      "x-callback-timestamp": c.timestamp,
      "x-callback-nonce": c.nonce,
      "x-callback-signature": c.signature,
      "x-callback-signature-algorithm": "HMAC-SHA256",
      "x-callback-signature-version": "v1",
    };
    test(`${c.nonce} verifies from the raw body (string, bytes, Headers)`, () => {
      expect(verifyCallback(c.rawBody, headers, vectors.apiKey)).toBe(true);
      expect(verifyCallback(new TextEncoder().encode(c.rawBody), new Headers(headers), vectors.apiKey)).toBe(true);
      expect(verifyCallback(new TextEncoder().encode(c.rawBody).buffer as ArrayBuffer, headers, vectors.apiKey)).toBe(true);
    });
    test(`${c.nonce} fails re-serialized or compacted`, () => {
      const parsed = JSON.parse(c.rawBody);
      for (const other of [JSON.stringify(parsed, null, 2), JSON.stringify(parsed) === c.rawBody ? JSON.stringify(parsed, null, 1) : JSON.stringify(parsed)]) {
        expect(other).not.toBe(c.rawBody);
        expect(verifyCallback(other, headers, vectors.apiKey)).toBe(false);
      }
    });
  }
});

// One test per way a merchant request can fail authentication (spec 5,
// DESIGN 4), each against a real gateway over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { testSql } from "../testing/engine-rows";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sendSigned, buildSignedRequest, type RawSignedRequest } from "../testing/signed-request";
import { TestClock } from "../lib/clock";
import { eventually } from "../testing/wait";
import { createMerchant, rotateKey, setMerchantStatus } from "../merchants/service";
import { pruneNonces, rawPath, rawQuery } from "./verify";
import { signRequest } from "./signing";

const clock = new TestClock(Date.parse("2026-11-21T00:00:00.000Z"));
let gw: TestGateway;
let m: { uid: string; apiKey: string; id: number };
const MAX_BODY = 2048;
const TOLERANCE = 5 * 60_000;

beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { server: { max_body_bytes: MAX_BODY }, auth: { timestamp_tolerance: "5m", rotation_grace: "1h" } } });
  m = gw.merchant;
});
afterAll(() => gw.stop());

const deps = () => ({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() });
/** A GET that passes authentication ends in 40108 (no such order). */
const GET_PATH = "/openapi/payin/orders/PIx";
const base = (over: Partial<RawSignedRequest> = {}): RawSignedRequest => ({
  baseUrl: gw.url,
  uid: m.uid,
  apiKey: m.apiKey,
  path: GET_PATH,
  now: () => clock.now(),
  ...over,
});
const validPayin = { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "A-1", amount: "1.5", notifyUrl: "https://shop.example/cb" };
const invalidPayin = { ...validPayin, amount: 1.5 };

test("a correctly signed GET passes and reaches the route", async () => {
  const r = await sendSigned(base());
  expect(r.status).toBe(404);
  expect(r.body).toMatchObject({ code: 40108, message: expect.any(String), requestId: r.headers.get("x-request-id") });
});

describe("20005: key and merchant", () => {
  test.each([
    ["unknown key", async () => ({ apiKey: "mch_" + "0".repeat(64) })],
    ["missing key", async () => ({ headers: { "x-api-key": null } })],
    ["unknown UID", async () => ({ uid: "M9999999" })],
    ["missing UID", async () => ({ headers: { "x-merchant-uid": null } })],
    ["another merchant's UID", async () => ({ uid: (await gw.newMerchant("other")).uid })],
  ] as Array<[string, () => Promise<Partial<RawSignedRequest>>]>)("%s", async (_n, over) => {
    const r = await sendSigned(base(await over()));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(20005);
  });

  test("a disabled merchant gets 51002, and 20005 is not reached for it", async () => {
    const other = await gw.newMerchant("soon disabled");
    await setMerchantStatus(deps(), other.uid, "disabled");
    const r = await sendSigned(base({ uid: other.uid, apiKey: other.apiKey }));
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(51002);
    await setMerchantStatus(deps(), other.uid, "active");
    // SQLite: at once (the cache checks the version row); PostgreSQL: once the database's
    // notification reaches the key cache (the cluster suite measures it under a second).
    await eventually(async () => (await sendSigned(base({ uid: other.uid, apiKey: other.apiKey }))).body.code === 40108, 5000, "the merchant active again");
  });
});

describe("20012: timestamp", () => {
  const now = () => clock.now();
  test.each([
    ["too old", () => String(now() - TOLERANCE - 1)],
    ["too new", () => String(now() + TOLERANCE + 1)],
    ["seconds, not milliseconds", () => String(Math.floor(now() / 1000))],
    ["14 digits", () => String(now()) + "0"],
    ["not a number", () => "17636832OOOOO"],
    ["empty", () => ""],
    ["fraction", () => String(now()) + ".5"],
  ])("%s", async (_n, ts) => {
    const r = await sendSigned(base({ timestamp: ts() }));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(20012);
  });

  test("a server clock 2 h behind (the key issued 'later' than now) answers 20012 with serverTime, never 20005", async () => {
    const ahead = 2 * 3600_000;
    // The key was issued while the clock read 2 h more (e.g. before the server's clock was set back).
    const { merchant, apiKey } = await createMerchant({ ...deps(), now: () => clock.now() + ahead }, { name: "clock skew" });
    const r = await sendSigned(base({ uid: merchant.uid, apiKey, timestamp: String(clock.now() + ahead) }));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 20012, data: { serverTime: clock.now() } });
    // Its requests signed with the server's time pass: the key is valid, only the clock is off.
    expect((await sendSigned(base({ uid: merchant.uid, apiKey }))).body.code).toBe(40108);
  });

  test.each([
    ["at the old edge", -TOLERANCE],
    ["at the new edge", TOLERANCE],
  ])("accepted %s of the window", async (_n, d) => {
    const r = await sendSigned(base({ timestamp: String(clock.now() + d) }));
    expect(r.body.code).toBe(40108);
  });
});

describe("10001: nonce format", () => {
  test.each([
    ["space", "a b"],
    ["dot", "a.b"],
    ["non-ASCII", "nonce-é"],
    ["129 characters", "n".repeat(129)],
    ["empty", ""],
  ])("%s", async (_n, nonce) => {
    const r = await sendSigned(base({ nonce: nonce === "nonce-é" ? "nonce-%C3%A9" : nonce, headers: nonce === "" ? { "x-nonce": null } : {} }));
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(10001);
    expect(r.body.data).toEqual({ fields: { "x-nonce": expect.any(String) } });
  });

  test("128 characters of the allowed set pass", async () => {
    const r = await sendSigned(base({ nonce: ("aZ0_-".repeat(26)).slice(0, 128) }));
    expect(r.body.code).toBe(40108);
  });
});

describe("20011: signature", () => {
  const q: Array<[string, string]> = [["chainCode", "TRON"], ["tokenSymbol", "USDT"]];
  const bindingPath = "/openapi/payin/exclusive-bindings/user-1";
  test.each([
    ["tampered path", () => base({ sign: { path: "/openapi/payin/orders/PIy" } })],
    ["path signed decoded, sent encoded", () => base({ path: "/openapi/payin/orders/P%49x", sign: { path: "/openapi/payin/orders/PIx" } })],
    ["tampered query", () => base({ path: bindingPath, query: q, sign: { canonicalQuery: "chainCode=BSC&tokenSymbol=USDT" } })],
    ["query left out of the signature", () => base({ path: bindingPath, query: q, sign: { canonicalQuery: "" } })],
    ["tampered body", () => base({ path: "/openapi/payin/orders", body: invalidPayin, sign: { canonicalBody: JSON.stringify({ ...invalidPayin, amount: 2 }) } })],
    ["tampered method", () => base({ sign: { method: "POST" } })],
    ["wrong key", () => base({ sign: { apiKey: "mch_" + "1".repeat(64) } })],
    ["another UID in the signed text", () => base({ sign: { uid: "M1" } })],
    ["signature missing", () => base({ headers: { "x-signature": null } })],
    ["63 hex digits", () => base({ signature: "a".repeat(63) })],
  ] as Array<[string, () => RawSignedRequest]>)("%s", async (_n, req) => {
    const r = await sendSigned(req());
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(20011);
  });

  test("upper-case hex of the right signature is refused", async () => {
    const ok = buildSignedRequest(base());
    const r = await sendSigned(base({ nonce: ok.nonce, timestamp: ok.timestamp, signature: ok.signature.toUpperCase() }));
    expect(r.body.code).toBe(20011);
    // The same request in lower case still passes: the nonce was not spent by the failure.
    const again = await sendSigned(base({ nonce: ok.nonce, timestamp: ok.timestamp, signature: ok.signature }));
    expect(again.body.code).toBe(40108);
  });

  test("signature with surrounding whitespace in UID, key and nonce headers is trimmed as the spec says", async () => {
    const r = await sendSigned(base({ headers: { "x-merchant-uid": ` ${m.uid} ` } }));
    expect(r.body.code).toBe(40108);
  });
});

describe("20016: nonce reuse", () => {
  test("a replayed request is refused", async () => {
    const first = buildSignedRequest(base());
    const again = () => sendSigned(base({ nonce: first.nonce, timestamp: first.timestamp, signature: first.signature }));
    expect((await again()).body.code).toBe(40108);
    const r = await again();
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(20016);
  });

  test("the same nonce with a fresh timestamp and signature is still a replay", async () => {
    const nonce = "fixed-nonce-reuse";
    expect((await sendSigned(base({ nonce }))).body.code).toBe(40108);
    clock.advance(1000);
    expect((await sendSigned(base({ nonce }))).body.code).toBe(20016);
  });

  test("nonces are per merchant", async () => {
    const other = await gw.newMerchant("nonce neighbour");
    const nonce = "shared-between-merchants";
    expect((await sendSigned(base({ nonce }))).body.code).toBe(40108);
    expect((await sendSigned(base({ nonce, uid: other.uid, apiKey: other.apiKey }))).body.code).toBe(40108);
  });

  test("50 parallel requests with one nonce: exactly one passes", async () => {
    const req = buildSignedRequest(base());
    const all = await Promise.all(
      Array.from({ length: 50 }, () => sendSigned(base({ nonce: req.nonce, timestamp: req.timestamp, signature: req.signature }))),
    );
    const codes = all.map((r) => r.body.code);
    expect(codes.filter((c) => c === 40108)).toHaveLength(1);
    expect(codes.filter((c) => c === 20016)).toHaveLength(49);
  });

  test("50 parallel POSTs with one nonce: exactly one passes", async () => {
    const req = buildSignedRequest(base({ path: "/openapi/payin/orders", body: invalidPayin }));
    const all = await Promise.all(
      Array.from({ length: 50 }, () =>
        sendSigned(base({ path: "/openapi/payin/orders", body: invalidPayin, nonce: req.nonce, timestamp: req.timestamp, signature: req.signature })),
      ),
    );
    const codes = all.map((r) => r.body.code);
    expect(codes.filter((c) => c === 10001)).toHaveLength(1);
    expect(codes.filter((c) => c === 20016)).toHaveLength(49);
  });

  test("nonces are pruned after twice the tolerance, when their timestamp can no longer pass", async () => {
    const first = buildSignedRequest(base({ nonce: "prune-me" }));
    const replay = () => sendSigned(base({ nonce: first.nonce, timestamp: first.timestamp, signature: first.signature }));
    expect((await replay()).body.code).toBe(40108);
    clock.advance(2 * TOLERANCE - 1);
    await pruneNonces(gw.ctx.db, clock.now());
    expect((await replay()).body.code).toBe(20012);
    const row = async () => (await testSql(gw.ctx.db, sql`SELECT 1 AS one FROM nonces WHERE merchant_id = ${m.id} AND nonce = 'prune-me'`)).length;
    expect(await row()).toBe(1);
    clock.advance(2);
    expect(await pruneNonces(gw.ctx.db, clock.now())).toBeGreaterThan(0);
    expect(await row()).toBe(0);
  });
});

describe("10001: body", () => {
  const post = (over: Partial<RawSignedRequest>) => sendSigned(base({ path: "/openapi/payin/orders", ...over }));

  test("oversized body (declared length)", async () => {
    const r = await post({ body: { ...validPayin, pad: "x".repeat(MAX_BODY) } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(10001);
    expect(r.body.data).toMatchObject({ fields: { body: expect.stringContaining(String(MAX_BODY)) }, maxBytes: MAX_BODY });
  });

  test("oversized body streamed without a content-length", async () => {
    const req = buildSignedRequest(base({ path: "/openapi/payin/orders", body: validPayin }));
    const chunk = new TextEncoder().encode(" ".repeat(512));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 8) c.enqueue(chunk);
        else c.close();
      },
    });
    const res = await fetch(req.url, { ...req.init, body: stream });
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.code).toBe(10001);
    expect(body.data.fields.body).toContain(String(MAX_BODY));
  });

  test("a body of exactly the limit is read", async () => {
    const json = JSON.stringify(invalidPayin);
    const raw = json + " ".repeat(MAX_BODY - json.length);
    const r = await post({ rawBody: raw });
    expect(r.body.code).toBe(10001);
    expect(r.body.data).toMatchObject({ fields: { amount: expect.any(String) } });
  });

  test("malformed JSON", async () => {
    const r = await post({ rawBody: '{"chainCode": "TRON",', sign: { canonicalBody: "" } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 10001, message: "Request body is not valid JSON", data: { fields: { body: "must be valid JSON" } } });
  });

  test("invalid UTF-8", async () => {
    const r = await post({ rawBody: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), sign: { canonicalBody: "" } });
    expect(r.body).toMatchObject({ code: 10001, data: { fields: { body: expect.any(String) } } });
  });

  test.each(["text/plain", "application/x-www-form-urlencoded", "application/jsonp", null])("wrong content-type %p", async (ct) => {
    const r = await post({ body: validPayin, contentType: ct });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 10001, data: { fields: { "content-type": "must be application/json" } } });
  });

  test.each(["application/json; charset=utf-8", "Application/JSON"])("content-type %p is fine", async (ct) => {
    const r = await post({ body: invalidPayin, contentType: ct });
    expect(r.body).toMatchObject({ code: 10001, data: { fields: { amount: expect.any(String) } } });
  });

  test("schema failures name every offending field", async () => {
    const r = await post({ body: { chainCode: "TRON", tokenSymbol: 5, amount: 1, merchantOrderNo: "x".repeat(129) } });
    expect(r.body.code).toBe(10001);
    expect(Object.keys((r.body.data as { fields: object }).fields).sort()).toEqual(["amount", "merchantOrderNo", "notifyUrl", "tokenSymbol"]);
  });

  test.each([
    ["SOLANA", "USDC", 31001],
    // Registered but off by default (DESIGN 17, 23): a chain that is not enabled answers 31001.
    ["ETH", "USDT", 31001],
    ["BASE", "USDC", 31001],
    ["PLASMA", "USDT", 31001],
    ["TRON", "DAI", 31002],
    ["TRON", "USDC", 31003],
  ])("chain %s token %s: %i", async (chainCode, tokenSymbol, code) => {
    const r = await post({ body: { ...validPayin, chainCode, tokenSymbol, merchantOrderNo: `ct-${code}` } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
  });
});

describe("10002: unknown routes", () => {
  test.each([
    ["GET", "/openapi/payin/nothing"],
    ["POST", "/openapi/payin/orders/PIx"],
    ["DELETE", "/openapi/payin/orders/PIx"],
    ["GET", "/nope"],
  ])("%s %s, signed, gets the failure body", async (method, path) => {
    const r = await sendSigned(base({ method, path }));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 10002, message: expect.any(String), data: null, requestId: r.headers.get("x-request-id") });
    expect(r.body.requestId).toMatch(/^req_/);
  });
});

describe("key rotation", () => {
  test("the old key signs requests during rotation_grace and not after; the new one at once", async () => {
    const shop = await gw.newMerchant("rotating");
    const { apiKey: fresh } = await rotateKey(deps(), shop.uid, gw.ctx.ms.rotationGrace);
    const as = (apiKey: string) => sendSigned(base({ uid: shop.uid, apiKey }));
    expect((await as(shop.apiKey)).body.code).toBe(40108);
    expect((await as(fresh)).body.code).toBe(40108);
    clock.advance(gw.ctx.ms.rotationGrace - 1);
    expect((await as(shop.apiKey)).body.code).toBe(40108);
    clock.advance(1);
    expect((await as(shop.apiKey)).body.code).toBe(20005);
    expect((await as(fresh)).body.code).toBe(40108);
  });
});

describe("raw path and query", () => {
  test.each([
    ["http://h:1/a/b%2Fc?x=1#f", "/a/b%2Fc", "x=1"],
    ["http://h/a?x='y'&z", "/a", "x='y'&z"],
    ["http://h", "/", ""],
    ["/p?q", "/p", "q"],
  ])("%s", (url, path, query) => {
    expect(rawPath(url)).toBe(path);
    expect(rawQuery(url)).toBe(query);
  });

  test("a query in the path does not fool the signature", () => {
    const a = signRequest("k", { merchantUid: "M", timestamp: "1", nonce: "n", method: "GET", path: "/a", canonicalQuery: "x=1", canonicalBody: "" });
    const b = signRequest("k", { merchantUid: "M", timestamp: "1", nonce: "n", method: "GET", path: "/a?x=1", canonicalQuery: "", canonicalBody: "" });
    expect(a).not.toBe(b);
  });
});

// Seeded fuzzing of the signed API: random methods, paths, encodings, headers
// and bodies. None may get a 500 or leave a row behind, except the one nonce a
// correctly signed request records.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { buildSignedRequest } from "../testing/signed-request";
import { TestClock } from "../lib/clock";
import { ERRORS } from "../errors";

const SEED = 0x5eed_2026;
const PLAIN = 1500;
const SIGNED_INVALID = 600;
const RAW_SOCKET = 300;

const clock = new TestClock();
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { server: { max_body_bytes: 4096 }, auth: { rate_limit_per_minute: 0 } } });
});
afterAll(() => gw.stop());

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const str = (max: number, alphabet = "abcXYZ019-_.~%+ /?#&=\"'\\<>é€😂\u0000\u007f") => {
    const chars = [...alphabet];
    return Array.from({ length: int(max + 1) }, () => pick(chars)).join("");
  };
  return { next, int, pick, str };
}

function tableCounts(): Record<string, number> {
  const db = gw.ctx.db.$client;
  const names = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'").all() as Array<{ name: string }>;
  return Object.fromEntries(names.map(({ name }) => [name, (db.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n]));
}

const ROUTES = [
  ["POST", "/openapi/payin/orders"],
  ["GET", "/openapi/payin/orders/PI1"],
  ["POST", "/openapi/payin/exclusive-bindings"],
  ["GET", "/openapi/payin/exclusive-bindings/k"],
  ["POST", "/openapi/payout/orders"],
  ["GET", "/openapi/payout/orders/PO1"],
  ["POST", "/openapi/payout/orders/PO1/submit"],
] as const;

// Creation routes signed with invalid bodies.
const SIGNED_PATHS = ["/openapi/payin/orders", "/openapi/payin/exclusive-bindings", "/openapi/payout/orders"];

/** Bodies that are valid JSON but can never pass validation of `path` (so nothing is created). */
function invalidBody(r: ReturnType<typeof rng>, path: string): unknown {
  const good: Record<string, unknown> = {
    chainCode: r.pick(["TRON", "BSC", "SOL"]),
    tokenSymbol: r.pick(["USDT", "USDC"]),
    merchantOrderNo: "fz-" + r.int(1e6),
    amount: "1.5",
    notifyUrl: "https://shop.example/cb",
    bindKey: "fz-" + r.int(1e6),
    toAddress: "TQ8mV8bP9yZ9mPZcKpDqRyQm4pA7a7f2Fh",
  };
  const common: Array<(b: Record<string, unknown>) => unknown> = [
    (b) => ({ ...b, chainCode: r.pick(["ETH", "tron", "", 1, null, "TRON\u0000"]) }),
    (b) => ({ ...b, tokenSymbol: r.pick(["DAI", "usdt", "", 1, null]) }),
    () => r.pick([[], "string", 1, true, null, [{}]]),
  ];
  const perRoute: Record<string, Array<(b: Record<string, unknown>) => unknown>> = {
    "/openapi/payin/orders": [
      (b) => ({ ...b, amount: r.pick([1.5, -1, "1.1234567", "0x10", "1e3", "", null, [], {}, " 1", "１", "0"]) }),
      (b) => ({ ...b, merchantOrderNo: r.pick(["x".repeat(129), 5, null, ""]) }),
      (b) => ({ ...b, notifyUrl: r.pick([1, "", "x".repeat(3000), "ftp://x", "not a url"]) }),
    ],
    "/openapi/payin/exclusive-bindings": [
      (b) => ({ ...b, bindKey: r.pick(["x".repeat(129), 7, "", null]) }),
      (b) => ({ ...b, label: r.pick([1, "l".repeat(300), false]) }),
      (b) => ({ ...b, notifyUrl: r.pick([1, "", "x".repeat(3000)]) }),
    ],
    "/openapi/payout/orders": [
      (b) => ({ ...b, amount: r.pick([1.5, -1, "1.1234567", "", null, "0"]) }),
      (b) => ({ ...b, toAddress: r.pick([3, "", "x".repeat(200), null]) }),
      (b) => ({ ...b, deleteSourceAfterSuccess: r.pick(["true", 1, "false"]) }),
      (b) => ({ ...b, merchantOrderNo: r.pick(["x".repeat(129), 5, null, ""]) }),
    ],
  };
  return r.pick([...common, ...(perRoute[path] ?? perRoute["/openapi/payin/orders"]!)])(good);
}

type Shot = { url: string; init: RequestInit; signedInvalid: boolean };

function plainShot(r: ReturnType<typeof rng>): Shot {
  const [rm, rp] = r.pick(ROUTES);
  const method = r.next() < 0.8 ? rm : r.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]);
  const path = r.next() < 0.5 ? rp : r.pick([
    rp + "/" + encodeURIComponent(r.str(12)),
    rp.replace(/[A-Z]+1$/, encodeURIComponent(r.str(20))),
    "/openapi/" + r.str(10).replace(/[?#]/g, ""),
    rp + "%E0%A4%A",
    rp + "/%",
    "/openapi/payin/orders/" + "A".repeat(r.int(3000)),
  ]);
  const q = r.next() < 0.5 ? "" : "?" + r.pick([encodeURIComponent(r.str(10)) + "=" + encodeURIComponent(r.str(10)), "a=%ZZ&&=&b", "chainCode=TRON&chainCode=BSC", r.str(30).replace(/#/g, "")]);
  const base = buildSignedRequest({ baseUrl: gw.url, uid: gw.merchant.uid, apiKey: gw.merchant.apiKey, path: "/openapi/x", now: () => clock.now() });
  const headers: Record<string, string> = { ...(base.init.headers as Record<string, string>) };
  // Break authentication in a random way (every plain shot is unauthenticated).
  const breakAuth = r.int(7);
  if (breakAuth === 0) delete headers["x-api-key"];
  if (breakAuth === 1) headers["x-api-key"] = "mch_" + r.str(20, "0123456789abcdef");
  if (breakAuth === 2) headers["x-timestamp"] = r.pick(["", "abc", "1".repeat(13), String(clock.now()) + "1", "-1"]);
  if (breakAuth === 3) headers["x-nonce"] = r.pick(["", "a b", "x".repeat(200), "é"].map((s) => encodeURIComponent(s)));
  if (breakAuth === 4) headers["x-signature"] = r.pick(["", "zz", "A".repeat(64), "0".repeat(64), r.str(64, "0123456789abcdef")]);
  if (breakAuth === 5) headers["x-merchant-uid"] = r.pick(["", "M0", gw.merchant.uid + "x"]);
  if (breakAuth === 6) for (const h of Object.keys(headers)) if (r.next() < 0.5) delete headers[h];
  if (breakAuth !== 4 && breakAuth !== 6) headers["x-signature"] = "f".repeat(64); // signed for another request anyway
  const ct = r.pick(["application/json", "text/plain", "", "application/json; charset=latin1", "multipart/form-data; boundary=x"]);
  if (ct) headers["content-type"] = ct;
  let body: BodyInit | undefined;
  if (method !== "GET" && method !== "HEAD" && r.next() < 0.8) {
    body = r.pick<() => BodyInit>([
      () => JSON.stringify(invalidBody(r, rp)),
      () => r.str(200),
      () => new Uint8Array(Array.from({ length: r.int(300) }, () => r.int(256))),
      () => "[".repeat(r.int(5000)),
      () => '{"a":' + "9".repeat(400) + "}",
      () => JSON.stringify({ x: "y".repeat(5000) }),
    ])();
  }
  return { url: gw.url + path + q, init: { method, headers, body }, signedInvalid: false };
}

function signedInvalidShot(r: ReturnType<typeof rng>): Shot {
  const path = r.pick(SIGNED_PATHS);
  const req = buildSignedRequest({
    baseUrl: gw.url,
    uid: gw.merchant.uid,
    apiKey: gw.merchant.apiKey,
    method: "POST",
    path,
    body: invalidBody(r, path),
    now: () => clock.now(),
  });
  return { url: req.url, init: req.init, signedInvalid: true };
}

async function rawRequest(bytes: Uint8Array): Promise<string> {
  const chunks: Uint8Array[] = [];
  const { promise, resolve } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: gw.gateway.port,
    socket: {
      data: (_s, d) => void chunks.push(new Uint8Array(d)),
      close: () => resolve(),
      error: () => resolve(),
      end: () => resolve(),
    },
  });
  socket.write(bytes);
  const timer = setTimeout(() => socket.end(), 2000);
  await promise;
  clearTimeout(timer);
  return Buffer.concat(chunks).toString("latin1");
}

function rawShot(r: ReturnType<typeof rng>): Uint8Array {
  const [method, path] = r.pick(ROUTES);
  const garbage = () => Array.from({ length: r.int(40) }, () => r.pick([0x20, 0x41, 0x7a, 0x25, 0x2f, 0x3f, 0xe9, 0xff, 0x80, 0x22, 0x27, 0x3c])).map((c) => String.fromCharCode(c)).join("");
  const body = r.next() < 0.5 ? "" : r.pick(['{"amount":1}', garbage(), "\u00ff\u00fe{}"]);
  const head =
    `${method} ${path}${r.next() < 0.5 ? garbage().replace(/[ ]/g, "") : ""} HTTP/1.1\r\n` +
    `host: 127.0.0.1\r\nconnection: close\r\n` +
    `x-api-key: ${r.pick([gw.merchant.apiKey, garbage()])}\r\n` +
    `x-merchant-uid: ${r.pick([gw.merchant.uid, garbage()])}\r\n` +
    `x-timestamp: ${r.pick([String(clock.now()), garbage()])}\r\n` +
    `x-nonce: ${garbage()}\r\n` +
    `x-signature: ${garbage()}\r\n` +
    `content-type: ${r.pick(["application/json", garbage()])}\r\n` +
    `content-length: ${body.length}\r\n\r\n`;
  return Uint8Array.from(head + body, (c) => c.charCodeAt(0) & 0xff);
}

async function inBatches<T>(items: T[], size: number, fn: (x: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

test(`fuzz: ${PLAIN} unauthenticated, ${SIGNED_INVALID} signed with invalid bodies, ${RAW_SOCKET} raw requests`, async () => {
  const r = rng(SEED);
  const before = tableCounts();
  const shots: Shot[] = [];
  for (let i = 0; i < PLAIN; i++) shots.push(plainShot(r));
  for (let i = 0; i < SIGNED_INVALID; i++) shots.push(signedInvalidShot(r));
  const problems: string[] = [];
  const codes = new Map<number, number>();
  await inBatches(shots, 16, async (s) => {
    const res = await fetch(s.url, s.init);
    const text = await res.text();
    let body: { code?: number; requestId?: string } = {};
    try {
      body = text ? JSON.parse(text) : {};
    } catch {}
    codes.set(body.code ?? -res.status, (codes.get(body.code ?? -res.status) ?? 0) + 1);
    const where = `${s.init.method} ${s.url.slice(gw.url.length, gw.url.length + 80)}`;
    if (res.status >= 500) problems.push(`${res.status} ${where}: ${text.slice(0, 200)}`);
    else if (res.status < 400 && s.init.method !== "OPTIONS") problems.push(`success ${res.status} ${where}`);
    else if (s.init.method !== "HEAD" && !(typeof body.code === "number" && body.code in ERRORS && body.requestId === res.headers.get("x-request-id")))
      problems.push(`no failure body ${res.status} ${where}: ${text.slice(0, 100)}`);
    else if (s.signedInvalid && ![10001, 31001, 31002, 31003].includes(body.code!)) problems.push(`signed invalid got ${body.code} ${where}`);
  });
  for (let i = 0; i < RAW_SOCKET; i++) {
    const answer = await rawRequest(rawShot(r));
    const status = Number(answer.slice(9, 12));
    if (status >= 500) problems.push(`raw ${status}: ${answer.slice(0, 300)}`);
  }
  expect(problems).toEqual([]);
  const after = tableCounts();
  // Only the nonces of the correctly signed requests were recorded.
  expect(after.nonces! - before.nonces!).toBe(SIGNED_INVALID);
  expect({ ...after, nonces: 0 }).toEqual({ ...before, nonces: 0 });
  console.log("fuzz answers by code:", Object.fromEntries([...codes].sort((a, b) => a[0] - b[0])));
}, 60_000);

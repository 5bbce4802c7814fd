// DESIGN 10 "Hardening", the HTTP edge: request bodies deeper than 64 levels are 10001 (never a
// stack overflow), /metrics answers only at its exact path (and the shipped Caddyfile blocks its
// variants), and every answer carries nosniff, no-store (unless the route caches on purpose) and
// HSTS when public_url is https.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sendSigned } from "../testing/signed-request";
import { jsonTooDeep } from "../lib/json-depth";

let gw: TestGateway;
let https: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { ops: { metrics: true } } });
  https = await startTestGateway({ jobs: false, config: { server: { public_url: "https://pay.example.com" } } });
});
afterAll(async () => {
  await gw?.stop();
  await https?.stop();
});

/** The request line exactly as given (fetch would resolve dot segments before sending). */
function rawGet(baseUrl: string, target: string): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let buf = "";
    s.on("data", (d) => (buf += d));
    s.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(buf)?.[1] ?? 0)));
    s.on("error", reject);
  });
}

describe("body depth", () => {
  test.each([
    ["{}", false],
    ["[".repeat(64) + "]".repeat(64), false],
    ["[".repeat(65) + "]".repeat(65), true],
    [JSON.stringify({ a: "[[[[".repeat(40) }), false],
    [JSON.stringify({ a: '\\"[' }) , false],
  ] as const)("%#: too deep = %p", (text, deep) => {
    expect(jsonTooDeep(text)).toBe(deep);
  });

  test("a 30,000-deep JSON body is 10001 (400), not a 500", async () => {
    const deep = "[".repeat(30_000) + "]".repeat(30_000); // within server.max_body_bytes
    const res = await sendSigned({ baseUrl: gw.url, uid: gw.merchant.uid, apiKey: gw.merchant.apiKey, path: "/openapi/payin/orders", rawBody: deep, signature: "0".repeat(64) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(10001);
    expect((res.body.data as { fields: Record<string, string> }).fields.body).toContain("64");
  });
});

describe("/metrics", () => {
  test("answers at /metrics", async () => {
    expect(await rawGet(gw.url, "/metrics")).toBe(200);
  });
  test.each(["/metrics/", "/metrics/.", "/./metrics", "/x/../metrics", "/%2e/metrics", "/metrics#x", "/METRICS", "/%6detrics", "//metrics", "/metrics;x", "/x/metrics"])("%s is 404", async (target) => {
    expect(await rawGet(gw.url, target)).toBe(404);
  });

  // The shipped Caddyfile keeps /metrics internal: its matcher (a path_regexp, which Caddy runs
  // on the decoded path) must catch every spelling an upstream may resolve to /metrics.
  const caddy = readFileSync(join(import.meta.dir, "..", "..", "config", "Caddyfile"), "utf8");
  const m = /@internal path_regexp (\S+)/.exec(caddy);
  const re = new RegExp(m![1]!.replace(/^\(\?i\)/, ""), "i");
  test.each(["/metrics", "/metrics/", "/./metrics", "/metrics/.", "//metrics", "/METRICS", "/x/../metrics", "/.//metrics/./", "/a/b/../../metrics"])("the Caddyfile blocks %s", (path) => {
    expect(re.test(path)).toBe(true);
  });
  test.each(["/openapi/payin/orders", "/checkout/abc", "/backoffice/balances", "/healthz", "/metricsx", "/docs"])("the Caddyfile passes %s", (path) => {
    expect(re.test(path)).toBe(false);
  });
});

describe("headers", () => {
  test.each(["/healthz", "/readyz", "/docs", "/openapi.json", "/openapi/payin/orders/PI1", "/nope", "/backoffice/login", "/metrics"])("%s: nosniff and no-store", async (path) => {
    const res = await fetch(gw.url + path, { redirect: "manual" });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });
  test("a cached asset keeps its own Cache-Control, and still gets nosniff", async () => {
    const res = await fetch(gw.url + "/backoffice/assets/app.css");
    expect(res.headers.get("cache-control")).toContain("max-age");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
  test.each(["/healthz", "/docs", "/backoffice/login", "/nope"])("https public_url: %s carries HSTS", async (path) => {
    const res = await fetch(https.url + path, { redirect: "manual" });
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
  });
});

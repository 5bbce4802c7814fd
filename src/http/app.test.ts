import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

test("GET /healthz answers 200 with a request id", async () => {
  const res = await fetch(gw.url + "/healthz");
  expect(res.status).toBe(200);
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  expect((await res.json()).status).toBe("ok");
});

test.each(["/nope", "/openapi/nothing/here", "/openapi"])("unknown route %s is 10002 with the failure body", async (path) => {
  const res = await fetch(gw.url + path, { method: "POST" });
  expect(res.status).toBe(404);
  const body = await res.json();
  expect(body).toEqual({ code: 10002, message: expect.any(String), data: null, requestId: res.headers.get("x-request-id") });
});

test.each(["/openapi/payin/orders", "/sandbox/transfers"])("a 2 MB body to %s is a 10001 failure body, not a bare 413", async (path) => {
  const big = JSON.stringify({ pad: "x".repeat(2 << 20) });
  const res = await fetch(gw.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: big });
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  const body = await res.json();
  // Unsigned: /openapi answers the auth failure first; /sandbox the size.
  expect(body.code).toBe(path.startsWith("/openapi") ? 20005 : 10001);
  expect(body.requestId).toBe(res.headers.get("x-request-id"));
});

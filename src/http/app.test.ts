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

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { CreatePayinBody } from "../payin/schemas";
import { CreatePayoutBody } from "../payout/schemas";
import { ERRORS } from "../errors";
import { MERCHANT_ROUTES } from "./merchant-api";
import { buildHttpApp } from "../app/server";

let gw: TestGateway;
let doc: any;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
  const res = await fetch(gw.url + "/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  doc = await res.json();
});
afterAll(() => gw.stop());

describe("GET /openapi.json", () => {
  test("OpenAPI 3.1 with the gateway's public URL and every endpoint of spec 4 and DESIGN 18", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: gw.ctx.publicUrl }]);
    const ops = Object.entries(doc.paths).flatMap(([p, ms]) => Object.keys(ms as object).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(
      [
        "POST /openapi/payin/orders",
        "GET /openapi/payin/orders/{orderNo}",
        "POST /openapi/payin/orders/{orderNo}/tx-hash",
        "POST /openapi/payin/exclusive-bindings",
        "GET /openapi/payin/exclusive-bindings/{bindKey}",
        "POST /openapi/payout/orders",
        "GET /openapi/payout/orders/{orderNo}",
        "POST /openapi/payout/orders/{orderNo}/submit",
        "POST /openapi/invoices",
        "GET /openapi/invoices/{invoiceNo}",
        "POST /openapi/payin/orders/{orderNo}/refunds",
        "GET /openapi/payin/orders/{orderNo}/refunds",
      ].sort(),
    );
  });

  test("one route table: the mounted /openapi routes are exactly the document's operations", () => {
    const app = buildHttpApp(gw.ctx, gw.gateway.runtime);
    const mounted = app.routes
      .filter((r) => r.path.startsWith("/openapi/"))
      .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([^/]+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths).flatMap(([p, ms]) => Object.keys(ms as object).map((m) => `${m.toUpperCase()} ${p}`));
    expect(mounted.length).toBe(MERCHANT_ROUTES.length);
    expect(mounted.sort()).toEqual(documented.sort());
  });

  test("request schemas are the TypeBox schemas the server validates with", () => {
    const s = doc.components.schemas;
    expect(s.CreatePayinOrder.required).toEqual(CreatePayinBody.required);
    expect(Object.keys(s.CreatePayinOrder.properties)).toEqual(Object.keys(CreatePayinBody.properties));
    expect(s.CreatePayinOrder.properties.amount.pattern).toBe(CreatePayinBody.properties.amount.pattern);
    expect(Object.keys(s.CreatePayoutOrder.properties)).toEqual(Object.keys(CreatePayoutBody.properties));
    expect(s.CreatePayoutOrder.properties.deleteSourceAfterSuccess.type).toBe("boolean");
    expect(JSON.stringify(doc)).not.toContain("errorMessage");
  });

  test("every operation is signed with the five headers and lists its error codes from the catalog", () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["x-api-key", "x-merchant-uid", "x-nonce", "x-signature", "x-timestamp"]);
    for (const methods of Object.values(doc.paths) as any[]) {
      for (const op of Object.values(methods) as any[]) {
        expect(Object.keys(op.security[0]).sort()).toEqual(Object.keys(doc.components.securitySchemes).sort());
        for (const c of [10001, 20005, 20011, 20012, 20016, 10029]) expect(op["x-error-codes"]).toContain(c);
        for (const c of op["x-error-codes"]) {
          expect(ERRORS).toHaveProperty(String(c));
          const st = String(ERRORS[c as keyof typeof ERRORS].status);
          expect(op.responses[st].content["application/json"].examples[String(c)].value.code).toBe(c);
        }
      }
    }
    expect(doc.paths["/openapi/payin/orders/{orderNo}"].get["x-error-codes"]).toContain(40108);
    expect(doc.paths["/openapi/payin/exclusive-bindings/{bindKey}"].get["x-error-codes"]).toContain(40002);
    expect(doc.paths["/openapi/payout/orders"].post["x-error-codes"]).toEqual(expect.arrayContaining([53003, 54003, 31003]));
    expect(doc.paths["/openapi/payout/orders/{orderNo}/submit"].post["x-error-codes"]).toEqual(expect.arrayContaining([54001, 54002]));
  });

  test("every $ref resolves", () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(doc.components.schemas).toHaveProperty(r);
  });

  test("the failure body and the callback headers are described", () => {
    expect(doc.components.schemas.Failure.required.sort()).toEqual(["code", "data", "message", "requestId"]);
    const hook = doc.webhooks.payinCallback.post;
    expect(hook.parameters.map((p: any) => p.name)).toEqual([
      "x-callback-timestamp",
      "x-callback-nonce",
      "x-callback-signature",
      "x-callback-signature-algorithm",
      "x-callback-signature-version",
    ]);
  });

  test.each(MERCHANT_ROUTES.map((e) => [e.method.toUpperCase(), e.path] as const))("%s %s is a real route of the gateway", async (method, path) => {
    const concrete = path.replace(/\{[^}]+\}/g, "doc-probe");
    const err = await gw.client.request(method as "GET" | "POST", concrete, { body: method === "POST" ? {} : undefined }).then(
      () => null,
      (e) => e,
    );
    // Answered by the route (validation or not-found of the resource), not by the router.
    expect(err?.code).not.toBe(10002);
  });
});

describe("GET /docs", () => {
  let html: string;
  beforeAll(async () => {
    const res = await fetch(gw.url + "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    html = await res.text();
  });

  test("shows every endpoint, every error code and the signing rules", () => {
    for (const e of MERCHANT_ROUTES) expect(html.includes(`<code>${e.path}</code>`), e.path).toBe(true);
    for (const [code, e] of Object.entries(ERRORS)) {
      expect(html).toContain(`<code>${code}</code>`);
      expect(html.includes(e.message.replace(/'/g, "&#39;")), `${code} message on the page`).toBe(true);
    }
    for (const h of ["x-api-key", "x-merchant-uid", "x-timestamp", "x-nonce", "x-signature", "x-callback-signature"]) expect(html).toContain(h);
    expect(html).toContain("encodeURIComponent");
  });

  test("is self-contained: no scripts, no external stylesheets, fonts or images", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link[^>]+stylesheet/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
  });
});

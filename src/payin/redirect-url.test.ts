// The optional redirectUrl of a pay-in (a stablegate extension): validated like notifyUrl,
// echoed only when given (clients written to the spec see no new field), part of the
// idempotency check, and the paid checkout page's return link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { ApiError } from "../sdk/client";
import { payinOrders } from "../db/schema";
import { tableRows } from "../testing/engine-rows";

type Obj = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } }, callbacks: { allow_private_targets: false } } });
});
afterAll(() => gw.stop());

const create = (body: Obj) =>
  gw.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", amount: "9.5", notifyUrl: "https://shop.example/cb", ...body },
  });
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
};

describe("redirectUrl on create pay-in", () => {
  test("given: stored, echoed, and the paid checkout page links back to it", async () => {
    const o = await create({ merchantOrderNo: "R-1", redirectUrl: "https://shop.example/thanks?o=R-1&x=1" });
    expect(o.redirectUrl).toBe("https://shop.example/thanks?o=R-1&x=1");
    expect((await gw.client.request<Obj>("GET", `/openapi/payin/orders/${o.orderNo}`)).redirectUrl).toBe(o.redirectUrl);
    const sb = sandboxClient(gw.url);
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "9.5" });
    await sb.mine("TRON", 2);
    const html = await (await fetch(o.cashierUrl)).text();
    expect(html).toContain('data-testid="return-link" href="https://shop.example/thanks?o=R-1&amp;x=1"');
    expect(html).toMatch(/data-testid="return"\s*>/); // not hidden: the order is completed
  });

  test("absent: the answer has no redirectUrl member at all, and no return link is drawn", async () => {
    const o = await create({ merchantOrderNo: "R-2" });
    expect("redirectUrl" in o).toBe(false);
    expect(await (await fetch(o.cashierUrl)).text()).not.toContain("return-link");
  });

  test.each([
    ["javascript:alert(1)", "must use http or https"],
    ["ftp://shop.example/x", "must use http or https"],
    ["not a url", "must be an absolute http(s) URL"],
    ["https://user:pw@shop.example/", "must not carry credentials"],
    ["http://127.0.0.1/back", "must be a public address"],
  ])("%s is refused with 10001 naming redirectUrl, and nothing is written", async (url, reason) => {
    const e = await failure(create({ merchantOrderNo: `R-bad-${url.length}`, redirectUrl: url }));
    expect(e.code).toBe(10001);
    expect(e.data).toMatchObject({ fields: { redirectUrl: reason } });
    expect(await tableRows(gw.ctx.db, payinOrders, { merchantOrderNo: `R-bad-${url.length}` })).toEqual([]);
  });

  test("a JSON number or an empty string is refused too", async () => {
    expect((await failure(create({ merchantOrderNo: "R-3", redirectUrl: 5 }))).code).toBe(10001);
    expect((await failure(create({ merchantOrderNo: "R-4", redirectUrl: "" }))).code).toBe(10001);
  });

  test("idempotent retry: same redirectUrl returns the order; another one (or none) is 10001", async () => {
    const a = await create({ merchantOrderNo: "R-5", redirectUrl: "https://shop.example/a" });
    expect((await create({ merchantOrderNo: "R-5", redirectUrl: "https://shop.example/a" })).orderNo).toBe(a.orderNo);
    expect((await failure(create({ merchantOrderNo: "R-5", redirectUrl: "https://shop.example/b" }))).data).toMatchObject({ fields: { redirectUrl: expect.any(String) } });
    expect((await failure(create({ merchantOrderNo: "R-5" }))).code).toBe(10001);
  });

  test("documented in /openapi.json as an optional create field", async () => {
    const doc = (await (await fetch(gw.url + "/openapi.json")).json()) as Obj;
    const s = doc.components.schemas.CreatePayinOrder;
    expect(s.properties.redirectUrl.type).toBe("string");
    expect(s.required).not.toContain("redirectUrl");
    expect(doc.components.schemas.PayinOrder.required).not.toContain("redirectUrl");
  });
});

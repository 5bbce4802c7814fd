// DESIGN 5 "Text fields", as properties over generated strings, through the
// real HTTP API: two different well-formed inputs never map to one binding or
// order; ill-formed ones (a lone surrogate) are 10001 with nothing written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { startTestGateway, type TestGateway } from "../testing/harness";

type Obj = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

const count = (table: string) => (gw.ctx.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const fail = (p: Promise<unknown>) => p.then(() => null, (e: Obj) => e);
const bind = (bindKey: string, extra: Obj = {}) =>
  gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey, ...extra } });
const getBinding = (bindKey: string) => gw.client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${encodeURIComponent(bindKey)}`, { query: { chainCode: "TRON", tokenSymbol: "USDT" } });
let amount = 1;
const order = (merchantOrderNo: string, extra: Obj = {}, client = gw.client) =>
  client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo, amount: `${amount++}.5`, notifyUrl: "https://shop.example/cb", ...extra },
  });

const cps = (s: string) => [...s].length;
/** Well-formed strings of 1-128 code points over all of Unicode (astral included), never "." or "..". */
/** DESIGN 10: identifiers refuse control characters and bidirectional overrides (tested below). */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const wellFormed = fc.string({ unit: "binary", minLength: 1, maxLength: 128 }).filter((s) => s !== "." && s !== ".." && !FORBIDDEN.test(s));
const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** A well-formed prefix and suffix around one lone surrogate (kept lone: not followed/preceded by its pair). */
const illFormed = fc
  .tuple(fc.string({ unit: "binary-ascii", maxLength: 20 }), lone, fc.string({ unit: "binary-ascii", maxLength: 20 }))
  .map(([a, l, b]) => a + l + b);

describe("bindKey", () => {
  test("the reported collision: three keys, three bindings, three addresses", async () => {
    const keys = ["user\ud800", "user\udbff", "user\ufffd"];
    const results = await Promise.all(keys.map((k) => fail(bind(k)).then((e) => e ?? "ok")));
    expect((results[0] as Obj).code).toBe(10001);
    expect((results[0] as Obj).data.fields.bindKey).toMatch(/well-formed/);
    expect((results[1] as Obj).code).toBe(10001);
    const ok = await bind("user\ufffd");
    expect((await getBinding("user\ufffd")).bindingId).toBe(ok.bindingId);
    // The percent-encoded forms of a lone surrogate and a stray byte do not find the U+FFFD binding.
    for (const raw of ["user%ED%A0%80", "user%FF"]) {
      const e = (await fail(gw.client.request("GET", `/openapi/payin/exclusive-bindings/${raw}`, { query: { chainCode: "TRON", tokenSymbol: "USDT" } }))) as Obj;
      expect(e.code).toBe(10001);
    }
  });

  test("property: distinct well-formed keys get distinct bindings and addresses, and read back exactly", async () => {
    await fc.assert(
      fc.asyncProperty(wellFormed, wellFormed, async (a, b) => {
        fc.pre(a !== b);
        const [x, y] = [await bind(a), await bind(b)];
        expect(x.bindingId).not.toBe(y.bindingId);
        expect(x.address).not.toBe(y.address);
        expect(x.bindKey).toBe(a);
        expect(y.bindKey).toBe(b);
        expect((await getBinding(a)).bindingId).toBe(x.bindingId);
        expect((await bind(a)).bindingId).toBe(x.bindingId); // get-or-create finds the same one
      }),
      { numRuns: 40 },
    );
  });

  test("property: a key with a lone surrogate is 10001 and writes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(illFormed, async (k) => {
        const before = [count("bindings"), count("addresses")];
        const e = (await fail(bind(k))) as Obj;
        expect(e?.code).toBe(10001);
        expect(e.data.fields.bindKey).toMatch(/well-formed/);
        expect([count("bindings"), count("addresses")]).toEqual(before);
      }),
      { numRuns: 60 },
    );
  });

  test("limits count code points; . and .. are refused; label follows the same rules", async () => {
    const astral = "😀".repeat(128); // 256 UTF-16 units, 128 code points
    expect((await bind(astral)).bindKey).toBe(astral);
    for (const [key, extra, field] of [
      ["😀".repeat(129), {}, "bindKey"],
      ["a".repeat(129), {}, "bindKey"],
      [".", {}, "bindKey"],
      ["..", {}, "bindKey"],
      ["", {}, "bindKey"],
      ["ok-label-1", { label: "x\udc00" }, "label"],
      ["ok-label-2", { label: "é".repeat(129) }, "label"],
    ] as Array<[string, Obj, string]>) {
      const before = count("bindings");
      const e = (await fail(bind(key, extra))) as Obj;
      expect([key, e?.code]).toEqual([key, 10001]);
      expect(Object.keys(e.data.fields)).toContain(field);
      expect(count("bindings")).toBe(before);
    }
    expect((await bind("ok-label-3", { label: "🎉".repeat(128) })).label).toBe("🎉".repeat(128));
    expect(cps("🎉".repeat(128))).toBe(128);
  });
});

describe("merchantOrderNo", () => {
  test("property: distinct well-formed numbers are distinct orders and read back exactly", async () => {
    await fc.assert(
      fc.asyncProperty(wellFormed, wellFormed, async (a, b) => {
        fc.pre(a !== b);
        const m = await gw.newMerchant("orders"); // runs may repeat a number: each run starts clean
        const [x, y] = [await order(a, {}, m.client), await order(b, {}, m.client)];
        expect(x.orderNo).not.toBe(y.orderNo);
        expect([x.merchantOrderNo, y.merchantOrderNo]).toEqual([a, b]);
        expect((await m.client.request<Obj>("GET", `/openapi/payin/orders/${x.orderNo}`)).merchantOrderNo).toBe(a);
        // An idempotent retry finds the order by exactly this number; the other number is another order.
        const again = await order(a, { amount: x.amount.replace(/0+$/, "").replace(/\.$/, "") }, m.client);
        expect(again.orderNo).toBe(x.orderNo);
      }),
      { numRuns: 40 },
    );
  });

  test("property: a number with a lone surrogate is 10001 and writes nothing (pay-in and payout)", async () => {
    await fc.assert(
      fc.asyncProperty(illFormed, async (n) => {
        const before = [count("payin_orders"), count("payout_orders"), count("callbacks")];
        const e = (await fail(order(n))) as Obj;
        expect(e?.code).toBe(10001);
        expect(e.data.fields.merchantOrderNo).toMatch(/well-formed/);
        const p = (await fail(
          gw.client.request("POST", "/openapi/payout/orders", {
            body: { chainCode: "TRON", tokenSymbol: "USDT", toAddress: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", amount: "1", merchantOrderNo: n, notifyUrl: "https://shop.example/cb" },
          }),
        )) as Obj;
        expect(p?.code).toBe(10001);
        expect(p.data.fields.merchantOrderNo).toMatch(/well-formed/);
        expect([count("payin_orders"), count("payout_orders"), count("callbacks")]).toEqual(before);
      }),
      { numRuns: 40 },
    );
  });

  test("128 code points pass, 129 do not", async () => {
    expect((await order("𝔸".repeat(128))).merchantOrderNo).toBe("𝔸".repeat(128));
    expect(((await fail(order("𝔸".repeat(129)))) as Obj).code).toBe(10001);
  });
});

describe("identifier characters (DESIGN 10)", () => {
  const bad = ["A\u0000B", "A\u0007B", "A\u001fB", "A\u007fB", "A\u0085B", "A\nB", "A\u202aB", "pay\u202eroF", "A\u2066B", "A\u2069B"];
  test.each(bad)("merchantOrderNo %j is 10001 and writes nothing (pay-in and payout)", async (no) => {
    const before = [count("payin_orders"), count("payout_orders")];
    const e = (await fail(order(no))) as Obj;
    expect(e.code).toBe(10001);
    expect(e.data.fields.merchantOrderNo).toContain("control characters or bidirectional overrides");
    const p = (await fail(gw.client.request("POST", "/openapi/payout/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: no, toAddress: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", amount: "1" } }))) as Obj;
    expect(p.code).toBe(10001);
    expect(p.data.fields.merchantOrderNo).toBeDefined();
    expect([count("payin_orders"), count("payout_orders")]).toEqual(before);
  });
  test.each(bad)("bindKey and label %j are 10001", async (text) => {
    const k = (await fail(bind(text))) as Obj;
    expect(k.code).toBe(10001);
    expect(k.data.fields.bindKey).toContain("bidirectional");
    const l = (await fail(bind(`ok-key-${[...text].map((c) => c.charCodeAt(0)).join("-")}`, { label: text }))) as Obj;
    expect(l.code).toBe(10001);
    expect(l.data.fields.label).toContain("bidirectional");
  });
  test("other Unicode (RTL letters, emoji, U+200F marks aside) is still accepted", async () => {
    expect((await order("طلب-١٢٣-😀")).merchantOrderNo).toBe("طلب-١٢٣-😀");
  });
});

describe("amounts and notifyUrl", () => {
  test.each([
    ["01", false],
    ["00.5", false],
    ["007", false],
    ["0.5", true],
    ["10", true],
    ["10.000001", true],
  ])("amount %s accepted: %p", async (value, ok) => {
    const r = await fail(order(`AMT-${value}`, { amount: value }));
    if (ok) expect(r).toBeNull();
    else expect(r).toMatchObject({ code: 10001, data: { fields: { amount: expect.stringContaining("leading zeros") } } });
  });

  test.each(["http://./cb", "http://../cb", "https:///", "http:", "ftp://shop.example/cb", "http://shop\ud800.example/cb"])("notifyUrl %s is 10001", async (url) => {
    const r = (await fail(order(`URL-${Math.random()}`, { notifyUrl: url }))) as Obj;
    expect(r?.code).toBe(10001);
    expect(Object.keys(r.data.fields)).toContain("notifyUrl");
  });
});

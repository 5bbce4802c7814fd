// Invoices through the signed merchant API on a sandbox gateway (DESIGN 18): creation, idempotency,
// bad input (nothing written), 56002, a network chosen and paid (callbacks businessType "invoice"
// through the one outbox, signed like every callback), amount nudging, a network switch, expiry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { callbacks, invoices, payinOrders } from "../db/schema";
import { TestClock } from "../lib/clock";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { tableRows } from "../testing/engine-rows";
import { startReceiver, type Receiver } from "../testing/receiver";
import { sandboxClient } from "../testing/sandbox";
import { ApiError } from "../sdk/client";
import { verifyCallback } from "../sdk/callback";
import { chooseNetwork } from "../payin/invoice-network";
import { expireDueInvoices } from "./service";
import { startCallbackWorker } from "../callbacks/worker";

const T0 = Date.parse("2026-11-24T08:00:00Z");

async function failure(p: Promise<unknown>): Promise<{ status: number; code: number; data: unknown }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, code: e.code, data: e.data };
    throw e;
  }
  throw new Error("expected a failure");
}

describe("invoices through the merchant API", () => {
  let gw: TestGateway;
  let rx: Receiver;
  const clock = new TestClock(T0);
  const count = async () => ({
    invoices: (await tableRows(gw.ctx.db, invoices)).length,
    callbacks: (await tableRows(gw.ctx.db, callbacks)).length,
  });
  const tokenOf = (url: string) => url.split("/invoice/")[1]!;

  beforeAll(async () => {
    rx = startReceiver();
    gw = await startTestGateway({
      clock,
      jobs: false,
      config: {
        rates: { source: "fixed", fixed: { CNY: "7.10", EUR: "0.92" } },
        payin: { shared_pool_size: 1 },
        chains: { TRON: { confirmations: 2 }, BSC: { enabled: false } },
      },
    });
  });
  afterAll(async () => {
    await gw.stop();
    await rx.stop();
  });

  test("a CNY invoice: open, no payment yet, every enabled network offered, the hosted page's URL", async () => {
    const inv = await gw.client.createInvoice({ merchantOrderNo: "inv-1", priceAmount: "71", priceCurrency: "CNY", description: "Blue mug", notifyUrl: rx.url + "/cb" });
    expect(inv).toMatchObject({
      merchantOrderNo: "inv-1",
      priceAmount: "71.00",
      priceCurrency: "CNY",
      description: "Blue mug",
      status: "open",
      payments: ["TRON:USDT", "SOL:USDC", "SOL:USDT"],
      paidAt: null,
      payment: null,
      createdAt: new Date(T0).toISOString(),
      expireAt: new Date(T0 + 30 * 60_000).toISOString(),
    });
    expect(inv.invoiceNo).toMatch(/^IV\d{24}$/);
    expect(inv.invoiceUrl).toStartWith(`${gw.url}/invoice/`);
    expect(await gw.client.getInvoice(inv.invoiceNo)).toEqual(inv);
  });

  test("the same merchantOrderNo and body returns the invoice; another body is 10001 naming the fields", async () => {
    const body = { merchantOrderNo: "inv-idem", priceAmount: "10.5", priceCurrency: "EUR", payments: ["SOL:USDC"], expireMinutes: 60 };
    const a = await gw.client.createInvoice(body);
    const before = await count();
    const b = await gw.client.createInvoice({ ...body, priceAmount: "10.50" });
    expect(b.invoiceNo).toBe(a.invoiceNo);
    const f = await failure(gw.client.createInvoice({ ...body, priceAmount: "11", expireMinutes: 61 }));
    expect(f).toMatchObject({ status: 400, code: 10001, data: { fields: { priceAmount: expect.any(String), expireMinutes: expect.any(String) }, invoiceNo: a.invoiceNo } });
    expect(await count()).toEqual(before);
  });

  test("concurrent duplicates create one invoice", async () => {
    const body = { merchantOrderNo: "inv-race", priceAmount: "3", priceCurrency: "USD" };
    const got = await Promise.all(Array.from({ length: 6 }, () => gw.client.createInvoice(body)));
    expect(new Set(got.map((i) => i.invoiceNo)).size).toBe(1);
    expect(await tableRows(gw.ctx.db, invoices, { merchantOrderNo: "inv-race" })).toHaveLength(1);
  });

  const bad: Array<[string, Record<string, unknown>, number, number]> = [
    ["an unknown currency", { priceCurrency: "XYZ" }, 400, 10001],
    ["a lower-case currency", { priceCurrency: "cny" }, 400, 10001],
    ["a fiat price with 3 fractional digits", { priceAmount: "10.123" }, 400, 10001],
    ["a USDT price with 7 fractional digits", { priceCurrency: "USDT", priceAmount: "1.1234567" }, 400, 10001],
    ["a price of 0", { priceAmount: "0.00" }, 400, 10001],
    ["a JSON number price", { priceAmount: 10 }, 400, 10001],
    ["a disabled chain", { payments: ["BSC:USDT"] }, 400, 31001],
    ["an unknown chain", { payments: ["DOGE:USDT"] }, 400, 31001],
    ["a token the chain does not carry", { payments: ["TRON:USDC"] }, 400, 31003],
    ["an unknown token", { payments: ["TRON:DAI"] }, 400, 31002],
    ["a payments entry that is not CHAIN:TOKEN", { payments: ["TRON-USDT"] }, 400, 10001],
    ["an empty payments list", { payments: [] }, 400, 10001],
    ["expireMinutes 4", { expireMinutes: 4 }, 400, 10001],
    ["expireMinutes 1441", { expireMinutes: 1441 }, 400, 10001],
    ["expireMinutes as a string", { expireMinutes: "30" }, 400, 10001],
    ["a description of 257 characters", { description: "x".repeat(257) }, 400, 10001],
    ["a notifyUrl that is not http(s)", { notifyUrl: "ftp://shop.example/cb" }, 400, 10001],
  ];
  test.each(bad)("%s: clear error, nothing written", async (_name, patch, status, code) => {
    const before = await count();
    const f = await failure(gw.client.createInvoice({ merchantOrderNo: `bad-${code}-${JSON.stringify(patch).length}`, priceAmount: "10", priceCurrency: "CNY", ...patch } as never));
    expect([f.status, f.code]).toEqual([status, code]);
    expect(await count()).toEqual(before);
  });

  test("an unknown invoice and another merchant's are both 56002 (404)", async () => {
    const mine = await gw.client.createInvoice({ merchantOrderNo: "inv-own", priceAmount: "5", priceCurrency: "USD" });
    expect(await failure(gw.client.getInvoice("IV000"))).toMatchObject({ status: 404, code: 56002 });
    expect(await failure((await gw.newMerchant("Other")).client.getInvoice(mine.invoiceNo))).toMatchObject({ status: 404, code: 56002 });
  });

  test("the payer picks TRON USDT: amount = price / rate rounded up, rate locked; paid on chain; callbacks follow", async () => {
    const sb = sandboxClient(gw.url);
    const inv = await gw.client.createInvoice({ merchantOrderNo: "inv-pay", priceAmount: "100", priceCurrency: "CNY", notifyUrl: rx.url + "/inv" });
    const { order } = await chooseNetwork(gw.ctx, tokenOf(inv.invoiceUrl), "TRON:USDT");
    const chosen = await gw.client.getInvoice(inv.invoiceNo);
    expect(chosen.status).toBe("open");
    expect(chosen.payment).toEqual({ orderNo: order.orderNo, chainCode: "TRON", tokenSymbol: "USDT", amount: "14.084508", rate: "7.10", paidAmount: null, txHash: null, status: "waiting_payment" });
    // The pay-in is the invoice's: same expiry, its own merchantOrderNo, no pay-in callback.
    const pi = await gw.client.getPayinOrder(order.orderNo);
    expect([pi.merchantOrderNo, pi.expireAt]).toEqual([`${inv.invoiceNo}-1`, inv.expireAt]);
    // Choosing it again is the same order.
    expect((await chooseNetwork(gw.ctx, tokenOf(inv.invoiceUrl), "TRON:USDT")).order.orderNo).toBe(order.orderNo);

    const worker = await startCallbackWorker(gw.ctx);
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: order.address, amount: "14.084508" });
    await sb.mine("TRON", 2);
    const paid = await gw.client.getInvoice(inv.invoiceNo);
    expect(paid).toMatchObject({ status: "paid", paidAt: expect.any(String), payment: { status: "completed", paidAmount: "14.084508", txHash: expect.any(String) } });

    const rows = (await tableRows(gw.ctx.db, callbacks, { orderNo: inv.invoiceNo }));
    expect(rows.map((r) => [r.kind, r.status])).toEqual([["invoice", "open"], ["invoice", "paid"]]);
    expect((await tableRows(gw.ctx.db, callbacks, { orderNo: order.orderNo }))).toEqual([]);
    const got = await rx.waitFor((r) => r.some((x) => x.path === "/inv" && JSON.parse(x.text).status === "paid"), 10_000).finally(() => worker.stop());
    const last = got.filter((x) => x.path === "/inv").at(-1)!;
    expect(verifyCallback(last.raw, last.headers, gw.merchant.apiKey)).toBe(true);
    expect(JSON.parse(last.text)).toMatchObject({ merchantUid: gw.merchant.uid, businessType: "invoice", invoiceNo: inv.invoiceNo, status: "paid", payment: { orderNo: order.orderNo } });
  });

  test("an amount taken on every pool address is nudged up one base unit at a time, not 40105", async () => {
    // Pool size 1: a plain pay-in of 1.408451 USDT holds the only TRON address.
    await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "occupy", amount: "1.408451", notifyUrl: rx.url + "/p" });
    const a = await gw.client.createInvoice({ merchantOrderNo: "nudge-a", priceAmount: "10", priceCurrency: "CNY" });
    const b = await gw.client.createInvoice({ merchantOrderNo: "nudge-b", priceAmount: "10", priceCurrency: "CNY" });
    expect((await chooseNetwork(gw.ctx, tokenOf(a.invoiceUrl), "TRON:USDT")).order.amount).toBe("1408452");
    expect((await chooseNetwork(gw.ctx, tokenOf(b.invoiceUrl), "TRON:USDT")).order.amount).toBe("1408453");
  });

  test("Change network: the old pay-in closes, the invoice stays open on the new one, no cancelled callback", async () => {
    const inv = await gw.client.createInvoice({ merchantOrderNo: "inv-switch", priceAmount: "9.20", priceCurrency: "EUR" });
    const first = (await chooseNetwork(gw.ctx, tokenOf(inv.invoiceUrl), "TRON:USDT")).order;
    const second = (await chooseNetwork(gw.ctx, tokenOf(inv.invoiceUrl), "SOL:USDC")).order;
    expect((await gw.client.getPayinOrder(first.orderNo)).status).toBe("cancelled");
    const now = await gw.client.getInvoice(inv.invoiceNo);
    expect(now).toMatchObject({ status: "open", payment: { orderNo: second.orderNo, chainCode: "SOL", tokenSymbol: "USDC", amount: "10.000000", rate: "0.92" } });
    expect((await tableRows(gw.ctx.db, callbacks, { orderNo: inv.invoiceNo })).map((r) => r.status)).toEqual(["open"]);
    // Once a payment is detected the network can no longer change.
    await sandboxClient(gw.url).transfer({ chainCode: "SOL", tokenSymbol: "USDC", toAddress: second.address, amount: "10" });
    await expect((async () => await chooseNetwork(gw.ctx, tokenOf(inv.invoiceUrl), "TRON:USDT"))()).rejects.toThrow(/payment_detected/);
    expect((await tableRows(gw.ctx.db, payinOrders, { invoiceId: second.invoiceId! })).length).toBe(2);
  });

  test("an invoice nobody chose a network for expires at expireAt, with its callback; then no choice", async () => {
    const inv = await gw.client.createInvoice({ merchantOrderNo: "inv-exp", priceAmount: "5", priceCurrency: "USDT", expireMinutes: 5 });
    clock.set(T0 + 5 * 60_000 - 1);
    expect(await expireDueInvoices(gw.ctx)).toBe(0);
    clock.set(clock.now() + 2);
    expect(await expireDueInvoices(gw.ctx)).toBe(1);
    expect((await gw.client.getInvoice(inv.invoiceNo)).status).toBe("expired");
    expect((await tableRows(gw.ctx.db, callbacks, { orderNo: inv.invoiceNo })).map((r) => r.status)).toEqual(["open", "expired"]);
    await expect((async () => await chooseNetwork(gw.ctx, tokenOf(inv.invoiceUrl), "TRON:USDT"))()).rejects.toThrow(/closed/);
  });
});

// DESIGN 17, 23: a network turned on is offered like the others, with its label and 6-decimal amounts.
describe("invoices on the networks that are off by default", () => {
  let gw2: TestGateway;
  beforeAll(async () => {
    gw2 = await startTestGateway({ jobs: false, config: { rates: { source: "fixed", fixed: { CNY: "7.10" } }, chains: { POLYGON: { enabled: true }, BASE: { enabled: true, confirmations: 2 }, OPTIMISM: { enabled: true }, AVALANCHE: { enabled: true }, XLAYER: { enabled: true }, PLASMA: { enabled: true, confirmations: 2 } } } });
  });
  afterAll(() => gw2?.stop());

  test("POLYGON, BASE, OPTIMISM, AVALANCHE, XLAYER, PLASMA are offered and shown once enabled; the payer picks Base USDC and pays it", async () => {
    const inv = await gw2.client.createInvoice({ merchantOrderNo: "inv-base", priceAmount: "71", priceCurrency: "CNY" });
    expect(inv.payments).toEqual([
      "TRON:USDT", "BSC:USDT", "BSC:USDC", "SOL:USDC", "SOL:USDT", "POLYGON:USDT", "POLYGON:USDC", "BASE:USDC",
      "OPTIMISM:USDT", "OPTIMISM:USDC", "AVALANCHE:USDT", "AVALANCHE:USDC", "XLAYER:USDT", "XLAYER:USDC", "PLASMA:USDT",
    ]);
    const html = await (await fetch(inv.invoiceUrl)).text();
    for (const name of ["Polygon USDT", "Polygon USDC", "Base USDC", "OP Mainnet USDT", "Avalanche C-Chain USDC", "X Layer USDT", "Plasma USDT"]) expect(html).toContain(name);
    expect(html).not.toContain("Ethereum USDT");
    const { order } = await chooseNetwork(gw2.ctx, inv.invoiceUrl.split("/invoice/")[1]!, "BASE:USDC");
    expect((await gw2.client.getInvoice(inv.invoiceNo)).payment).toMatchObject({ chainCode: "BASE", tokenSymbol: "USDC", amount: "10.000000" });
    const sb = sandboxClient(gw2.url);
    await sb.transfer({ chainCode: "BASE", tokenSymbol: "USDC", toAddress: order.address, amount: "10" });
    await sb.mine("BASE", 2);
    expect(await gw2.client.getInvoice(inv.invoiceNo)).toMatchObject({ status: "paid", payment: { status: "completed", paidAmount: "10.000000" } });
  });

  test("an invoice offering Plasma USDT only: the payer picks it and pays it", async () => {
    const inv = await gw2.client.createInvoice({ merchantOrderNo: "inv-plasma", priceAmount: "35.5", priceCurrency: "CNY", payments: ["PLASMA:USDT"] });
    const { order } = await chooseNetwork(gw2.ctx, inv.invoiceUrl.split("/invoice/")[1]!, "PLASMA:USDT");
    expect((await gw2.client.getInvoice(inv.invoiceNo)).payment).toMatchObject({ chainCode: "PLASMA", tokenSymbol: "USDT", amount: "5.000000" });
    const sb = sandboxClient(gw2.url);
    await sb.transfer({ chainCode: "PLASMA", tokenSymbol: "USDT", toAddress: order.address, amount: "5" });
    await sb.mine("PLASMA", 2);
    expect(await gw2.client.getInvoice(inv.invoiceNo)).toMatchObject({ status: "paid", payment: { status: "completed", paidAmount: "5.000000" } });
  });
});

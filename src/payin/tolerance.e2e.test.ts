// Underpayment tolerance end to end on a sandbox gateway (DESIGN 18): [payin] underpay_tolerance
// = "0.05" and underpay_tolerance_percent = "1" (the larger applies). Each row pays one order (its
// merchant's only open one on that address) and reads where it landed; an invoice follows the same rule.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { chooseNetwork } from "./invoice-network";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { payin: { underpay_tolerance: "0.05", underpay_tolerance_percent: "1" }, rates: { fixed: { CNY: "7.10" } }, chains: { TRON: { confirmations: 2 } } } });
});
afterAll(() => gw.stop());

describe("a short payment within the tolerance completes with the real paidAmount; beyond it, or over, it freezes", () => {
  const rows: Array<[expected: string, paid: string, status: string]> = [
    ["10", "9.95", "completed"], // the absolute 0.05
    ["10", "9.9", "completed"], // 1 % of 10 is larger
    ["10", "9.899999", "frozen_abnormal"],
    ["100", "99", "completed"], // 1 %
    ["100", "98.999999", "frozen_abnormal"],
    ["1", "0.95", "completed"], // the absolute 0.05 is larger than 1 %
    ["1", "0.949999", "frozen_abnormal"],
    ["10", "10.01", "frozen_abnormal"], // overpaid: never tolerated
    ["10", "10", "completed"],
  ];
  test.each(rows)("expected %s, paid %s -> %s", async (expected, paid, status) => {
    const m = await gw.newMerchant(`tol ${expected} ${paid}`);
    const o = await m.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "T-1", amount: expected, notifyUrl: "https://shop.example/cb" });
    const sb = sandboxClient(gw.url);
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: paid });
    await sb.mine("TRON", 2);
    const got = await m.client.getPayinOrder(o.orderNo);
    expect([got.status, got.amount, got.paidAmount]).toEqual([status, Number(expected).toFixed(6), Number(paid).toFixed(6)]);
  });
});

test("an invoice paid short within the tolerance is paid, with the real paidAmount", async () => {
  const m = await gw.newMerchant("tol invoice");
  const inv = await m.client.createInvoice({ merchantOrderNo: "TI-1", priceAmount: "100", priceCurrency: "CNY" });
  const { order } = await chooseNetwork(gw.ctx, inv.invoiceUrl.split("/invoice/")[1]!, "TRON:USDT"); // 14.084508 USDT
  const sb = sandboxClient(gw.url);
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: order.address, amount: "14" }); // 0.084508 short: 1 % is 0.140845
  await sb.mine("TRON", 2);
  expect(await m.client.getInvoice(inv.invoiceNo)).toMatchObject({ status: "paid", payment: { amount: "14.084508", paidAmount: "14.000000", status: "completed" } });
});

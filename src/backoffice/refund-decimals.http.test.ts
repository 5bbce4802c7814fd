// The back office's Refund form and the token's decimal places (issue 36): the Amount field takes
// at most as many decimal places as the token has (6 for TRC20 USDT, 18 for BEP20 USDT), and the
// server refuses more with a clear error, nothing made. On BSC a refund of 0.0000001 is exact, and
// the form's prefilled remainder (7 places) matches its own pattern and submits.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn, hiddenFieldsOf, type BackofficeClient } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { refunds } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { addUser } from "../testing/backoffice-browser";
import type { ChainCode } from "../chains/types";
import { refundAmountPattern } from "./pages/refunds";

let gw: TestGateway;
let op: { bo: BackofficeClient; password: string };
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 }, BSC: { confirmations: 2 } } } });
  const u = await addUser(gw, "decimals-op", "operator");
  op = { bo: await backofficeSignIn(gw.url, u), password: u.password };
});
afterAll(() => gw.stop());

let n = 0;
async function paidOrder(chainCode: ChainCode): Promise<string> {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode, tokenSymbol: "USDT", merchantOrderNo: `dec-${++n}`, amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode, tokenSymbol: "USDT", toAddress: o.address, amount: "10" });
  await sb.mine(chainCode, 3);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
  return o.orderNo;
}
const refundAmounts = async (orderNo: string) => (await tableRows(gw.ctx.db, refunds, { orderNo })).map((r) => r.amount);
const decoded = async (r: Response) => (await r.text()).replaceAll("&#39;", "'").replaceAll("&#x27;", "'");

/** The order page's Refund form: its Amount input (pattern, prefilled value) and hidden fields. */
async function refundForm(orderNo: string) {
  const html = await (await op.bo.get(`/backoffice/orders/${orderNo}`)).text();
  const input = /<input[^>]*id="refund-amount"[^>]*>/.exec(html)![0];
  return {
    pattern: new RegExp(/pattern="([^"]*)"/.exec(input)![1]!.replaceAll("&#92;", "\\")),
    value: /value="([^"]*)"/.exec(input)![1]!,
    hidden: hiddenFieldsOf(html, `/backoffice/orders/${orderNo}/refund`),
  };
}
const post = (chain: ChainCode, orderNo: string, hidden: Record<string, string>, amount: string) =>
  op.bo.post(`/backoffice/orders/${orderNo}/refund`, { ...hidden, mode: "address", amount, toAddress: randomAddress(chain), _reauth: op.password });

test.each([
  [6, "1.123456", true],
  [6, "1.1234567", false],
  [6, "0.0000001", false],
  [18, "0.0000001", true],
  [18, "9.9999999", true],
  [18, "1." + "1".repeat(18), true],
  [18, "1." + "1".repeat(19), false],
  [0, "5", true],
  [0, "5.1", false],
] as const)("the Amount pattern for %i decimal places: %s → %p", (decimals, amount, ok) => {
  expect(new RegExp(refundAmountPattern(decimals)).test(amount)).toBe(ok);
});

test("TRON (6 places): 0.0000001 is refused with the reason, nothing made; the form's pattern says 6", async () => {
  const orderNo = await paidOrder("TRON");
  const f = await refundForm(orderNo);
  expect(f.pattern.test("0.0000001")).toBe(false);
  expect(f.pattern.test(f.value)).toBe(true);
  const r = await post("TRON", orderNo, f.hidden, "0.0000001");
  expect(r.status).toBe(200);
  expect(await decoded(r)).toContain("amount has more decimal places than the token has (at most 6)");
  expect(await refundAmounts(orderNo)).toEqual([]);
});

test("BSC (18 places): 0.0000001 is refunded exactly; the prefilled remainder matches the form's pattern and submits", async () => {
  const orderNo = await paidOrder("BSC");
  const first = await refundForm(orderNo);
  expect((await post("BSC", orderNo, first.hidden, "0.0000001")).status).toBe(303);
  const rest = await refundForm(orderNo);
  expect(rest.value).toBe("9.9999999");
  expect(rest.pattern.test(rest.value)).toBe(true);
  expect((await post("BSC", orderNo, rest.hidden, rest.value)).status).toBe(303);
  expect(await refundAmounts(orderNo)).toEqual(["100000000000", "9999999900000000000"]);
});

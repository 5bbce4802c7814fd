// Search by prefix (issue 30): orderNo, merchantOrderNo, txHash and address find what starts with
// the text typed (range seeks, plan-tested in query-plans.test.ts), within the viewer's scope; a
// text shorter than MIN_PREFIX is matched exactly only; one record found is a single hit.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { sandboxClient } from "../../testing/sandbox";
import { eventually } from "../../testing/wait";
import { MIN_PREFIX, prefixEnd, search, singleHit } from "./search";

let gw: TestGateway;
let other: Awaited<ReturnType<TestGateway["newMerchant"]>>;
const made: Record<string, Record<string, string>> = {};
let txHash = "";
const decimals = () => 6;
const op = { merchantId: null };

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 1 } }, payin: { shared_pool_size: 1 } } });
  other = await gw.newMerchant("Other");
  const create = (client: typeof gw.client, merchantOrderNo: string) =>
    client.request<Record<string, string>>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo, amount: `1.${Object.keys(made).length + 1}`, notifyUrl: "https://shop.example/cb" } });
  for (const no of ["SHOP-ABC-1", "SHOP-ABC-2", "SHOP-XYZ-1"]) made[no] = await create(gw.client, no);
  made["SHOP-ABC-9"] = await create(other.client, "SHOP-ABC-9");
  const sb = sandboxClient(gw.url);
  txHash = String((await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: made["SHOP-XYZ-1"]!.address!, amount: made["SHOP-XYZ-1"]!.amount! })).txHash);
  await sb.mine("TRON", 1);
  await eventually(async () => (await search(gw.ctx.db, op, txHash, decimals)).payins.length === 1, 15_000, "the paid order's txHash");
});
afterAll(() => gw.stop());

const merchantOrders = (r: Awaited<ReturnType<typeof search>>) => r.payins.map((o) => o.merchantOrderNo).sort();

test("prefixEnd is the first text after every text that starts with the prefix", () => {
  expect(prefixEnd("PI2026")).toBe("PI2027");
  expect(prefixEnd("abz")).toBe("ab{");
  for (const q of ["SHOP-", "0xAbC", "T9y", "é", "a😀"]) {
    expect(q + "zzz" < prefixEnd(q)).toBe(true);
    expect(q + "\u{10FFFE}" < prefixEnd(q)).toBe(true);
    expect(prefixEnd(q) > q).toBe(true);
  }
});

test("merchantOrderNo, orderNo, txHash and address by prefix, within the viewer's scope", async () => {
  const mine = { merchantId: gw.merchant.id };
  expect(merchantOrders(await search(gw.ctx.db, op, "SHOP-ABC", decimals))).toEqual(["SHOP-ABC-1", "SHOP-ABC-2", "SHOP-ABC-9"]);
  expect(merchantOrders(await search(gw.ctx.db, mine, "SHOP-ABC", decimals))).toEqual(["SHOP-ABC-1", "SHOP-ABC-2"]);
  expect(merchantOrders(await search(gw.ctx.db, { merchantId: other.id }, "SHOP-", decimals))).toEqual(["SHOP-ABC-9"]);
  // The exact value still finds its order, and only it.
  expect(merchantOrders(await search(gw.ctx.db, mine, "SHOP-ABC-1", decimals))).toEqual(["SHOP-ABC-1"]);
  // orderNo: all but the last characters.
  const orderNo = made["SHOP-ABC-2"]!.orderNo!;
  expect((await search(gw.ctx.db, op, orderNo.slice(0, -3), decimals)).payins.map((o) => o.orderNo)).toContain(orderNo);
  // txHash: its first characters find the paid order and its deposit.
  const byTx = await search(gw.ctx.db, mine, txHash.slice(0, 12), decimals);
  expect(byTx.payins.map((o) => o.merchantOrderNo)).toEqual(["SHOP-XYZ-1"]);
  expect(byTx.deposits.map((t) => t.txHash)).toEqual([txHash]);
  // Address: the pool address's first characters (one shared address: every order of it).
  const address = made["SHOP-XYZ-1"]!.address!;
  const byAddress = await search(gw.ctx.db, mine, address.slice(0, 10), decimals);
  expect(byAddress.payins.map((o) => o.address)).toContain(address);
  expect(byAddress.deposits.map((t) => t.toAddress)).toContain(address);
  // Too short for a prefix: exact only.
  expect((await search(gw.ctx.db, op, "SHOP-ABC".slice(0, MIN_PREFIX - 1), decimals)).payins).toEqual([]);
  // Nothing starts with it.
  expect(await search(gw.ctx.db, op, "NOPE-NOTHING", decimals)).toEqual({ payins: [], payouts: [], deposits: [] });
});

test("one record found is a single hit that opens its page; several are a list", async () => {
  const one = await search(gw.ctx.db, op, "SHOP-XYZ", decimals);
  expect(singleHit(one)).toBe(`/backoffice/orders/${made["SHOP-XYZ-1"]!.orderNo}`);
  expect(singleHit(await search(gw.ctx.db, op, "SHOP-ABC", decimals))).toBeNull();
  const deposit = await search(gw.ctx.db, op, txHash, decimals);
  expect(singleHit(deposit)).toBeNull(); // the order and its deposit
  expect(singleHit({ payins: [], payouts: [], deposits: deposit.deposits })).toBe(`/backoffice/deposits/${deposit.deposits[0]!.id}`);
});

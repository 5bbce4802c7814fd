// Exclusive wallet statistics: counts, exact received totals (beyond 64 bits on
// 18-decimal tokens), pending deposits, and merchant scope.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { DEPOSIT_STATS, exclusiveWallets, walletWithDeposits } from "./wallet-stats";

type Obj = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { BSC: { confirmations: 3 } } } });
});
afterAll(() => gw.stop());

test("deposits, pending, exact received and last deposit per wallet; scoped to the merchant", async () => {
  const sb = sandboxClient(gw.url);
  const m = await gw.newMerchant("w");
  const other = await gw.newMerchant("o");
  const w = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey: "big", label: "Big spender" } });
  await other.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey: "theirs" } });
  await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: w.address, amount: "99999999.123456" });
  await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: w.address, amount: "99999999.000001" });
  await sb.mine("BSC", 3);
  await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: w.address, amount: "1" }); // not final yet

  const [row, ...rest] = await exclusiveWallets(gw.ctx.db, { merchantId: m.id });
  expect(rest).toEqual([]);
  expect(row).toMatchObject({ bindKey: "big", label: "Big spender", chain: "BSC", token: "USDT", address: w.address, deposits: 3, pending: 1 });
  expect(row!.received).toBe((199999998123457n * 10n ** 12n).toString());
  expect(row!.lastDepositAt).toBeNumber();
  expect((await exclusiveWallets(gw.ctx.db, { merchantId: m.id, q: "spender" })).map((x) => x.bindKey)).toEqual(["big"]);
  expect((await exclusiveWallets(gw.ctx.db, {})).map((x) => x.bindKey).sort()).toEqual(expect.arrayContaining(["big", "theirs"]));

  const one = (await walletWithDeposits(gw.ctx.db, w.bindingId, { merchantId: m.id }))!;
  expect(one.deposits.map((d) => [d.amount, d.status])).toEqual([
    ["1000000000000000000", "pending"],
    ["99999999000001000000000000", "confirmed"],
    ["99999999123456000000000000", "confirmed"],
  ]);
  expect(await walletWithDeposits(gw.ctx.db, w.bindingId, { merchantId: other.id })).toBeUndefined();
});

test("the transfer status lists generate the deposit statistics' text, byte for byte", () => {
  expect(DEPOSIT_STATS).toBe(`SELECT sum(status != 'reverted') AS deposits, sum(status = 'pending') AS pending,
              max(CASE WHEN status != 'reverted' THEN seen_at END) AS last,
              sum(CASE WHEN status = 'confirmed' THEN CAST(substr(amount, 1, max(length(amount) - 12, 0)) AS INTEGER) ELSE 0 END) AS hi,
              sum(CASE WHEN status = 'confirmed' THEN CAST(substr(amount, max(length(amount) - 11, 1)) AS INTEGER) ELSE 0 END) AS lo
       FROM transfers WHERE address_id = ?1 AND token = ?2 AND unmatched_reason IS NOT 'counterfeit_token'`);
});

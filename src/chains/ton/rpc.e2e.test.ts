// A gateway with TON in rpc mode on @ton/sandbox behind the toncenter v3 test server (DESIGN 23):
// an exclusive deposit credited and its balance read from the real jetton wallet; until the send
// part ships, a TON payout fails at submit with the reason and no token leaves the wallet.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { startTonChain, type TonChainFixture } from "../../testing/chain-fixture";
import { eventually } from "../../testing/wait";
import { randomTonAddress } from "./address";

type Obj = Record<string, any>;
let fx: TonChainFixture;
let gw: TestGateway;
beforeAll(async () => {
  fx = await startTonChain();
  gw = await startTestGateway({ config: { sandbox: { allow_mixed: true }, chains: { TON: { enabled: true, ...fx.gatewayConfig(1) } } } });
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

test("a deposit is credited from the real jetton wallet; a payout refuses at submit and nothing leaves", async () => {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TON", tokenSymbol: "USDT", bindKey: "ton-rpc-1" } });
  await fx.pay(b.address, 40_000_000n);
  await eventually(async () => {
    const d = await gw.client.request<Obj>("GET", "/openapi/payin/exclusive-bindings/ton-rpc-1", { query: { chainCode: "TON", tokenSymbol: "USDT" } });
    return d.recentOrders[0]?.status === "completed";
  }, 20_000, "the TON deposit completed");
  const p = await gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: "TON", tokenSymbol: "USDT", merchantOrderNo: "ton-rpc-po", amount: "1", toAddress: randomTonAddress(), notifyUrl: "https://shop.example/po" } });
  const failed = await eventually(async () => {
    const r = await gw.client.request<Obj>("GET", `/openapi/payout/orders/${p.orderNo}`);
    return r.status === "failed" ? r : null;
  }, 20_000, "the TON payout failed at submit");
  expect(JSON.stringify(failed)).not.toContain("txHash\":\"");
  expect(gw.logs.join("\n")).toContain("TON payouts are not available yet in rpc mode");
  expect(await fx.tokenBalance(b.address)).toBe(40_000_000n);
});

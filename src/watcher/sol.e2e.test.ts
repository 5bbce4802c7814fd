// The gateway watching a Solana node (LiteSVM behind the test RPC server): pay-ins completed by
// real SPL token transfers made with @solana/web3.js + spl-token, exclusive deposits, finality.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSolFixture, type SolFixture } from "../testing/sol-fixture";
import { toBaseUnits } from "../lib/money";
import { startTestGateway, type TestGateway } from "../testing/harness";

let fx: SolFixture;
let gw: TestGateway;
type Order = Record<string, any>;

beforeAll(async () => {
  // finalized trails confirmed by 3 slots: a transfer is seen (finalized) with 4 confirmations.
  fx = await startSolFixture({ confirmedLag: 1, finalizedLag: 4 });
  gw = await startTestGateway({
    jobs: false,
    config: { sandbox: { allow_mixed: true }, chains: { SOL: { mode: "rpc", rpc_urls: [fx.proxy.url], confirmations: 6 } } },
  });
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.watchers.get("SOL")!.tick();
const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
let n = 0;
const create = (amount: string) =>
  gw.client.request<Order>("POST", "/openapi/payin/orders", {
    body: { chainCode: "SOL", tokenSymbol: "USDC", merchantOrderNo: `S-${++n}`, amount, notifyUrl: "https://shop.example/cb" },
  });

describe("SOL on the LiteSVM node", () => {
  test("a pay-in is completed by a real transferChecked; credited only once finalized; amounts exact", async () => {
    const o = await create("1.123456");
    expect(o.paymentUri).toContain("spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    await tick();
    const payer = fx.payer(10_000_000n);
    const sig = await fx.pay(payer, [[o.address, 1_123_456n]]);
    fx.node.advance(1); // confirmed, not finalized
    await tick();
    expect((await get(o.orderNo)).status).toBe("waiting_payment");
    fx.node.advance(3); // finalized: 4 confirmations of the 6 required
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "confirming", confirmations: 4, paidAmount: "1.123456", txHash: sig });
    fx.node.advance(2);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "completed", confirmations: 6, paidAmount: "1.123456" });
    expect(fx.node.tokenBalance(o.address)).toBe(1_123_456n);
  });

  test("an exclusive wallet deposit (plain transfer, ATA created by the payer) creates its order with the exact amount", async () => {
    const b = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "sol-user-1" } });
    await tick();
    const payer = fx.payer(100_000_000n);
    await fx.pay(payer, [[b.address, 42_000_001n]], { plain: true });
    fx.node.advance(6);
    await tick();
    const d = await gw.client.request<Order>("GET", "/openapi/payin/exclusive-bindings/sol-user-1", { query: { chainCode: "SOL", tokenSymbol: "USDC" } });
    expect(d.stats.totalOrders).toBe(1);
    expect(d.recentOrders[0]).toMatchObject({ paidAmount: "42.000001", status: "completed" });
    expect(d.recentTransactions[0].amount).toBe("42.000001");
  });

  test("one transaction paying two exclusive wallets counts once each; a rewound cursor counts nothing twice", async () => {
    const bind = (bindKey: string) => gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey } });
    const b1 = await bind("sol-multi-1");
    const b2 = await bind("sol-multi-2");
    expect(b1.address).not.toBe(b2.address);
    await tick();
    const payer = fx.payer(10_000_000n);
    const sig = await fx.pay(payer, [[b1.address, 2_000_000n], [b2.address, 3_500_000n]]);
    fx.node.advance(6);
    await tick();
    const detail = (k: string) => gw.client.request<Order>("GET", `/openapi/payin/exclusive-bindings/${k}`, { query: { chainCode: "SOL", tokenSymbol: "USDC" } });
    expect((await detail("sol-multi-1")).recentOrders.map((o: Order) => [o.paidAmount, o.status, o.txHash])).toEqual([["2.000000", "completed", sig]]);
    expect((await detail("sol-multi-2")).recentOrders.map((o: Order) => [o.paidAmount, o.status, o.txHash])).toEqual([["3.500000", "completed", sig]]);
    // Rewind the durable cursor (as after restoring a backup) and rescan.
    gw.ctx.db.$client.run("UPDATE chain_cursors SET block_number = block_number - 30 WHERE chain = 'SOL'");
    await tick();
    const rows = gw.ctx.db.$client.query("SELECT count(*) AS n, count(DISTINCT log_index) AS d FROM transfers WHERE chain = 'SOL' AND tx_hash = ?").get(sig) as { n: number; d: number };
    expect(rows).toEqual({ n: 2, d: 2 });
    expect((await detail("sol-multi-2")).stats.totalOrders).toBe(1);
  });

  test("survives 429s and failing calls: nothing missed", async () => {
    const orders: Order[] = [];
    for (let i = 0; i < 5; i++) orders.push(await create(`${10 + i}.25`));
    await tick();
    const payer = fx.payer(1_000_000_000n);
    for (const o of orders) await fx.pay(payer, [[o.address, toBaseUnits(o.amount, 6)]]);
    fx.node.advance(8);
    fx.proxy.setFaults({ rate429: 0.2, failRate: 0.1, seed: 3 });
    try {
      for (let i = 0; i < 15; i++) await tick().catch(() => {});
    } finally {
      fx.proxy.setFaults({});
    }
    await tick();
    for (const o of orders) expect((await get(o.orderNo)).status).toBe("completed");
  });
});

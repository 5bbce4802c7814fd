// The gateway watching a real EVM node (anvil, chain id 56) through a proxy that
// refuses wide log ranges and fails calls: pay-ins, exclusive deposits, reorgs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startBscFixture, type BscFixture } from "../testing/bsc-fixture";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { addresses } from "../db/schema";
import { newId } from "../lib/ids";
import { someAddresses } from "../testing/bsc-fixture";

const E18 = 10n ** 18n;
let fx: BscFixture;
let gw: TestGateway;
type Order = Record<string, any>;

beforeAll(async () => {
  fx = await startBscFixture();
  gw = await startTestGateway({
    jobs: false,
    config: { sandbox: { allow_mixed: true }, chains: { BSC: { mode: "rpc", rpc_urls: [fx.proxy.url], confirmations: 3 } } },
  });
  await fx.node.mint("USDT", fx.node.devAddress, 1_000_000n * E18);
  await fx.node.mint("USDC", fx.node.devAddress, 1_000_000n * E18);
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.watchers.get("BSC")!.tick();
const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
let n = 0;
const create = (amount: string, tokenSymbol = "USDT") =>
  gw.client.request<Order>("POST", "/openapi/payin/orders", {
    body: { chainCode: "BSC", tokenSymbol, merchantOrderNo: `B-${++n}`, amount, notifyUrl: "https://shop.example/cb" },
  });

describe("BSC on anvil", () => {
  test("a pay-in is completed by a real token transfer; 18-decimal amounts are exact", async () => {
    const o = await create("1.123456");
    await tick();
    await fx.node.transfer("USDT", o.address, 1_123_456_000_000_000_000n);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "detected", paidAmount: "1.123456" });
    await fx.node.mine(1);
    await tick();
    expect((await get(o.orderNo)).status).toBe("confirming");
    await fx.node.mine(1);
    await tick();
    const q = await get(o.orderNo);
    expect(q).toMatchObject({ status: "completed", confirmations: 3 });
  });

  test("an exclusive wallet deposit creates its order with the exact 18-decimal amount", async () => {
    const b = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDC", bindKey: "bsc-user-1" } });
    await tick();
    await fx.node.transfer("USDC", b.address, 1_123_456_789_012_345_678n);
    await fx.node.mine(2);
    await tick();
    const d = await gw.client.request<Order>("GET", "/openapi/payin/exclusive-bindings/bsc-user-1", { query: { chainCode: "BSC", tokenSymbol: "USDC" } });
    expect(d.stats.totalOrders).toBe(1);
    expect(d.recentOrders[0]).toMatchObject({ paidAmount: "1.123456789012345678", status: "completed" });
    expect(d.recentTransactions[0].amount).toBe("1.123456789012345678");
  });

  test("a reorg that removes the paying transfer before finality reverts the order; after finality nothing moves", async () => {
    const o = await create("2");
    await tick();
    await fx.node.transfer("USDT", o.address, 2n * E18);
    await tick();
    expect((await get(o.orderNo)).status).toBe("detected");
    await fx.node.reorg(1);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "waiting_payment", paidAmount: null });

    await fx.node.transfer("USDT", o.address, 2n * E18);
    await fx.node.mine(2);
    await tick();
    expect((await get(o.orderNo)).status).toBe("completed");
    await fx.node.reorg(4);
    await tick();
    expect((await get(o.orderNo)).status).toBe("completed");
  });
});

describe("BSC watcher under a hostile RPC", () => {
  test("ranges refused above 5 blocks and 20% failing calls: nothing missed, nothing counted twice", async () => {
    const orders: Order[] = [];
    for (let i = 0; i < 12; i++) orders.push(await create(`${10 + i}.5`));
    await tick();
    fx.proxy.setFaults({ maxLogRange: 5, failRate: 0.2, seed: 7 });
    try {
      // Pause the watcher while payments land in scattered blocks, then let it catch up.
      for (const o of orders) {
        await fx.node.mine(7);
        await fx.node.transfer("USDT", o.address, BigInt(o.amount.replace(".", "")) * 10n ** 12n);
      }
      await fx.node.mine(3);
      for (let i = 0; i < 20; i++) await tick().catch(() => {}); // some ticks fail on injected faults; the next resumes
      for (const o of orders) expect((await get(o.orderNo)).status).toBe("completed");
      const rows = gw.ctx.db.$client.query("SELECT count(*) AS n, count(DISTINCT tx_hash) AS d FROM transfers WHERE chain = 'BSC' AND payin_order_id IN (SELECT id FROM payin_orders WHERE merchant_order_no LIKE 'B-%')").get() as { n: number; d: number };
      expect(rows.n).toBe(rows.d);
    } finally {
      fx.proxy.setFaults({});
    }
  });

  test("RPC calls per block do not grow from 10 to 10,000 watched addresses", async () => {
    const now = Date.now();
    const measure = async () => {
      await tick();
      fx.proxy.resetCounts();
      await fx.node.mine(20);
      await tick();
      return fx.proxy.totalCalls();
    };
    const base = await measure();
    // 10,000 more watched addresses on BSC (receive-only rows: no keys needed to watch).
    const stmt = gw.ctx.db.$client.prepare("INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES (?, NULL, 'BSC', 'shared', ?, ?, ?)");
    gw.ctx.db.$client.transaction(() => {
      someAddresses(10_000, "many").forEach((a, i) => stmt.run(newId("AD"), 1_000_000 + i, a, now));
    })();
    const many = await measure();
    expect(gw.ctx.db.select().from(addresses).all().length).toBeGreaterThan(10_000);
    expect(many).toBe(base);
  });
});

// The gateway watching the fake TRON node in rpc mode: pay-ins completed by USDT
// transfers made with tronweb, credit only once solidified, exclusive deposits, reorgs,
// and TronGrid rate limiting.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startTronFixture, type TronFixture } from "../testing/tron-fixture";
import { startTronNode, type TronNode } from "../testing/tron-node";
import { newId } from "../lib/ids";
import { toBaseUnits } from "../lib/money";

let fx: TronFixture;
let limited: TronNode;
let mirror: TronNode;
let gw: TestGateway;
type Order = Record<string, any>;

beforeAll(async () => {
  fx = await startTronFixture({ solidLag: 19 });
  fx.node.mine(25);
  // A first endpoint that rate-limits everything (TronGrid without a key), then the good one.
  limited = await startTronNode({ faults: { rate403: 1 } });
  // A third endpoint in front of the same chain, so faults on the second one can fail over.
  mirror = await startTronNode({ chain: fx.node.chain });
  gw = await startTestGateway({
    jobs: false,
    config: { sandbox: { allow_mixed: true }, chains: { TRON: { mode: "rpc", rpc_urls: [limited.url, fx.node.url, mirror.url], api_key: "tron-test-key", confirmations: 3 } } },
  });
});
afterAll(async () => {
  await gw?.stop();
  await limited?.stop();
  await mirror?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.watchers.get("TRON")!.tick();
const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
let n = 0;
const create = (amount: string) =>
  gw.client.request<Order>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `T-${++n}`, amount, notifyUrl: "https://shop.example/cb" },
  });

describe("TRON on the fake node", () => {
  test("a pay-in is completed by a tronweb USDT transfer, exact amount; credited only once solidified", async () => {
    const o = await create("1.234567");
    expect(o.address).toMatch(/^T/);
    await tick();
    await fx.sendUsdt(o.address, 1_234_567n);
    fx.node.mine(1);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "detected", paidAmount: "1.234567" });
    fx.node.mine(5);
    await tick();
    // 6 confirmations > the 3 required, but the block is not solidified (19 behind): not final.
    expect(await get(o.orderNo)).toMatchObject({ status: "confirming" });
    fx.node.mine(13);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "confirming" }); // 19 blocks on top: solidified is one short
    fx.node.mine(1);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "completed", paidAmount: "1.234567" });
    expect(fx.node.apiKeys.has("tron-test-key")).toBe(true);
    expect(limited.injected.http403).toBeGreaterThan(0);
    expect(gw.logs.join("\n")).not.toContain("tron-test-key");
  });

  test("an exclusive wallet deposit creates its order with the exact amount", async () => {
    const b = await gw.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "tron-user-1" } });
    await tick();
    await fx.sendUsdt(b.address, 987_654_321n);
    fx.node.mine(20);
    await tick();
    const d = await gw.client.request<Order>("GET", "/openapi/payin/exclusive-bindings/tron-user-1", { query: { chainCode: "TRON", tokenSymbol: "USDT" } });
    expect(d.stats.totalOrders).toBe(1);
    expect(d.recentOrders[0]).toMatchObject({ paidAmount: "987.654321", status: "completed" });
  });

  test("a reorg that removes the paying transfer before solidification reverts the order; paid again, it completes", async () => {
    const o = await create("2");
    await tick();
    await fx.sendUsdt(o.address, 2_000_000n);
    fx.node.mine(1);
    await tick();
    expect((await get(o.orderNo)).status).toBe("detected");
    fx.node.reorg(1);
    await tick();
    expect(await get(o.orderNo)).toMatchObject({ status: "waiting_payment", paidAmount: null });
    await fx.sendUsdt(o.address, 2_000_000n);
    fx.node.mine(20);
    await tick();
    expect((await get(o.orderNo)).status).toBe("completed");
  });

  test("under random 403/429 on the preferred endpoint: fails over, nothing missed, nothing counted twice", async () => {
    const orders: Order[] = [];
    for (let i = 0; i < 6; i++) orders.push(await create(`${10 + i}.5`));
    await tick();
    // Payments land in scattered blocks while the watcher waits, then it catches up under faults.
    for (const o of orders) {
      fx.node.mine(3);
      await fx.sendUsdt(o.address, toBaseUnits(o.amount, 6));
    }
    fx.node.mine(20);
    fx.node.setFaults({ rate403: 0.2, rate429: 0.2, seed: 5 });
    try {
      for (let i = 0; i < 5; i++) await tick().catch(() => {}); // a tick may still fail when every endpoint is backing off; the next resumes
    } finally {
      fx.node.setFaults({});
    }
    for (const o of orders) expect((await get(o.orderNo)).status).toBe("completed");
    expect(fx.node.injected.http403 + fx.node.injected.http429).toBeGreaterThan(0);
    expect(mirror.totalCalls()).toBeGreaterThan(0);
    const rows = gw.ctx.db.$client.query("SELECT count(*) AS n, count(DISTINCT tx_hash) AS d FROM transfers WHERE chain = 'TRON'").get() as { n: number; d: number };
    expect(rows.n).toBe(rows.d);
  });

  test("node calls per block do not grow from a few to 10,000 watched addresses", async () => {
    const measure = async () => {
      await tick();
      fx.node.resetCounts();
      mirror.resetCounts();
      fx.node.mine(20);
      await tick();
      return fx.node.totalCalls() + mirror.totalCalls();
    };
    const base = await measure();
    const now = Date.now();
    const stmt = gw.ctx.db.$client.prepare("INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES (?, NULL, 'TRON', 'shared', ?, ?, ?)");
    gw.ctx.db.$client.transaction(() => {
      for (let i = 0; i < 10_000; i++) stmt.run(newId("AD"), 1_000_000 + i, `T-receive-only-${i}`, now);
    })();
    expect(await measure()).toBe(base);
  });
});

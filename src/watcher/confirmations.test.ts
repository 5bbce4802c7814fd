// Confirmations by block height arithmetic: many deposits pending at once, each
// block moves their displayed counts with set-based updates, and only the
// thresholds (2 confirmations, final) go through the status funnel, once each.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { SandboxChain } from "../chains/sandbox/chain";
import { AddressWatchSet } from "../wallet/addresses";
import { ChainWatcher } from "./watcher";
import { payinTransferPort } from "../payin/deposits";
import { writeTx } from "../db/client";
import { addresses, callbacks, payinOrders } from "../db/schema";
import { insertRows, tableRows } from "../testing/engine-rows";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { payin: { shared_pool_size: 20 }, chains: { TRON: { confirmations: 6 } } } });
});
afterAll(() => gw.stop());

test("40 deposits in 40 blocks: counts follow the head each block, statuses change at the thresholds only, one callback each", async () => {
  const chain = gw.ctx.chains.get("TRON") as SandboxChain;
  const watcher = new ChainWatcher(gw.ctx, chain, payinTransferPort(gw.ctx));
  await watcher.tick();
  const orders: Array<{ orderNo: string; address: string }> = [];
  for (let i = 0; i < 40; i++) {
    orders.push(
      await gw.client.request("POST", "/openapi/payin/orders", {
        body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `conf-${i}`, amount: `${i + 1}`, notifyUrl: "https://shop.example/cb" },
      }),
    );
  }
  const blockOf = new Map<string, number>();
  for (const [i, o] of orders.entries()) blockOf.set(o.orderNo, (await chain.transfer({ token: "USDT", to: o.address, amount: BigInt(i + 1) * 1_000_000n })).blockNumber);
  const rows = async () => (await tableRows(gw.ctx.db, payinOrders)).map((o) => ({ order_no: o.orderNo, status: o.status, confirmations: o.confirmations }));
  const callbacksOf = async (status: string) => (await tableRows(gw.ctx.db, callbacks, { status })).length;

  for (let step = 0; step < 8; step++) {
    await watcher.tick();
    const head = await chain.height();
    for (const r of await rows()) {
      const count = head - blockOf.get(r.order_no)! + 1;
      const want = count >= 6 ? "completed" : count >= 2 ? "confirming" : "detected";
      expect([r.order_no, r.status]).toEqual([r.order_no, want]);
      // Open deposits show the live count; a completed one keeps the count it completed with.
      if (want === "completed") expect(r.confirmations).toBeGreaterThanOrEqual(6);
      else expect([r.order_no, r.confirmations]).toEqual([r.order_no, count]);
    }
    await chain.mine(1);
  }
  await watcher.tick();
  // Each status change sent one callback, never repeated on later blocks.
  expect(await callbacksOf("detected")).toBe(40);
  expect(await callbacksOf("completed")).toBe(40);
  expect(await callbacksOf("confirming")).toBeGreaterThan(0);
  const all = (await tableRows(gw.ctx.db, callbacks)).map((r) => `${r.orderNo} ${r.status}`);
  expect(all.length).toBe(new Set(all).size);
});

test("the watch set reads only rows added since its last refresh, whatever chain added them", async () => {
  const db = gw.ctx.db;
  const set = await new AddressWatchSet(db, "TRON").refresh();
  const before = set.size;
  const add = async (chain: string, address: string, index: number) =>
    await writeTx(db, async () => void (await insertRows(db, addresses, [{ id: `AD-ws-${chain}-${index}`, merchantId: null, chain, kind: "gas", derivationIndex: index, address, createdAt: 0 }])));
  await add("BSC", "0xws1", 900_001);
  await add("TRON", "Tws2", 900_002);
  await add("SOL", "ws3", 900_003);
  await set.refresh();
  expect(set.size).toBe(before + 1);
  expect(set.has("Tws2")).toBe(true);
  expect(set.has("0xws1")).toBe(false);
  await set.refresh();
  expect(set.size).toBe(before + 1);
});

// Shutdown while the node hangs, in-process: a payout request in flight finishes (its
// RPC calls are aborted), and the order is left as it was, not marked with an error
// that would wait for a manual `submit`: the next start sends it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startBscFixture, someAddresses, type BscFixture } from "../testing/bsc-fixture";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { payoutOrders } from "../db/schema";
import { eventually } from "../testing/callbacks";

const E18 = 10n ** 18n;
type Obj = Record<string, any>;
let fx: BscFixture;
let gw: TestGateway;

beforeAll(async () => {
  fx = await startBscFixture();
  gw = await startTestGateway({ jobs: false, config: { chains: { BSC: { mode: "rpc", rpc_urls: [fx.proxy.url], confirmations: 3 }, TRON: { enabled: false }, SOL: { enabled: false } } } });
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

test("a payout cut off by shutdown stays submitted without an error; stop() returns within the 5 s budget", async () => {
  const tick = () => gw.gateway.runtime.afterChainChange("BSC");
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey: "src" } });
  await tick();
  await fx.node.mint("USDT", b.address, 10n * E18);
  await fx.node.setBalance(b.address, E18 / 100n);
  await fx.node.mine(3);
  await tick();

  fx.proxy.setFaults({ hangRate: 1, hangMs: 60_000 });
  const hungBefore = fx.proxy.injected.hang;
  const [to] = someAddresses(1, "shutdown");
  const pending = gw.client
    .request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo: "SD-1", fromAddress: b.address, toAddress: to, amount: "4", notifyUrl: "https://shop.example/po" } })
    .catch((e: Error) => e);
  await eventually(() => fx.proxy.injected.hang > hungBefore, 5000, "the request waiting on the hung node"); // (not a sleep)
  const t0 = Date.now();
  await gw.gateway.stop();
  expect(Date.now() - t0).toBeLessThan(5000);

  const answer = await pending;
  expect(answer).toMatchObject({ status: "submitted", lastError: null });
  const row = gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.merchantOrderNo, "SD-1")).get()!;
  expect(row).toMatchObject({ status: "submitted", lastError: null, attempts: 0 });
  fx.proxy.setFaults({});
});

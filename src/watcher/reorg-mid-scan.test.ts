// A reorg that lands while a scan is in flight (logs read from the old fork, the
// tip from the new one, as the BSC adapter's getLogs-then-headers can see it):
// the payment in the new fork must still be found.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TestClock } from "../lib/clock";
import { SandboxChain } from "../chains/sandbox/chain";
import type { ChainAdapter, ScanResult, WatchSet } from "../chains/types";
import { ChainWatcher } from "./watcher";
import { payinTransferPort } from "../payin/deposits";

let gw: TestGateway;
const clock = new TestClock(Date.now());
beforeAll(async () => {
  gw = await startTestGateway({ clock, jobs: false, config: { chains: { TRON: { confirmations: 3 } } } });
});
afterAll(() => gw.stop());

/** The real sandbox chain, with a hook that runs between reading the transfers and reading the tip. */
function racyScan(chain: SandboxChain, duringScan: { fn: (() => void) | null }): ChainAdapter {
  return new Proxy(chain, {
    get(target, prop, receiver) {
      if (prop !== "scan") return Reflect.get(target, prop, receiver);
      return async (from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> => {
        const { transfers } = await target.scan(from, to, watch);
        const fn = duringScan.fn;
        duringScan.fn = null;
        fn?.();
        const hash = (await target.blockHash(to)) ?? "";
        return { transfers, tip: { number: to, hash, time: clock.now() } };
      };
    },
  });
}

test("a payment moved to another block by a reorg during the scan is found in its new block", async () => {
  const chain = gw.ctx.chains.get("TRON") as SandboxChain;
  const hook: { fn: (() => Promise<unknown>) | null } = { fn: null };
  const watcher = new ChainWatcher(gw.ctx, racyScan(chain, hook), payinTransferPort(gw.ctx));
  await watcher.tick();
  const o = await gw.client.request<Record<string, any>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "RACE-1", amount: "2", notifyUrl: "https://shop.example/cb" },
  });
  await chain.transfer({ token: "USDT", to: o.address, amount: 2_000_000n });
  let relanded = "";
  hook.fn = async () => {
    await chain.reorg(1);
    relanded = (await chain.transfer({ token: "USDT", to: o.address, amount: 2_000_000n })).txHash;
  };
  await watcher.tick();
  await watcher.tick();
  await chain.mine(3);
  await watcher.tick();
  const q = await gw.client.request<Record<string, any>>("GET", `/openapi/payin/orders/${o.orderNo}`);
  expect(q).toMatchObject({ status: "completed", txHash: relanded });
});

// DESIGN 25 on each chain's test node, through the gateway in rpc mode (one table row per
// chain): a node that answers the block scan's queries with nothing (anvil behind a proxy that
// empties block-range eth_getLogs answers; the TRON node dropping the logs of its block
// infos; LiteSVM behind a proxy that empties getBlocks and the scan's signature queries; the
// toncenter v3 test server answering every masterchain block's transactions empty) loses
// no payment: the sweep (EVM eth_getLogs by recipient topic, TRON the account's TRC20 history,
// SOL getSignaturesForAddress, TON the owner's transactions) records it through the scan's funnel, once, counts it and fires
// scan_missed. Behind an endpoint answering 429 to every third request (every sixth on TRON and
// TON, where each 429 pauses the endpoint 1 s, as their providers ask), a stream of payments
// completes, the scan covers every block once and in order (a throttled range is retried,
// never skipped), the sweep completes too, and stablegate_rpc_throttled_total counts the 429s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startBscChain, startSolChain, startTonChain, startTronChain, type BscChainFixture, type ChainFixture, type SolChainFixture, type TonChainFixture, type TronChainFixture } from "../testing/chain-fixture";
import { startTronNode } from "../testing/tron-node";
import type { ProxyFaults } from "../testing/rpc-proxy";
import type { ChainCode, WatchSet } from "../chains/types";
import { toBaseUnits } from "../lib/money";
import { PayinSweep } from "./sweep";
import { tableRows } from "../testing/engine-rows";
import { transfers } from "../db/schema";

type Order = Record<string, any>;

/** The endpoint the gateway talks to, and the faults it can show. */
interface Front {
  url: string;
  /** The block scan's queries answered with nothing (the sweep's are not). */
  hide(on: boolean): void;
  /** Every third request answered HTTP 429; every sixth on TRON (with Retry-After: 1: its 429s otherwise pause 5 s) and TON (1 s a 429). */
  throttle(on: boolean): void;
  injected429(): number;
  stop(): Promise<void>;
}

interface SweepCase {
  chain: ChainCode;
  node: string;
  start(): Promise<ChainFixture>;
  front(fx: ChainFixture): Promise<Front>;
  confirmations: number;
  /** Blocks after a payment until it is final and scanned. */
  toFinal: number;
  /** More chain config (TON is off by default). */
  config?: Record<string, unknown>;
}

/** A proxy in front of a JSON-RPC node: `scanQuery` says which calls are the block scan's. */
function proxyFront(fx: BscChainFixture | SolChainFixture, scanQuery: (method: string, params: unknown[]) => boolean): Front {
  const proxy = fx.raw.proxy;
  let faults: ProxyFaults = {};
  const set = (f: ProxyFaults) => {
    faults = { ...faults, ...f };
    proxy.setFaults(faults);
  };
  return {
    url: proxy.url,
    hide: (on) => set({ answer: on ? (m, p) => (scanQuery(m, p) ? { result: [] } : undefined) : undefined }),
    throttle: (on) => set({ every429: on ? 3 : undefined }),
    injected429: () => proxy.injected.http429,
    stop: async () => {},
  };
}

const CASES: SweepCase[] = [
  {
    chain: "BSC",
    node: "anvil behind a proxy",
    start: () => startBscChain(),
    // The scan's eth_getLogs names its watched addresses as a list in topic 2 (or none); the sweep names one.
    front: async (fx) => proxyFront(fx as BscChainFixture, (m, p) => m === "eth_getLogs" && typeof (p[0] as { topics?: unknown[] })?.topics?.[2] !== "string"),
    confirmations: 3,
    toFinal: 3,
  },
  {
    chain: "TRON",
    node: "the TRON test node behind a second endpoint on the same chain",
    start: () => startTronChain(),
    // Payments go to the node itself; the gateway reads through a front on the same chain.
    front: async (fx) => {
      const node = (fx as TronChainFixture).raw.node;
      const front = await startTronNode({ chain: node.chain });
      let faults = {};
      const set = (f: object) => front.setFaults((faults = { ...faults, ...f }));
      return {
        url: front.url,
        hide: (on) => set({ hideLogs: on }),
        throttle: (on) => set({ every429: on ? 6 : undefined, retryAfter: 1 }),
        injected429: () => front.injected.http429,
        stop: () => front.stop(),
      };
    },
    confirmations: 3,
    toFinal: 5,
  },
  {
    chain: "SOL",
    node: "LiteSVM behind a proxy",
    start: () => startSolChain({ confirmedLag: 1, finalizedLag: 4, token: "USDC" }),
    // The scan reads blocks (getBlocks) or, for few addresses, signatures pinned to its range's end (minContextSlot).
    front: async (fx) =>
      proxyFront(fx as SolChainFixture, (m, p) => m === "getBlocks" || (m === "getSignaturesForAddress" && (p[1] as { minContextSlot?: number })?.minContextSlot !== undefined)),
    confirmations: 6,
    toFinal: 8,
  },
  {
    chain: "TON",
    node: "@ton/sandbox behind the toncenter v3 test server",
    start: () => startTonChain(),
    // The scan reads each masterchain block's transactions; the sweep reads the owner's.
    front: async (fx) => {
      const node = (fx as TonChainFixture).raw;
      return {
        url: node.url,
        hide: (on) => void (node.hideBlockTxs = on),
        throttle: (on) => void (node.throttleEvery = on ? 6 : 0),
        injected429: () => node.injected429,
        stop: async () => {},
      };
    },
    confirmations: 2,
    toFinal: 2,
    config: { enabled: true },
  },
];

for (const k of CASES) {
  describe(`${k.chain} sweep and RPC limits on ${k.node}`, () => {
    let fx: ChainFixture;
    let front: Front;
    let gw: TestGateway;
    beforeAll(async () => {
      fx = await k.start();
      front = await k.front(fx);
      gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { [k.chain]: { ...fx.gatewayConfig(k.confirmations), ...k.config, rpc_urls: [front.url] } } } });
    });
    afterAll(async () => {
      await gw?.stop();
      await front?.stop();
      await fx?.stop();
    });

    const tick = () => gw.gateway.runtime.watchers.get(k.chain)!.tick();
    const sweep = () => gw.gateway.runtime.sweeps.get(k.chain)!;
    const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
    let n = 0;
    const create = (amount: string) =>
      gw.client.request<Order>("POST", "/openapi/payin/orders", {
        body: { chainCode: k.chain, tokenSymbol: fx.token, merchantOrderNo: `${k.chain}-sweep-${++n}`, amount, notifyUrl: "https://shop.example/cb" },
      });
    const units = (amount: string) => toBaseUnits(amount, fx.decimals);
    const metric = async (name: string) => {
      const text = await gw.gateway.runtime.ops.metrics.render();
      return text.split("\n").filter((l) => l.startsWith(name) && l.includes(`chain="${k.chain}"`));
    };

    test("a payment the block scan misses is credited by the sweep, once, counted and alerted", async () => {
      const o = await create("3.5");
      await tick();
      front.hide(true);
      try {
        const txHash = await fx.pay(o.address, units("3.5"));
        await fx.advance(k.toFinal);
        await tick();
        expect(await get(o.orderNo)).toMatchObject({ status: "waiting_payment", paidAmount: null });

        const r = await sweep().run();
        expect(r).toMatchObject({ failed: 0 });
        expect(r.found.map((t) => [t.txHash, t.to, t.amount])).toEqual([[txHash, o.address, units("3.5")]]);
        await fx.advance(1);
        await tick();
        expect(await get(o.orderNo)).toMatchObject({ status: "completed", txHash });
        expect((await tableRows(gw.ctx.db, transfers, { txHash })).map((t) => ({ by: t.foundBy }))).toEqual([{ by: "sweep" }]);
        expect(await metric("stablegate_sweep_found_total")).toEqual([`stablegate_sweep_found_total{chain="${k.chain}"} 1`]);
        const alerts = await gw.gateway.runtime.ops.alerts.tick();
        expect(alerts.fired.filter((a) => a.condition === "scan_missed").map((a) => [a.subject, a.message.includes(txHash)])).toEqual([[k.chain, true]]);

        // Asked again from scratch (a restarted gateway's sweep): the funnel knows it, nothing twice.
        const again = await new PayinSweep(gw.ctx, gw.ctx.chains.get(k.chain)!, async () => await gw.gateway.runtime.watchers.get(k.chain)!.scanned()).run();
        expect(again).toMatchObject({ found: [], failed: 0 });
        expect((await tableRows(gw.ctx.db, transfers, { txHash })).length).toBe(1);
        expect(await metric("stablegate_sweep_found_total")).toEqual([`stablegate_sweep_found_total{chain="${k.chain}"} 1`]);
      } finally {
        front.hide(false);
      }
    });

    test("behind an endpoint answering 429 to every third (TRON, TON: sixth) request, a stream of payments completes and no block is skipped", async () => {
      const adapter = gw.ctx.chains.get(k.chain)!;
      const scan = adapter.scan.bind(adapter);
      const ranges: Array<[bigint, bigint]> = [];
      adapter.scan = async (from: bigint, to: bigint, watch: WatchSet) => {
        const r = await scan(from, to, watch);
        ranges.push([from, to]);
        return r;
      };
      const before429 = front.injected429();
      front.throttle(true);
      try {
        const orders: Order[] = [];
        for (let i = 0; i < 4; i++) orders.push(await create(`${7 + i}.25`));
        // Still open at the end: the sweep has an address to ask about under the same 429s.
        const unpaid = await create("99.75");
        await tick();
        const hashes: string[] = [];
        for (const o of orders) {
          hashes.push(await fx.pay(o.address, units(o.amount)));
          await fx.advance(2);
          await tick();
        }
        await fx.advance(k.toFinal);
        for (let i = 0; i < 3; i++) await tick();
        for (const [i, o] of orders.entries()) expect(await get(o.orderNo)).toMatchObject({ status: "completed", txHash: hashes[i] });
        const r = await sweep().run();
        expect(r).toMatchObject({ found: [], failed: 0 });
        expect(r.addresses).toBeGreaterThanOrEqual(1);
        expect((await get(unpaid.orderNo)).status).toBe("waiting_payment");
      } finally {
        front.throttle(false);
        adapter.scan = scan;
      }
      expect(front.injected429() - before429).toBeGreaterThan(3);
      // Every block once, in order: each range starts where the last one ended.
      expect(ranges.length).toBeGreaterThan(3);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1] + 1n);
      const throttled = await metric("stablegate_rpc_throttled_total");
      expect(throttled.length).toBe(1);
      expect(Number(throttled[0]!.split(" ").pop())).toBeGreaterThan(3);
    });
  });
}

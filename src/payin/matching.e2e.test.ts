// DESIGN 5 "Money that does not match", case by case on the sandbox chains:
// for each case, the order's status, the callbacks the merchant received
// (status, expectedAmount, paidAmount, in order) and the unmatched record.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { startReceiver } from "../testing/receiver";
import { TestClock } from "../lib/clock";
import { CLI_ACTOR } from "../audit/log";
import { expireDueOrders } from "./service";
import { cancelOrder, denySender, releaseOrder } from "./operator";
import { listUnmatched } from "./unmatched";
import { eventually } from "../testing/wait";
import { tableRows } from "../testing/engine-rows";
import { callbacks, payinOrders } from "../db/schema";

type Order = Record<string, any>;
const MIN = 60_000;
const clock = new TestClock(Date.now());
const rx = startReceiver([{ status: 200 }]);
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;

beforeAll(async () => {
  gw = await startTestGateway({ clock, config: { chains: { TRON: { confirmations: 2 }, BSC: { confirmations: 2 }, SOL: { confirmations: 2 } }, callbacks: { retry_delays: ["300ms", "600ms"] } } });
  sb = sandboxClient(gw.url);
});
afterAll(async () => {
  await gw.stop();
  await rx.stop();
});

const DENIED = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
let seq = 0;

interface Shop {
  uid: string;
  create(amount: string, chain?: [string, string]): Promise<Order>;
  get(orderNo: string): Promise<Order>;
}

async function shop(): Promise<Shop> {
  const m = await gw.newMerchant(`match-${++seq}`);
  return {
    uid: m.uid,
    create: (amount, [chainCode, tokenSymbol] = ["TRON", "USDT"]) =>
      m.client.request<Order>("POST", "/openapi/payin/orders", {
        body: { chainCode, tokenSymbol, merchantOrderNo: `M-${seq}-${amount}-${Math.random()}`, amount, notifyUrl: rx.url + "/cb" },
      }),
    get: (orderNo) => m.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`),
  };
}

const pay = (to: string, amount: string, fromAddress?: string) => sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: to, amount, ...(fromAddress ? { fromAddress } : {}) });

/** [status, expectedAmount, paidAmount] of each callback the merchant received for the order, in arrival order. */
async function received(orderNo: string, n: number): Promise<Array<[string, string | null, string | null]>> {
  const mine = (r: typeof rx.requests) => r.map((q) => JSON.parse(q.text)).filter((b) => b.orderNo === orderNo);
  await rx.waitFor((r) => mine(r).length >= n, 8000).catch(() => undefined);
  // Nothing more can arrive once no callback of the order is left to deliver (a delivered row
  // is written after the receiver answered); retries would wait for the test clock anyway.
  const open = async () => (await tableRows(gw.ctx.db, callbacks, { orderNo })).filter((c) => c.state === "pending" || c.state === "delivering").length;
  await eventually(async () => (await open()) === 0, 8000, `callbacks of ${orderNo} delivered`);
  return mine(rx.requests).map((b) => [b.status, b.expectedAmount, b.paidAmount]);
}

async function unmatchedOf(txHash: string) {
  return (await listUnmatched(gw.ctx, { state: "all", limit: 1000 })).deposits.find((d) => d.txHash === txHash) ?? null;
}

interface Case {
  name: string;
  run(s: Shop): Promise<{ orders: Order[]; txHash: string }>;
  /** Per order: final status and the callbacks received. */
  want: Array<{ status: string; callbacks: Array<[string, string | null, string | null]> }>;
  unmatched: { reason: string; amount: string } | null;
}

const cases: Case[] = [
  {
    name: "exact amount on time",
    async run(s) {
      const o = await s.create("10");
      const { txHash } = await pay(o.address, "10");
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "completed", callbacks: [["waiting_payment", "10.000000", null], ["detected", "10.000000", "10.000000"], ["completed", "10.000000", "10.000000"]] }],
    unmatched: null,
  },
  {
    name: "under-payment: frozen with paidAmount, released as risk_settled",
    async run(s) {
      const o = await s.create("10");
      const { txHash } = await pay(o.address, "9.5");
      await sb.mine("TRON", 1);
      await releaseOrder(gw.ctx, o.orderNo, CLI_ACTOR);
      return { orders: [o], txHash };
    },
    want: [{ status: "risk_settled", callbacks: [["waiting_payment", "10.000000", null], ["frozen_abnormal", "10.000000", "9.500000"], ["risk_settled", "10.000000", "9.500000"]] }],
    unmatched: null,
  },
  {
    name: "over-payment: frozen with paidAmount, released as completed",
    async run(s) {
      const o = await s.create("10");
      const { txHash } = await pay(o.address, "10.5");
      await sb.mine("TRON", 1);
      await releaseOrder(gw.ctx, o.orderNo, CLI_ACTOR);
      return { orders: [o], txHash };
    },
    want: [{ status: "completed", callbacks: [["waiting_payment", "10.000000", null], ["frozen_abnormal", "10.000000", "10.500000"], ["completed", "10.000000", "10.500000"]] }],
    unmatched: null,
  },
  {
    name: "under-payment by one wei on BSC (18 decimals): frozen, every digit reported",
    async run(s) {
      const o = await s.create("10", ["BSC", "USDC"]);
      const { txHash } = await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDC", toAddress: o.address, amount: "9.999999999999999999" });
      await sb.mine("BSC", 1);
      await releaseOrder(gw.ctx, o.orderNo, CLI_ACTOR);
      return { orders: [o], txHash };
    },
    want: [{ status: "risk_settled", callbacks: [["waiting_payment", "10.000000", null], ["frozen_abnormal", "10.000000", "9.999999999999999999"], ["risk_settled", "10.000000", "9.999999999999999999"]] }],
    unmatched: null,
  },
  {
    name: "over-payment on Solana: frozen, released as completed",
    async run(s) {
      const o = await s.create("3", ["SOL", "USDC"]);
      const { txHash } = await sb.transfer({ chainCode: "SOL", tokenSymbol: "USDC", toAddress: o.address, amount: "3.25" });
      await sb.mine("SOL", 1);
      await releaseOrder(gw.ctx, o.orderNo, CLI_ACTOR);
      return { orders: [o], txHash };
    },
    want: [{ status: "completed", callbacks: [["waiting_payment", "3.000000", null], ["frozen_abnormal", "3.000000", "3.250000"], ["completed", "3.000000", "3.250000"]] }],
    unmatched: null,
  },
  {
    name: "another amount with two candidate orders on the address",
    async run(s) {
      const a = await s.create("10");
      const b = await s.create("20");
      expect(b.address).toBe(a.address);
      const { txHash } = await pay(a.address, "15");
      await sb.mine("TRON", 1);
      return { orders: [a, b], txHash };
    },
    want: [
      { status: "waiting_payment", callbacks: [["waiting_payment", "10.000000", null]] },
      { status: "waiting_payment", callbacks: [["waiting_payment", "20.000000", null]] },
    ],
    unmatched: { reason: "several_candidates", amount: "15.000000" },
  },
  {
    name: "no candidate: the only order was cancelled",
    async run(s) {
      const o = await s.create("10");
      await cancelOrder(gw.ctx, o.orderNo, CLI_ACTOR);
      const { txHash } = await pay(o.address, "10");
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "cancelled", callbacks: [["waiting_payment", "10.000000", null], ["cancelled", "10.000000", null]] }],
    unmatched: { reason: "no_open_order", amount: "10.000000" },
  },
  {
    name: "late: the exact amount after expireAt, within the late window",
    async run(s) {
      const o = await s.create("10");
      await clock.advance(31 * MIN);
      await expireDueOrders(gw.ctx);
      const { txHash } = await pay(o.address, "10");
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "risk_settled", callbacks: [["waiting_payment", "10.000000", null], ["expired", "10.000000", null], ["risk_settled", "10.000000", "10.000000"]] }],
    unmatched: null,
  },
  {
    name: "after the late window",
    async run(s) {
      const o = await s.create("10");
      await clock.advance(30 * MIN + 24 * 60 * MIN + MIN);
      await expireDueOrders(gw.ctx);
      const { txHash } = await pay(o.address, "10");
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "expired", callbacks: [["waiting_payment", "10.000000", null], ["expired", "10.000000", null]] }],
    unmatched: { reason: "after_late_window", amount: "10.000000" },
  },
  {
    name: "another amount after the window: the expired order does not take it",
    async run(s) {
      const o = await s.create("10");
      await clock.advance(31 * MIN);
      await expireDueOrders(gw.ctx);
      const { txHash } = await pay(o.address, "9");
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "expired", callbacks: [["waiting_payment", "10.000000", null], ["expired", "10.000000", null]] }],
    unmatched: { reason: "no_open_order", amount: "9.000000" },
  },
  {
    name: "deny-listed sender pays the exact amount: frozen",
    async run(s) {
      const o = await s.create("10");
      const { txHash } = await pay(o.address, "10", DENIED);
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "frozen_abnormal", callbacks: [["waiting_payment", "10.000000", null], ["frozen_abnormal", "10.000000", "10.000000"]] }],
    unmatched: null,
  },
  {
    name: "deny-listed sender, no order of that amount or window",
    async run(s) {
      const o = await s.create("10");
      await cancelOrder(gw.ctx, o.orderNo, CLI_ACTOR);
      const { txHash } = await pay(o.address, "3", DENIED);
      await sb.mine("TRON", 1);
      return { orders: [o], txHash };
    },
    want: [{ status: "cancelled", callbacks: [["waiting_payment", "10.000000", null], ["cancelled", "10.000000", null]] }],
    unmatched: { reason: "deny_listed", amount: "3.000000" },
  },
];

describe("money that does not match (DESIGN 5)", () => {
  beforeAll(async () => {
    await denySender(gw.ctx, "TRON", DENIED, "reported stolen", CLI_ACTOR);
  });

  for (const c of cases) {
    test(c.name, async () => {
      const s = await shop();
      const { orders, txHash } = await c.run(s);
      for (const [i, o] of orders.entries()) {
        const want = c.want[i];
        expect((await s.get(o.orderNo)).status).toBe(want.status);
        expect(await received(o.orderNo, want.callbacks.length)).toEqual(want.callbacks);
      }
      const u = await unmatchedOf(txHash);
      if (c.unmatched === null) expect(u).toBeNull();
      else expect(u).toMatchObject({ ...c.unmatched, merchantUid: s.uid, resolution: null });
    });
  }

  test("wrong token to an exclusive address: no order, an unmatched deposit of the binding's merchant", async () => {
    const m = await gw.newMerchant("exclusive-shop");
    const b = await m.client.request<Order>("POST", "/openapi/payin/exclusive-bindings", {
      body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey: "player-7", notifyUrl: rx.url + "/cb" },
    });
    const { txHash } = await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDC", toAddress: b.address, amount: "12.5" });
    await sb.mine("BSC", 2);
    expect(await tableRows(gw.ctx.db, payinOrders, { bindingId: b.bindingId })).toEqual([]);
    expect(await unmatchedOf(txHash)).toMatchObject({ reason: "wrong_token", merchantUid: m.uid, chainCode: "BSC", tokenSymbol: "USDC", amount: "12.500000", status: "confirmed" });
    // The right token still creates its deposit order.
    const ok = await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDT", toAddress: b.address, amount: "1" });
    expect(await unmatchedOf(ok.txHash)).toBeNull();
  });
});

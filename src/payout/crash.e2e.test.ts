// Crash safety: the gateway runs as a child process that kills itself
// (SIGKILL) at one point of a payout's life, is restarted without the fault,
// and the sandbox chain must carry exactly one transfer for the order.
import { afterAll, describe, expect, test } from "bun:test";
import { randomAddress } from "../wallet/hd";
import { sandboxClient } from "../testing/sandbox";
import { crashGateway, disposeCrashGateways, minedTransfers, rowsOf, SANDBOX_TRON_ONLY, type CrashGateway } from "../testing/crash";
import { exitsWithin } from "../testing/wait";
import { payoutOrders, refunds } from "../db/schema";

type Obj = Record<string, any>;
afterAll(disposeCrashGateways);

const LEFT: Record<string, { status: typeof payoutOrders.$inferSelect.status; signed: boolean; sent: number }> = {
  "payout:before-sign": { status: "submitted", signed: false, sent: 0 },
  "payout:after-sign-commit": { status: "submitted", signed: true, sent: 0 },
  "payout:after-broadcast": { status: "submitted", signed: true, sent: 1 },
  "payout:after-confirm-seen": { status: "broadcasted", signed: true, sent: 1 },
};

/** The sandbox chain's mined transfers from `from` (hash and base-unit amount), read on the child's engine. */
async function minedFrom(c: CrashGateway, from: string): Promise<Array<{ txHash: string; amount: string }>> {
  return (await minedTransfers(c, { fromAddress: from })).map((t) => ({ txHash: t.txHash, amount: t.amount }));
}

async function peek(c: CrashGateway, from: string) {
  const [o] = await rowsOf(c, payoutOrders);
  return { status: o!.status, signed: o!.signedTx !== null, sent: (await minedFrom(c, from)).length };
}

// The points run at once: each has its own child gateway, database and sandbox chain.
describe("a payout survives a crash at every step and is sent exactly once", () => {
  test.concurrent.each(["payout:before-sign", "payout:after-sign-commit", "payout:after-broadcast", "payout:after-confirm-seen"])("killed at %s", async (point) => {
    const c = await crashGateway({ toml: SANDBOX_TRON_ONLY, merchantName: "crash" });
    const { client, s } = c;
    const sb = sandboxClient(s.url);

    let g = await c.start(point);
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "treasury" } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "50" });
    await sb.mine("TRON", 1);
    const body = { chainCode: "TRON", tokenSymbol: "USDT", fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "20", merchantOrderNo: "CRASH-1", notifyUrl: "https://shop.example/po" };

    const first = await client.request<Obj>("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e);
    if (point === "payout:after-confirm-seen") {
      expect(first).toMatchObject({ status: "broadcasted" });
      await sb.mine("TRON", 1).catch(() => {});
    } else {
      expect(first).toBeInstanceOf(Error);
    }
    expect(await exitsWithin(g.proc, 10_000)).toBe(true);
    expect(g.proc.signalCode).toBe("SIGKILL");
    // What the crash left behind: the signed transaction is committed before anything reaches the chain.
    const left = await peek(c, b.address);
    expect(left).toEqual(LEFT[point]);

    g = await c.start();
    // The merchant retries the create it never got an answer to: the same order comes back.
    let o = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
    for (const end = Date.now() + 30_000; Date.now() < end && o.status !== "confirmed" && o.status !== "failed"; ) {
      if (o.status === "broadcasted") await sb.mine("TRON", 1);
      else await Bun.sleep(50);
      o = await client.request<Obj>("GET", `/openapi/payout/orders/${o.orderNo}`);
    }
    expect(o).toMatchObject({ status: "confirmed", merchantOrderNo: "CRASH-1", fromAddress: b.address });
    expect(await g.kill("SIGTERM")).toBe(0);

    expect(await minedFrom(c, b.address)).toEqual([{ txHash: o.txHash, amount: "20000000" }]);
    expect(await rowsOf(c, payoutOrders)).toHaveLength(1);
  });
});

// A refund (DESIGN 20) is a payout: killed between signing and broadcast, it is sent once.
describe("a refund survives a crash between signing and broadcast and is sent exactly once", () => {
  test("killed at payout:after-sign-commit while refunding a paid order", async () => {
    const c = await crashGateway({ toml: SANDBOX_TRON_ONLY, merchantName: "crash-refund" });
    const { client, s } = c;
    const sb = sandboxClient(s.url);

    let g = await c.start("payout:after-sign-commit");
    const order = await client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "CRASH-PI", amount: "30", notifyUrl: "https://shop.example/pi" });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: order.address, amount: "30" });
    await sb.mine("TRON", 2);
    for (const end = Date.now() + 10_000; Date.now() < end && (await client.getPayinOrder(order.orderNo)).status !== "completed"; ) await Bun.sleep(50);
    const body = { refundNo: "CRASH-R", amount: "12", toAddress: randomAddress("TRON") };

    expect(await client.createRefund(order.orderNo, body).catch((e: Error) => e)).toBeInstanceOf(Error);
    expect(await exitsWithin(g.proc, 10_000)).toBe(true);
    expect(g.proc.signalCode).toBe("SIGKILL");
    const [refund] = await rowsOf(c, refunds);
    const [payout] = await rowsOf(c, payoutOrders, { id: refund!.payoutOrderId! });
    expect({ refund: refund!.status, payout: payout!.status, signed: payout!.signedTx !== null }).toEqual({ refund: "submitted", payout: "submitted", signed: true });
    expect(await minedFrom(c, order.address)).toEqual([]);

    g = await c.start();
    // The merchant retries the request it never got an answer to: the same refund comes back.
    let r = await client.createRefund(order.orderNo, body);
    for (const end = Date.now() + 30_000; Date.now() < end && r.status !== "confirmed" && r.status !== "failed"; ) {
      if (r.status === "broadcasted") await sb.mine("TRON", 1);
      else await Bun.sleep(50);
      r = (await client.listRefunds(order.orderNo)).refunds[0]!;
    }
    expect(r).toMatchObject({ status: "confirmed", refundNo: "CRASH-R", amount: "12.000000" });
    expect(await g.kill("SIGTERM")).toBe(0);
    expect(await minedFrom(c, order.address)).toEqual([{ txHash: r.txHash!, amount: "12000000" }]);
    expect(await rowsOf(c, refunds)).toHaveLength(1);
    expect(await rowsOf(c, payoutOrders)).toHaveLength(1);
  }, 120_000);
});

// Crash safety: the gateway runs as a child process that kills itself
// (SIGKILL) at one point of a payout's life, is restarted without the fault,
// and the sandbox chain must carry exactly one transfer for the order.
import { afterAll, describe, expect, test } from "bun:test";
import { randomAddress } from "../wallet/hd";
import { sandboxClient } from "../testing/sandbox";
import { crashGateway, disposeCrashGateways, SANDBOX_TRON_ONLY, type CrashGateway } from "../testing/crash";
import { exitsWithin } from "../testing/wait";

type Obj = Record<string, any>;
afterAll(disposeCrashGateways);

const LEFT: Record<string, { status: string; signed: boolean; sent: number }> = {
  "payout:before-sign": { status: "submitted", signed: false, sent: 0 },
  "payout:after-sign-commit": { status: "submitted", signed: true, sent: 0 },
  "payout:after-broadcast": { status: "submitted", signed: true, sent: 1 },
  "payout:after-confirm-seen": { status: "broadcasted", signed: true, sent: 1 },
};

function peek(c: CrashGateway, from: string) {
  const [o] = c.query<{ status: string; signedTx: string | null }>("SELECT status, signed_tx AS signedTx FROM payout_orders");
  const [{ n: sent }] = c.query<{ n: number }>("SELECT count(*) AS n FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL", from);
  return { status: o!.status, signed: o!.signedTx !== null, sent };
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
    const left = peek(c, b.address);
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

    const sent = c.query("SELECT tx_hash AS txHash, amount FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL", b.address);
    expect(sent).toEqual([{ txHash: o.txHash, amount: "20000000" }]);
    const [orders] = c.query<{ n: number }>("SELECT count(*) AS n FROM payout_orders");
    expect(orders!.n).toBe(1);
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
    const [left] = c.query<{ refund: string; payout: string; signed: number }>(
      "SELECT r.status AS refund, p.status AS payout, p.signed_tx IS NOT NULL AS signed FROM refunds r JOIN payout_orders p ON p.id = r.payout_order_id",
    );
    expect(left).toEqual({ refund: "submitted", payout: "submitted", signed: 1 });
    expect(c.query("SELECT 1 FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL", order.address)).toEqual([]);

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
    const sent = c.query("SELECT tx_hash AS txHash, amount FROM sandbox_transfers WHERE from_address = ? AND block_number IS NOT NULL", order.address);
    expect(sent).toEqual([{ txHash: r.txHash, amount: "12000000" }]);
    expect(c.query("SELECT count(*) AS n FROM refunds")).toEqual([{ n: 1 }]);
    expect(c.query("SELECT count(*) AS n FROM payout_orders")).toEqual([{ n: 1 }]);
  }, 120_000);
});

// Matching follows the block time of a transfer, never the moment the watcher
// or the expiry job happened to run (DESIGN 5).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { TestClock } from "../lib/clock";
import { SandboxChain } from "../chains/sandbox/chain";
import { expireDueOrders } from "./service";
import { denySender } from "./operator";
import { CLI_ACTOR } from "../audit/log";
import { toBaseUnits } from "../lib/money";
import { tableRow } from "../testing/engine-rows";
import { transfers } from "../db/schema";

type Order = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
const clock = new TestClock(Date.now());
const MIN = 60_000;

beforeAll(async () => {
  gw = await startTestGateway({
    clock,
    jobs: false,
    config: { chains: { TRON: { confirmations: 3 } }, payin: { expire_after: "30m", late_window: "24h", shared_pool_size: 1 } },
  });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

let n = 0;
const create = (amount: string) =>
  gw.client.request<Order>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `BT-${++n}`, amount, notifyUrl: "https://shop.example/cb" },
  });
const get = (orderNo: string) => gw.client.request<Order>("GET", `/openapi/payin/orders/${orderNo}`);
const dispositionOf = async (txHash: string) => (await tableRow(gw.ctx.db, transfers, { txHash }))!.disposition;
/** A block the watcher has not scanned yet (a watcher that lags behind the chain). */
const unseenTransfer = async (to: string, amount: bigint) => await (gw.ctx.chains.get("TRON") as SandboxChain).transfer({ token: "USDT", to, amount });

describe("block time decides, not watcher or expiry-job timing", () => {
  test("a transfer landing exactly at expireAt pays on time", async () => {
    const o = await create("1.01");
    clock.set(Date.parse(o.expireAt));
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "1.010000" });
    await sb.mine("TRON", 2);
    expect((await get(o.orderNo)).status).toBe("completed");
  });

  test("a late payment seen before the expiry job ran still settles as risk_settled", async () => {
    const o = await create("1.02");
    clock.advance(31 * MIN);
    // The watcher sees the late transfer while the order is still waiting_payment (expiry job not run yet).
    const tx = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "1.02" });
    expect(await dispositionOf(tx.txHash)).toBe("late");
    await expireDueOrders(gw.ctx);
    await sb.mine("TRON", 2);
    expect(await get(o.orderNo)).toMatchObject({ status: "risk_settled", paidAmount: "1.020000", txHash: tx.txHash });
  });

  // An expired order whose on-time payment the watcher sees late is paid (DESIGN 5), even when a new
  // order of the same amount took its place on the pool address meanwhile (inside or past the
  // clock-skew allowance), and the watcher does not choke on it.
  test.each([
    ["10 s", 10_000],
    ["2 min", 120_000],
  ])("an on-time payment seen late goes to its expired order, not to a same-amount order created %s after", async (_, gap) => {
    const amount = gap === 10_000 ? "1.03" : "1.05";
    const e = await create(amount);
    clock.set(Date.parse(e.expireAt) - 1000);
    const tx = await unseenTransfer(e.address, toBaseUnits(amount, 6));
    clock.advance(2000);
    await expireDueOrders(gw.ctx);
    expect((await get(e.orderNo)).status).toBe("expired");
    clock.advance(gap);
    const later = await create(amount); // the amount is free again on the same (only) pool address
    expect(later.address).toBe(e.address);
    await sb.mine("TRON", 1); // the watcher catches up
    expect(await get(e.orderNo)).toMatchObject({ status: "confirming", txHash: tx.txHash });
    expect(await get(later.orderNo)).toMatchObject({ status: "waiting_payment", paidAmount: null });
    // Both settle on their own payments.
    const own = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: later.address, amount });
    await sb.mine("TRON", 2);
    expect((await get(e.orderNo)).status).toBe("completed");
    expect(await get(later.orderNo)).toMatchObject({ status: "completed", txHash: own.txHash });
  });

  test("a late payment from a deny-listed sender is frozen, not settled", async () => {
    const o = await create("1.04");
    clock.advance(31 * MIN);
    await expireDueOrders(gw.ctx);
    const sender = "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7";
    await denySender(gw.ctx, "TRON", sender, "test", CLI_ACTOR);
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "1.04", fromAddress: sender });
    await sb.mine("TRON", 3);
    expect((await get(o.orderNo)).status).toBe("frozen_abnormal");
  });
});

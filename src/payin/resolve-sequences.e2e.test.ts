// Issue 36: every sequence (up to 3 steps) of {API refund part, API refund all, accept, refund all,
// refund the difference} on a held order (BSC USDC 10.37 paid 12.41, on the sandbox), against a
// model of the rules (payin/kept.ts, payin/resolve.ts): each step is done or refused as the model
// says, the payer never gets back more than was paid (on chain, every refund sent and final), an
// order is completed only when what is kept covers the amount, and every callback matches the
// final state (the order's last pay-in callback is its status; each refund's callbacks end at its).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import type { SandboxChain } from "../chains/sandbox/chain";
import { randomAddress } from "../wallet/hd";
import { fromBaseUnits, toBaseUnits } from "../lib/money";
import { callbacks, refunds } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { resolveFrozen, type Resolution } from "./resolve";
import { OperatorError } from "./operator-error";
import { AppError } from "../errors";

let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
let bsc: SandboxChain;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { BSC: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
  bsc = gw.ctx.chains.get("BSC") as SandboxChain;
});
afterAll(() => gw.stop());

const u = (x: string) => toBaseUnits(x, 18);
const AMOUNT = u("10.37");
const PAID = u("12.41");
const PART = u("1.5");
const usdc = (units: bigint) => fromBaseUnits(units, 18, 0);

type Step = "api_part" | "api_all" | Resolution;
const STEPS: readonly Step[] = ["api_part", "api_all", "accept", "refund_all", "refund_difference"];

/** The model: the order's status and what its refunds (none fail here) add up to. */
interface Model {
  status: "frozen_abnormal" | "completed" | "cancelled";
  refunded: bigint;
}

/** What the rules say a step does: the new model, or null when it is refused (nothing written). */
function expected(m: Model, step: Step): Model | null {
  const left = PAID - m.refunded;
  const frozen = m.status === "frozen_abnormal";
  switch (step) {
    case "api_part":
      return left >= PART ? { ...m, refunded: m.refunded + PART } : null;
    case "api_all":
      return left > 0n ? { ...m, refunded: PAID } : null;
    case "accept":
      return frozen && (m.refunded === 0n || left >= AMOUNT) ? { ...m, status: "completed" } : null;
    case "refund_all":
      return frozen ? { status: "cancelled", refunded: PAID } : null;
    case "refund_difference":
      return frozen && PAID - AMOUNT - m.refunded > 0n ? { status: "completed", refunded: PAID - AMOUNT } : null;
  }
}

/** Every sequence of 1 to `max` steps. */
function sequences(max: number): Step[][] {
  const out: Step[][] = [];
  let level: Step[][] = [[]];
  for (let i = 0; i < max; i++) {
    level = level.flatMap((s) => STEPS.map((x) => [...s, x]));
    out.push(...level);
  }
  return out;
}

let n = 0;
/** Orders paid 12.41 for 10.37, held (frozen_abnormal) once the blocks after their payments are mined. */
async function heldOrders(count: number) {
  const orders = [];
  for (let i = 0; i < count; i++) {
    const o = await gw.client.createPayinOrder({ chainCode: "BSC", tokenSymbol: "USDC", merchantOrderNo: `seq-${++n}`, amount: usdc(AMOUNT), notifyUrl: "https://shop.example/pi" });
    await sb.transfer({ chainCode: "BSC", tokenSymbol: "USDC", toAddress: o.address, amount: usdc(PAID) });
    orders.push(o);
  }
  // One round of blocks for all of them: each order is its own (own address, own payer, own refunds).
  await sb.mine("BSC", 3);
  return Promise.all(orders.map((o) => gw.client.getPayinOrder(o.orderNo)));
}

/** Does the step; true when done, false when refused (with the refusal the rules give). */
async function run(orderNo: string, step: Step, payer: string, m: Model, i: number): Promise<boolean> {
  try {
    if (step === "api_part") await gw.client.createRefund(orderNo, { refundNo: `part-${i}`, amount: usdc(PART), toAddress: payer });
    else if (step === "api_all") await gw.client.createRefund(orderNo, { refundNo: `all-${i}`, amount: usdc(PAID - m.refunded > 0n ? PAID - m.refunded : u("0.000001")), toAddress: payer });
    else await resolveFrozen(gw.ctx, orderNo, step, { note: `step ${i}: ${step}`, toAddress: payer }, { actor: "seq-op", role: "operator" });
    return true;
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (step.startsWith("api_")) expect([55001, 55002]).toContain(code!);
    else expect(e instanceof OperatorError || e instanceof AppError).toBe(true);
    return false;
  }
}

const refundTotal = async (orderNo: string) => (await tableRows(gw.ctx.db, refunds, { orderNo })).filter((r) => r.status !== "failed").reduce((s, r) => s + BigInt(r.amount), 0n);
/** An order's callbacks in the order they were written (seq: the rowid on SQLite, the identity on PostgreSQL). */
const callbacksOf = async (orderNo: string) =>
  (await tableRows(gw.ctx.db, callbacks, { orderNo })).sort((a, b) => a.seq - b.seq).map((c) => ({ kind: c.kind, status: c.status, url: c.url }));

describe("every sequence of up to 3 steps on a held order", () => {
  test("done or refused as the rules say; never more back than paid; completed only when what is kept then covers the amount; callbacks match the final state", async () => {
    const all = sequences(3);
    expect(all).toHaveLength(5 + 25 + 125);
    // The sequences share one gateway and run side by side on their own orders: every order is
    // held first, each sequence's steps are then done and checked against the model in turn, the
    // refunds of all of them are sent and made final by one round of blocks, and each order's end
    // state, balance and callbacks are checked on its own.
    const orders = await heldOrders(all.length);
    const runs = [];
    for (const [k, seq] of all.entries()) {
      const label = seq.join(" → ");
      const o = orders[k]!;
      expect(o.status, label).toBe("frozen_abnormal");
      const payer = randomAddress("BSC");
      let m: Model = { status: "frozen_abnormal", refunded: 0n };
      for (const [i, step] of seq.entries()) {
        const next = expected(m, step);
        const done = await run(o.orderNo, step, payer, m, i);
        expect(`${label}: step ${i + 1} ${done ? "done" : "refused"}`).toBe(`${label}: step ${i + 1} ${next ? "done" : "refused"}`);
        if (next && next.status === "completed" && m.status !== "completed") {
          // Completed only when what is kept (paid − the refunds not failed, as recorded) covers the amount.
          const kept = PAID - (await refundTotal(o.orderNo));
          expect(kept >= AMOUNT, `${label}: kept ${usdc(kept)} when completed`).toBe(true);
        }
        if (next) m = next;
      }
      runs.push({ label, orderNo: o.orderNo, payer, m });
    }
    // Every refund sent and final.
    await gw.gateway.runtime.payouts.tick("BSC");
    await sb.mine("BSC", 3);
    for (const { label, orderNo, payer, m } of runs) {
      const back = await bsc.tokenBalance(payer, "USDC");
      expect(back <= PAID, label).toBe(true);
      expect(usdc(back), label).toBe(usdc(m.refunded));
      const final = await gw.client.getPayinOrder(orderNo);
      expect(final.status, label).toBe(m.status);

      const payins = (await callbacksOf(orderNo)).map((c) => c.status);
      expect(payins, label).toEqual(["waiting_payment", "frozen_abnormal", ...(m.status === "frozen_abnormal" ? [] : [m.status])]);
      const rows = await tableRows(gw.ctx.db, refunds, { orderNo });
      expect(rows.reduce((s, r) => s + BigInt(r.amount), 0n), label).toBe(m.refunded);
      for (const r of rows) {
        const cbs = await callbacksOf(r.refundRef);
        expect([r.status, cbs.map((c) => c.status)], label).toEqual(["confirmed", ["submitted", "broadcasted", "confirmed"]]);
        // Refund callbacks go where the order's go (no notifyUrl of their own).
        expect(new Set(cbs.map((c) => c.url)), label).toEqual(new Set(["https://shop.example/pi"]));
      }
    }
  }, 600_000);
});

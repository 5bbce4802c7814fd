// `make bench ARGS=energy`: TRX the gateway spends on 100 TRC20 payouts on the TRON test node
// (java-tron's figures: 64,285 energy to an address holding USDT, 130,285 to a new one, 100 sun
// per energy burned), with [chains.TRON.energy] mode = "burn" and with mode = "stake". Spent =
// what the gateway's TRX addresses (gas wallet, sources, energy wallet with its stake) lost,
// next to the sum of the fee ledger (transfer_costs), which must be equal.
import { eq } from "drizzle-orm";
import { startTestGateway } from "../src/testing/harness";
import { startTronChain } from "../src/testing/chain-fixture";
import { TRX } from "../src/testing/tron-fixture";
import { payoutOrders, transferCosts } from "../src/db/schema";
import { addressBook, gasWallet } from "../src/wallet/addresses";
import { payoutStore } from "../src/payout/store";
import { chainBundle } from "../src/chains/factory";
import type { TronAdapter } from "../src/chains/tron/adapter";
import { fromBaseUnits } from "../src/lib/money";

const PAYOUTS = 100;
const SOURCES = 10;
/** Stake for mode "stake": 1,200,000 TRX = 12,000,000 energy a day at the test node's network weight (10 per TRX). */
const STAKE_TRX = "1200000";

type Obj = Record<string, any>;

async function run(mode: "burn" | "stake"): Promise<{ spent: bigint; ledger: bigint; byKind: Map<string, bigint> }> {
  const fx = await startTronChain({ autoMine: true, solidLag: 3 });
  fx.raw.node.mine(5);
  const gw = await startTestGateway({ jobs: false, config: { log: { level: "error" }, sandbox: { allow_mixed: true }, chains: { TRON: { ...fx.gatewayConfig(3), energy: { mode, fallback: "burn" } } } } });
  try {
    const adapter = gw.ctx.chains.get("TRON") as TronAdapter;
    const chain = fx.raw.node.chain;
    const tick = () => gw.gateway.runtime.afterChainChange("TRON");
    const holds = (a: string) => {
      const x = chain.accountOf(a);
      return x ? x.balance + x.frozenEnergy + x.delegatedOut : 0n;
    };
    const gas = (await gasWallet(gw.ctx.db, adapter, gw.ctx.seed, Date.now())).address;
    await fx.sendNative(gas, 100_000n * TRX);
    const control = chainBundle(adapter).staking!(gw.ctx)!;
    const wallet = (await control.status()).address!;
    if (mode === "stake") {
      await fx.sendNative(wallet, 1_300_000n * TRX);
      await control.stake(STAKE_TRX);
    }
    const sources: string[] = [];
    for (let i = 0; i < SOURCES; i++) {
      const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `bench-${i}` } });
      sources.push(b.address);
    }
    await tick();
    for (const s of sources) await fx.pay(s, 1_000_000_000n);
    await fx.advance(4);
    await tick();
    // Half the receivers already hold USDT (64,285 energy), half are new (130,285).
    const receivers = fx.receivers(PAYOUTS, "bench-energy");
    for (const r of receivers.slice(0, PAYOUTS / 2)) await fx.pay(r, 1n);
    const before = holds(gas) + holds(wallet) + sources.reduce((s, a) => s + holds(a), 0n);
    const orders: string[] = [];
    for (let i = 0; i < PAYOUTS; i++) {
      const o = await gw.client.request<Obj>("POST", "/openapi/payout/orders", {
        body: { chainCode: "TRON", tokenSymbol: "USDT", fromAddress: sources[i % SOURCES], toAddress: receivers[i], amount: "1", merchantOrderNo: `BENCH-${i}`, notifyUrl: "https://shop.example/po" },
      });
      orders.push(o.orderNo);
      await fx.advance(1);
      await tick();
      if (mode === "stake") await chainBundle(adapter).jobs!(gw.ctx, addressBook, payoutStore)[0]!.run();
    }
    const open = () => gw.ctx.db.select().from(payoutOrders).all().filter((o) => o.status === "submitted" || o.status === "broadcasted").length;
    for (let i = 0; i < 200 && open() > 0; i++) {
      await fx.advance(1);
      await tick();
    }
    if (mode === "stake") await chainBundle(adapter).jobs!(gw.ctx, addressBook, payoutStore)[0]!.run();
    const confirmed = gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.status, "confirmed")).all().length;
    if (confirmed !== PAYOUTS) throw new Error(`${mode}: only ${confirmed} of ${PAYOUTS} payouts confirmed`);
    const after = holds(gas) + holds(wallet) + sources.reduce((s, a) => s + holds(a), 0n);
    const rows = gw.ctx.db.select().from(transferCosts).all().filter((r) => r.kind !== "stake");
    const byKind = new Map<string, bigint>();
    for (const r of rows) byKind.set(r.kind, (byKind.get(r.kind) ?? 0n) + BigInt(r.nativeBurned));
    return { spent: before - after, ledger: rows.reduce((s, r) => s + BigInt(r.nativeBurned), 0n), byKind };
  } finally {
    await gw.stop();
    await fx.stop();
  }
}

export async function benchEnergy(): Promise<void> {
  console.log(`energy. TRX spent per ${PAYOUTS} TRC20 payouts from ${SOURCES} new deposit addresses (half to USDT holders), TRON test node`);
  const trx = (sun: bigint) => fromBaseUnits(sun, 6, 0);
  for (const mode of ["burn", "stake"] as const) {
    const r = await run(mode);
    const kinds = [...r.byKind].map(([k, v]) => `${k} ${trx(v)}`).join(", ");
    console.log(`  mode = "${mode}"${mode === "stake" ? ` (${STAKE_TRX} TRX staked)` : ""}: ${trx(r.spent)} TRX spent; fee ledger ${trx(r.ledger)} TRX (${kinds})${r.ledger === r.spent ? "" : "  MISMATCH"}`);
  }
}

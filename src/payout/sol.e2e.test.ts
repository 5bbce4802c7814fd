// SOL payouts through the gateway on the LiteSVM node: transferChecked signed by the source
// and the gas wallet (fee payer and rent payer), so a source holding no SOL can pay out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { PublicKey, SystemProgram } from "@solana/web3.js";
import { startSolFixture, someSolAddresses, type SolFixture } from "../testing/sol-fixture";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { gasTopups, payoutOrders } from "../db/schema";
import { gasWallet } from "../wallet/addresses";
import type { SolAdapter, SolTxMeta } from "../chains/sol/adapter";

type Obj = Record<string, any>;
let fx: SolFixture;
let gw: TestGateway;
let sol: SolAdapter;
const RENT = 2_039_280n;

beforeAll(async () => {
  fx = await startSolFixture({ confirmedLag: 1, finalizedLag: 4 });
  gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { SOL: { mode: "rpc", rpc_urls: [fx.proxy.url], confirmations: 4 } } } });
  sol = gw.ctx.chains.get("SOL") as SolAdapter;
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const tick = () => gw.gateway.runtime.afterChainChange("SOL");
let n = 0;
async function funded(usdc: bigint): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: `sol-src-${++n}` } });
  await tick();
  await fx.pay(fx.payer(usdc), [[b.address, usdc]]);
  fx.node.advance(5);
  await tick();
  return b.address;
}
const payout = (body: Obj) =>
  gw.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "SOL", tokenSymbol: "USDC", merchantOrderNo: `SPO-${++n}`, notifyUrl: "https://shop.example/po", ...body },
  });
const get = (orderNo: string) => gw.client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
const row = (orderNo: string) => gw.ctx.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo)).get()!;

async function settle(orderNo: string): Promise<Obj> {
  let o = await get(orderNo);
  for (let i = 0; i < 30 && (o.status === "submitted" || o.status === "broadcasted"); i++) {
    fx.node.advance(1);
    await tick();
    o = await get(orderNo);
  }
  return o;
}

describe("SOL payouts on the LiteSVM node", () => {
  test("a source without SOL pays out: the gas wallet pays fee and the recipient's ATA rent; balances move exactly", async () => {
    const gas = gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    fx.node.airdrop(gas.address, 1_000_000_000n);
    const from = await funded(100_000_000n);
    expect(fx.node.lamports(from)).toBe(0n);
    const [to] = someSolAddresses(1, "sol-payout-1");
    const o = await payout({ fromAddress: from, toAddress: to, amount: "12.345678" });
    expect(o).toMatchObject({ status: "broadcasted", amount: "12.345678" });
    const meta = JSON.parse(row(o.orderNo).signedMeta!) as SolTxMeta;
    expect(meta).toMatchObject({ feePayer: gas.address, from, to, createsAccount: true, amount: "12345678" });
    expect(o.txHash).toBe(row(o.orderNo).txHash);
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed", txHash: o.txHash });
    expect(fx.node.tokenBalance(to)).toBe(12_345_678n);
    expect(fx.node.tokenBalance(from)).toBe(100_000_000n - 12_345_678n);
    expect(fx.node.lamports(from)).toBe(0n);
    expect(fx.node.lamports(gas.address)).toBe(1_000_000_000n - 10_000n - RENT);
    expect(gw.ctx.db.select().from(gasTopups).all()).toEqual([]);

    // A second payout to the same recipient: its ATA exists, so only the fee is paid.
    const o2 = await payout({ fromAddress: from, toAddress: to, amount: "1" });
    expect(JSON.parse(row(o2.orderNo).signedMeta!)).toMatchObject({ createsAccount: false, feePayerLamports: "10000" });
    expect(await settle(o2.orderNo)).toMatchObject({ status: "confirmed" });
    expect(fx.node.tokenBalance(to)).toBe(13_345_678n);
    expect(await sol.tokenBalance(from, "USDC")).toBe(100_000_000n - 13_345_678n);
  });

  test("an empty gas wallet holds the payout as submitted (retried by the job); funded in time, it goes out once", async () => {
    const gas = gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    const from = await funded(5_000_000n);
    const [to] = someSolAddresses(1, "sol-payout-2");
    // Drain the gas wallet.
    const have = fx.node.lamports(gas.address);
    fx.node.svm.setAccount(new PublicKey(gas.address), { lamports: 0, data: new Uint8Array(), owner: SystemProgram.programId, executable: false });
    const o = await payout({ fromAddress: from, toAddress: to, amount: "5" });
    expect(o.status).toBe("submitted");
    expect(row(o.orderNo).lastError).toContain("lamports");
    expect(row(o.orderNo).retryAt).not.toBeNull();
    fx.node.airdrop(gas.address, have);
    gw.ctx.db.update(payoutOrders).set({ retryAt: 0 }).where(eq(payoutOrders.orderNo, o.orderNo)).run();
    expect(await settle(o.orderNo)).toMatchObject({ status: "confirmed" });
    expect(fx.node.tokenBalance(to)).toBe(5_000_000n);
    expect(fx.node.tokenBalance(from)).toBe(0n);
  });

  test("a stored transaction whose blockhash expired before it could be sent fails; it is never re-signed", async () => {
    const from = await funded(3_000_000n);
    const [to] = someSolAddresses(1, "sol-payout-3");
    fx.node.setFaults({ failNextSends: 1 });
    const o = await payout({ fromAddress: from, toAddress: to, amount: "3" });
    expect(o.status).toBe("submitted");
    const txHash = row(o.orderNo).txHash;
    const meta = JSON.parse(row(o.orderNo).signedMeta!) as SolTxMeta;
    fx.node.advance(meta.lastValidBlockHeight - fx.node.blockHeight() + 6);
    const after = await gw.client.request<Obj>("POST", `/openapi/payout/orders/${o.orderNo}/submit`, { body: {} });
    expect(after).toMatchObject({ status: "failed", failedStage: "broadcast" });
    expect(row(o.orderNo).txHash).toBe(txHash);
    expect(fx.node.tokenBalance(to)).toBe(0n);
    expect(fx.node.tokenBalance(from)).toBe(3_000_000n);
  });
});

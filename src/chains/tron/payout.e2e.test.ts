// TRON payouts at the adapter level on the fake node: local signing, broadcast semantics
// (rebroadcast harmless, transient vs permanent), txState (pending, included, final once
// solidified, failed receipts, expired), activation and TRX for energy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hexToBytes } from "@noble/hashes/utils.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { DEV_ADDRESS, DEV_KEY, startTronFixture, TRX, type TronFixture } from "../../testing/tron-fixture";
import { freePort } from "../../testing/wait";
import type { SignedTransfer } from "../types";
import { TransferWouldRevertError, type TronAdapter } from "./adapter";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
let fx: TronFixture;
let adapter: TronAdapter;
let index = 100;
const dev = hexToBytes(DEV_KEY);

/** A fresh deposit wallet holding `tokens` USDT and `trx` sun (activated when trx > 0). */
async function wallet(tokens: bigint, trx = 50n * TRX) {
  const key = adapter.deriveKey(SEED, index++);
  if (tokens > 0n) await fx.sendUsdt(key.address, tokens);
  if (trx > 0n) await fx.sendTrx(key.address, trx);
  fx.node.mine(1);
  return key;
}
const dest = () => adapter.deriveKey(SEED, 10_000 + index++).address;

beforeAll(async () => {
  fx = await startTronFixture({ solidLag: 3 });
  fx.node.mine(5);
  adapter = fx.adapter({ confirmations: 3 });
  await adapter.start();
});
afterAll(() => fx?.stop());

describe("TRON payouts on the fake node", () => {
  test("a signed transfer broadcast twice is mined once; pending → included → final once solidified; rebroadcast after mining is harmless", async () => {
    const src = await wallet(100_000_000n);
    const to = dest();
    const tx = await adapter.signTransfer({ token: "USDT", from: src.address, to, amount: 12_500_000n, privateKey: src.privateKey });
    expect(tx.meta).toMatchObject({ kind: "TRC20", from: src.address, to, amount: "12500000", token: "USDT" });
    // Fee limit covers a transfer to a new holder (130,285 energy) with margin, at getEnergyFee = 100 sun.
    expect(BigInt(tx.meta.feeLimit as string)).toBeGreaterThanOrEqual(130_285n * 100n);
    expect(await adapter.txState(tx)).toEqual({ state: "unknown" });
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    expect(await adapter.txState(tx)).toEqual({ state: "pending" });
    fx.node.mine(1);
    const block = BigInt(fx.node.chain.head.number);
    expect(await adapter.txState(tx)).toEqual({ state: "included", blockNumber: block, success: true, confirmations: 1, final: false });
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    fx.node.mine(3);
    expect(await adapter.txState(tx)).toEqual({ state: "included", blockNumber: block, success: true, confirmations: 4, final: true });
    expect(await adapter.tokenBalance(to, "USDT")).toBe(12_500_000n);
    expect(await adapter.tokenBalance(src.address, "USDT")).toBe(87_500_000n);
    // Long after it expired, a rebroadcast is refused by the node but the chain has it: still ok.
    fx.node.chain.advanceTime(2 * 3_600_000);
    fx.node.mine(1);
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    expect(fx.node.chain.usdt(to)).toBe(12_500_000n);
  });

  test("a transfer above the token balance is refused at signing (it would revert and only burn TRX)", async () => {
    const src = await wallet(1_000_000n);
    await expect(adapter.signTransfer({ token: "USDT", from: src.address, to: dest(), amount: 2_000_000n, privateKey: src.privateKey })).rejects.toBeInstanceOf(TransferWouldRevertError);
  });

  test("a source without enough TRX to burn for energy: included, success:false (OUT_OF_ENERGY), tokens stay", async () => {
    const src = await wallet(5_000_000n, 2n * TRX);
    const to = dest();
    const tx = await adapter.signTransfer({ token: "USDT", from: src.address, to, amount: 5_000_000n, privateKey: src.privateKey });
    expect(await adapter.trxNeeded(tx)).toBeGreaterThan(2n * TRX);
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    fx.node.mine(4);
    expect(await adapter.txState(tx)).toMatchObject({ state: "included", success: false, final: true });
    expect(fx.node.chain.usdt(src.address)).toBe(5_000_000n);
    expect(fx.node.chain.usdt(to)).toBe(0n);
    expect(fx.node.chain.trx(src.address)).toBe(0n); // the fee was burned anyway
  });

  test("a source that is not activated is refused transiently; a TRX transfer activates and funds it; then the payout lands", async () => {
    const src = await wallet(3_000_000n, 0n);
    const to = dest();
    const payout = await adapter.signTransfer({ token: "USDT", from: src.address, to, amount: 3_000_000n, privateKey: src.privateKey });
    expect(await adapter.account(src.address)).toEqual({ activated: false, balance: 0n });
    expect(await adapter.broadcast(payout)).toMatchObject({ ok: false, permanent: false, error: expect.stringContaining("no OwnerAccount") });

    const need = await adapter.trxNeeded(payout);
    const gasBefore = fx.node.chain.trx(DEV_ADDRESS);
    const topUp = await adapter.signNativeTransfer({ from: DEV_ADDRESS, to: src.address, amount: need, privateKey: dev });
    expect(topUp.meta).toMatchObject({ kind: "TRX", from: DEV_ADDRESS, to: src.address, amount: need.toString() });
    expect(await adapter.broadcast(topUp)).toEqual({ ok: true });
    fx.node.mine(1);
    expect(await adapter.txState(topUp)).toMatchObject({ state: "included", success: true });
    expect(await adapter.account(src.address)).toEqual({ activated: true, balance: need });
    expect(gasBefore - fx.node.chain.trx(DEV_ADDRESS)).toBeGreaterThanOrEqual(need + 1n * TRX); // activation: 1 TRX

    expect(await adapter.broadcast(payout)).toEqual({ ok: true });
    fx.node.mine(1);
    expect(await adapter.txState(payout)).toMatchObject({ state: "included", success: true });
    expect(fx.node.chain.usdt(to)).toBe(3_000_000n);
  });

  test("a transaction never sent is `unknown` until its expiration passed at a solidified block, then `expired`; broadcasting it then is permanent", async () => {
    const short = fx.adapter({ txLifetimeMs: 60_000 });
    const src = await wallet(1_000_000n);
    const tx = await short.signTransfer({ token: "USDT", from: src.address, to: dest(), amount: 1n, privateKey: src.privateKey });
    fx.node.chain.advanceTime(61_000);
    fx.node.mine(1);
    expect(await short.txState(tx)).toEqual({ state: "unknown" }); // the solidified block is still before the expiration
    fx.node.mine(3);
    expect(await short.txState(tx)).toEqual({ state: "expired" });
    expect(await short.broadcast(tx)).toMatchObject({ ok: false, permanent: true, error: expect.stringContaining("TRANSACTION_EXPIRATION_ERROR") });
  });

  test("a transaction dropped by a reorg is `unknown` again, and the same signed bytes land on rebroadcast", async () => {
    const src = await wallet(1_000_000n);
    const to = dest();
    const tx = await adapter.signTransfer({ token: "USDT", from: src.address, to, amount: 7n, privateKey: src.privateKey });
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    fx.node.mine(1);
    fx.node.reorg(1);
    expect(await adapter.txState(tx)).toEqual({ state: "unknown" });
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    fx.node.mine(1);
    expect(await adapter.txState(tx)).toMatchObject({ state: "included", success: true });
    expect(fx.node.chain.usdt(to)).toBe(7n);
  });

  test("transport trouble is transient; a tampered transaction is permanent", async () => {
    const src = await wallet(1_000_000n);
    const tx = await adapter.signTransfer({ token: "USDT", from: src.address, to: dest(), amount: 1n, privateKey: src.privateKey });
    const dead = fx.adapter({ rpcUrls: [`http://127.0.0.1:${await freePort()}`], rpcAttempts: 2 });
    expect(await dead.broadcast(tx)).toMatchObject({ ok: false, permanent: false });
    const parsed = JSON.parse(tx.raw);
    parsed.raw_data.contract[0].parameter.value.data = parsed.raw_data.contract[0].parameter.value.data.slice(0, -1) + "9";
    const tampered: SignedTransfer = { ...tx, raw: JSON.stringify(parsed) };
    expect(await adapter.broadcast(tampered)).toMatchObject({ ok: false, permanent: true, error: expect.stringContaining("SIGERROR") });
  });

  test("signing with a key that is not the from address is refused", async () => {
    const src = adapter.deriveKey(SEED, index++);
    const other = adapter.deriveKey(SEED, index++);
    await expect(adapter.signTransfer({ token: "USDT", from: src.address, to: dest(), amount: 1n, privateKey: other.privateKey })).rejects.toThrow(/does not belong/);
  });
});

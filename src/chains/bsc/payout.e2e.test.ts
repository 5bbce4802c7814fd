import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { hexToBytes } from "viem";
import { toBaseUnits } from "../../lib/money";
import { startBscFixture, someAddresses, type BscFixture } from "../../testing/bsc-fixture";
import type { SignedTransfer, TxState } from "../types";
import type { BscAdapter } from "./adapter";
import { TransferWouldRevertError } from "./adapter";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");

let fx: BscFixture;
let adapter: BscAdapter;
let index = 0;
/** A fresh deposit wallet holding `tokens` USDT and 0.01 BNB for gas. */
async function depositWallet(tokens: bigint, bnb = 10n ** 16n) {
  const key = adapter.deriveKey(SEED, index++);
  if (tokens > 0n) await fx.node.mint("USDT", key.address, tokens);
  if (bnb > 0n) await fx.node.setBalance(key.address, bnb);
  return key;
}

/** anvil mines right after answering eth_sendRawTransaction: wait until the receipt exists. */
async function settled(tx: SignedTransfer): Promise<TxState> {
  for (let i = 0; i < 250; i++) {
    const s = await adapter.txState(tx);
    if (s.state === "included") return s;
    await Bun.sleep(20);
  }
  return adapter.txState(tx);
}

beforeAll(async () => {
  fx = await startBscFixture();
  adapter = fx.adapter({ confirmations: 3 });
  await adapter.start();
});
afterAll(() => fx?.stop());

describe("BSC payouts on anvil", () => {
  test.each([
    ["auto-mined between the two broadcasts", true],
    ["still in the mempool at the second broadcast", false],
  ])("a signed transfer broadcast twice (%s) is mined once and balances move once", async (_label, automine) => {
    const src = await depositWallet(toBaseUnits("100", 18));
    const [dest] = someAddresses(1, `twice-${automine}`);
    const amount = toBaseUnits("12.5", 18);
    const tx = await adapter.signTransfer({ token: "USDT", from: src.address, to: dest, amount, privateKey: src.privateKey });
    await fx.node.setAutomine(automine);
    try {
      expect(await adapter.broadcast(tx)).toEqual({ ok: true });
      if (!automine) expect(await adapter.txState(tx)).toEqual({ state: "pending" });
      expect(await adapter.broadcast(tx)).toEqual({ ok: true });
      if (!automine) await fx.node.mine(1);
    } finally {
      await fx.node.setAutomine(true);
    }
    expect(await settled(tx)).toMatchObject({ state: "included", success: true, confirmations: 1, final: false });
    expect(await adapter.tokenBalance(dest, "USDT")).toBe(amount);
    expect(await adapter.tokenBalance(src.address, "USDT")).toBe(toBaseUnits("87.5", 18));
    // Rebroadcast after it is mined (a crash after sending) is still fine and moves nothing.
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    expect(await adapter.tokenBalance(dest, "USDT")).toBe(amount);

    await fx.node.mine(2);
    expect(await adapter.txState(tx)).toMatchObject({ state: "included", success: true, confirmations: 3, final: true });
  });

  test("a transfer above the token balance is refused at signing, and when forced on chain it reverts with success:false", async () => {
    const src = await depositWallet(toBaseUnits("1", 18));
    const [dest] = someAddresses(1, "revert");
    const req = { token: "USDT" as const, from: src.address, to: dest, amount: toBaseUnits("2", 18), privateKey: src.privateKey };
    await expect(adapter.signTransfer(req)).rejects.toBeInstanceOf(TransferWouldRevertError);

    const tx = await adapter.signTransfer({ ...req, hint: { gasLimit: "100000" } });
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    expect(await settled(tx)).toMatchObject({ state: "included", success: false });
    expect(await adapter.tokenBalance(src.address, "USDT")).toBe(toBaseUnits("1", 18));
    expect(await adapter.tokenBalance(dest, "USDT")).toBe(0n);
  });

  test("a transaction whose nonce another transaction used is expired, and broadcasting it is a permanent failure", async () => {
    const src = await depositWallet(toBaseUnits("10", 18));
    const [a, b] = someAddresses(2, "nonce");
    const stale = await adapter.signTransfer({ token: "USDT", from: src.address, to: a, amount: 1n, privateKey: src.privateKey });
    expect(await adapter.txState(stale)).toEqual({ state: "unknown" });
    const other = await adapter.signTransfer({
      token: "USDT", from: src.address, to: b, amount: 2n, privateKey: src.privateKey, hint: { nonce: stale.meta.nonce },
    });
    expect(other.meta.nonce).toBe(stale.meta.nonce);
    expect(await adapter.broadcast(other)).toEqual({ ok: true });
    await settled(other);
    // Not final yet: the other transaction could still be reorganised away.
    expect(await adapter.txState(stale)).toEqual({ state: "unknown" });
    await fx.node.mine(3);
    expect(await adapter.txState(stale)).toEqual({ state: "expired" });
    expect(await adapter.broadcast(stale)).toMatchObject({ ok: false, permanent: true });
    expect(await adapter.tokenBalance(a, "USDT")).toBe(0n);
  });

  test("a deposit wallet without BNB gets exactly the estimated fee from the gas wallet and can then pay out", async () => {
    const src = await depositWallet(toBaseUnits("50", 18), 0n);
    const [dest] = someAddresses(1, "topup");
    const amount = toBaseUnits("50", 18);
    expect(await adapter.nativeBalance(src.address)).toBe(0n);
    await expect(adapter.signTransfer({ token: "USDT", from: src.address, to: dest, amount, privateKey: src.privateKey }).then((t) => adapter.broadcast(t)))
      .resolves.toMatchObject({ ok: false, permanent: false });

    const fee = await adapter.estimateTransferFee(src.address, dest, "USDT", amount);
    expect(fee).toBeGreaterThan(0n);
    const topUp = await adapter.signNativeTransfer({ to: src.address, amount: fee, privateKey: hexToBytes(fx.node.devKey) });
    expect(topUp.meta.from).toBe(fx.node.devAddress);
    expect(await adapter.broadcast(topUp)).toEqual({ ok: true });
    expect(await settled(topUp)).toMatchObject({ state: "included", success: true });
    expect(await adapter.nativeBalance(src.address)).toBe(fee);

    const payout = await adapter.signTransfer({ token: "USDT", from: src.address, to: dest, amount, privateKey: src.privateKey });
    expect(await adapter.broadcast(payout)).toEqual({ ok: true });
    expect(await settled(payout)).toMatchObject({ state: "included", success: true });
    expect(await adapter.tokenBalance(dest, "USDT")).toBe(amount);
    expect(await adapter.nativeBalance(src.address)).toBeLessThan(fee);
  });

  test("the gas price is capped by gasPriceCap and a capped transaction still mines (BSC has no base fee)", async () => {
    const capped = fx.adapter({ gasPriceCap: 500_000_000n });
    const src = await depositWallet(toBaseUnits("1", 18));
    const [dest] = someAddresses(1, "cap");
    const tx = await capped.signTransfer({ token: "USDT", from: src.address, to: dest, amount: 1n, privateKey: src.privateKey });
    expect(tx.meta.gasPrice).toBe("500000000");
    expect(tx.meta.chainId).toBe(56);
    expect(await capped.broadcast(tx)).toEqual({ ok: true });
    expect(await settled(tx)).toMatchObject({ state: "included", success: true });
  });

  test("signing with a key that is not the from address is refused", async () => {
    const src = await depositWallet(0n, 0n);
    const other = adapter.deriveKey(SEED, 999);
    await expect(
      adapter.signTransfer({ token: "USDT", from: src.address, to: other.address, amount: 1n, privateKey: other.privateKey }),
    ).rejects.toThrow(/does not belong/);
  });
});

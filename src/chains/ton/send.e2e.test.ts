// TON sending on @ton/sandbox behind the toncenter v3 test server, through the adapter alone:
// a stored message sent again after it landed is taken as sent (the seqno refuses it on chain,
// the message hash finds it), a message past its valid_until that never went out can never
// land (a permanent refusal, txState "expired"), and a wallet short of TON fails its transfer
// on chain (no IGNORE_ERRORS: the failure is seen, not swallowed).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTonChain, type TonChainFixture } from "../../testing/chain-fixture";
import { createTonAdapter, type TonAdapter } from "./adapter";
import { deriveTonKey } from "./address";
import { MESSAGE_LIFETIME_S } from "./send";
import { TON_USDT_MASTER } from "./index";
import { nativeBalance } from "../../ops/gas";

let fx: TonChainFixture;
let ton: TonAdapter;
const seed = new Uint8Array(64).fill(7);
beforeAll(async () => {
  fx = await startTonChain();
  ton = createTonAdapter({ rpcUrls: [fx.nodeUrl], tokens: [{ chain: "TON", symbol: "USDT", contract: TON_USDT_MASTER, decimals: 6 }], confirmations: 1 });
});
afterAll(async () => {
  await ton?.stop();
  await fx?.stop();
});

async function funded(index: number, usdt: bigint, nanoton: bigint) {
  const k = deriveTonKey(seed, index);
  await fx.pay(k.address, usdt);
  if (nanoton > 0n) await fx.sendNative(k.address, nanoton);
  return k;
}

test("a landed message sent again is taken as sent and moves nothing twice; the wallet was deployed by it", async () => {
  const k = await funded(1, 5_000_000n, 100_000_000n);
  const [to] = fx.receivers(1, "ton-send-again");
  const tx = await ton.signTransfer({ token: "USDT", from: k.address, to: to!, amount: 2_000_000n, privateKey: k.privateKey });
  expect(tx.meta).toMatchObject({ kind: "JETTON", seqno: 0, deploy: true });
  expect(await ton.broadcast(tx)).toEqual({ ok: true });
  expect(await ton.txState(tx)).toMatchObject({ state: "included", success: true, final: true });
  expect(await ton.broadcast(tx)).toEqual({ ok: true });
  fx.raw.mine(2);
  expect(await fx.tokenBalance(to!)).toBe(2_000_000n);
  expect(await fx.sentBy(k.address)).toBe(1);
  expect(await ton.wallet(k.address)).toMatchObject({ active: true, seqno: 1 });
  // The gas monitor's reading (/readyz, metrics, gas_low) is the wallet's TON balance.
  expect(await nativeBalance(ton, k.address)).toBe(await fx.nativeBalance(k.address));
  // The next message takes the next seqno, without the StateInit.
  const next = await ton.signTransfer({ token: "USDT", from: k.address, to: to!, amount: 1n, privateKey: k.privateKey });
  expect(next.meta).toMatchObject({ seqno: 1, deploy: false });
});

test("a stored message never sent until past its valid_until can never land: refused for good, txState expired", async () => {
  const k = await funded(2, 5_000_000n, 100_000_000n);
  const [to] = fx.receivers(1, "ton-expired");
  const tx = await ton.signTransfer({ token: "USDT", from: k.address, to: to!, amount: 1_000_000n, privateKey: k.privateKey });
  expect(await ton.txState(tx)).toEqual({ state: "unknown" });
  fx.raw.mine(Math.ceil(MESSAGE_LIFETIME_S / 3) + 2);
  expect(await ton.txState(tx)).toEqual({ state: "expired" });
  expect(await ton.broadcast(tx)).toMatchObject({ ok: false, permanent: true });
  expect(await fx.tokenBalance(to!)).toBe(0n);
  expect(await fx.sentBy(k.address)).toBe(0);
});

test("a wallet without the TON its transfer attaches fails on chain, seen as a failure; the USDT stays", async () => {
  const k = await funded(3, 5_000_000n, 20_000_000n);
  const [to] = fx.receivers(1, "ton-short");
  const tx = await ton.signTransfer({ token: "USDT", from: k.address, to: to!, amount: 1_000_000n, privateKey: k.privateKey });
  expect(await ton.broadcast(tx)).toEqual({ ok: true });
  expect(await ton.txState(tx)).toMatchObject({ state: "included", success: false });
  expect(await fx.tokenBalance(k.address)).toBe(5_000_000n);
  expect(await fx.tokenBalance(to!)).toBe(0n);
});

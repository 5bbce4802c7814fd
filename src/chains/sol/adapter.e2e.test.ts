// The SOL adapter against the LiteSVM test node: start-up checks, scanning by ATA signatures,
// finality, failover and rate limits, broadcast and txState semantics.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { startSolFixture, someSolAddresses, SOL_TOKENS, type SolFixture } from "../../testing/sol-fixture";
import { startRpcProxy } from "../../testing/rpc-proxy";
import { USDC_MINT, USDT_MINT } from "../../testing/solana-rpc";
import { watchSetOf } from "../../testing/watch-set";
import { eventually } from "../../testing/wait";
import { solKeypairBytes } from "./address";
import { createSolAdapter, type SolAdapter, type SolTxMeta } from "./adapter";
import { RpcError, sendErrorKind } from "./rpc";

let fx: SolFixture;
let sol: SolAdapter;
beforeAll(async () => {
  fx = await startSolFixture({ finalizedLag: 4 });
  sol = fx.adapter();
  await sol.start();
});
afterAll(async () => {
  await fx?.stop();
});

/** Finalizes everything so far and scans [from, scanTo]. */
async function scanAll(from: bigint, watch: string[], adapter = sol) {
  fx.node.finalizeAll();
  const h = await adapter.head();
  return { ...(await adapter.scan(from, h.scanTo!, watchSetOf(watch))), to: h.scanTo! };
}
const waitLanded = async (sig: string) => {
  await eventually(() => fx.node.landed(sig), 500, `${sig} landed`, 10).catch(() => {});
  expect(fx.node.landed(sig)).not.toBeNull();
};
/** A key pair as the gateway derives them (32-byte seed). */
const gatewayKey = () => {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const kp = Keypair.fromSecretKey(solKeypairBytes(seed));
  return { address: kp.publicKey.toBase58(), privateKey: seed };
};

describe("SOL adapter start-up", () => {
  test("checks the mint's decimals on chain and names the token on a mismatch", async () => {
    await expect(fx.adapter({ tokens: [{ ...SOL_TOKENS[0], decimals: 9 }] }).start()).rejects.toThrow(/SOL USDC .*EPjF.* has 6 decimals on chain, config says 9/);
    const nowhere = someSolAddresses(1, "no-mint")[0];
    await expect(fx.adapter({ tokens: [{ ...SOL_TOKENS[0], contract: nowhere }] }).start()).rejects.toThrow(/SOL USDC: no token mint/);
    // Every configured mint is checked: USDT's too.
    const usdt = SOL_TOKENS.find((t) => t.symbol === "USDT")!;
    expect(usdt).toMatchObject({ contract: USDT_MINT, decimals: 6 });
    await expect(fx.adapter({ tokens: [SOL_TOKENS[0], { ...usdt, decimals: 8 }] }).start()).rejects.toThrow(/SOL USDT .*Es9v.* has 6 decimals on chain, config says 8/);
    await expect(fx.adapter({ tokens: [SOL_TOKENS[0], { ...usdt, contract: nowhere }] }).start()).rejects.toThrow(/SOL USDT: no token mint/);
    await fx.adapter().start();
  });
});

describe("SOL scanning", () => {
  test("finds transfer and transferChecked to watched owners' ATAs, one per address in a multi-pay tx, exact amounts; ignores others", async () => {
    const [a, b, other] = someSolAddresses(3, "scan-1");
    const start = (await sol.head()).scanTo! + 1n;
    const payer = fx.payer(100_000_000n);
    const s1 = await fx.pay(payer, [[a, 1_234_567n]], { plain: true });
    const s2 = await fx.pay(payer, [[a, 1n], [b, 2_500_000n], [other, 7n]]);
    // Not final yet: the watcher may not scan so far.
    const before = await sol.head();
    expect(before.scanTo!).toBeLessThan(BigInt(fx.node.landed(s2)!.slot));
    const { transfers } = await scanAll(start, [a, b]);
    const payerAddr = payer.publicKey.toBase58();
    expect(transfers[0]).toMatchObject({ txHash: s1, to: a, amount: 1_234_567n, from: payerAddr, chain: "SOL", token: "USDC" });
    expect(transfers.slice(1).map((t) => [t.txHash, t.to, t.amount, t.from]).sort((x, y) => Number(x[2]) - Number(y[2]))).toEqual([
      [s2, a, 1n, payerAddr],
      [s2, b, 2_500_000n, payerAddr],
    ]);
    expect(transfers).toHaveLength(3);
    const inS2 = transfers.filter((t) => t.txHash === s2);
    expect(new Set(inS2.map((t) => t.logIndex)).size).toBe(2);
    const keys = fx.node.landed(s2)!.keys;
    for (const t of inS2) expect(keys[t.logIndex].pubkey).toBe(getAssociatedTokenAddressSync(new PublicKey(USDC_MINT), new PublicKey(t.to), true).toBase58());
    for (const t of transfers) {
      expect(t.blockNumber).toBe(BigInt(fx.node.landed(t.txHash)!.slot));
      expect(t.blockHash).toBe((await sol.blockHash(t.blockNumber))!);
      expect(t.blockTime).toBeGreaterThan(0);
    }
  });

  test("slot bounds are exact, pages are walked, and a rescan of the same range (a restart) finds the same transfers", async () => {
    const [a] = someSolAddresses(1, "scan-2");
    const payer = fx.payer(100_000_000n);
    const start = (await sol.head()).scanTo! + 1n;
    const sigs: string[] = [];
    for (let i = 1; i <= 5; i++) sigs.push(await fx.pay(payer, [[a, BigInt(i)]]));
    const small = fx.adapter({ pageLimit: 2 });
    const whole = await scanAll(start, [a], small);
    expect(whole.transfers.map((t) => t.amount)).toEqual([1n, 2n, 3n, 4n, 5n]);
    const mid = BigInt(fx.node.landed(sigs[2])!.slot);
    // Split at the third payment's slot: [start, mid-1] and [mid, to] together give each once.
    const fresh = fx.adapter({ pageLimit: 2 });
    const left = await fresh.scan(start, mid - 1n, watchSetOf([a]));
    const right = await fresh.scan(mid, whole.to, watchSetOf([a]));
    expect([...left.transfers, ...right.transfers].map((t) => t.amount)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(right.tip).toEqual({ number: whole.to, hash: `slot:${whole.to}`, time: expect.any(Number) });
    // The same adapter rescanning (its ATA cursor is past `start`) still finds all.
    expect((await small.scan(start, whole.to, watchSetOf([a]))).transfers.map((t) => t.amount)).toEqual([1n, 2n, 3n, 4n, 5n]);
    // And a later range after its cursor sees only what is new, with `until` cutting the walk short.
    const s6 = await fx.pay(payer, [[a, 6n]]);
    fx.proxy.resetCounts();
    const later = await scanAll(whole.to + 1n, [a], small);
    expect(later.transfers.map((t) => [t.txHash, t.amount])).toEqual([[s6, 6n]]);
    // One call per ATA: the owner's USDC and USDT accounts.
    expect(fx.proxy.calls.get("getSignaturesForAddress")).toBe(SOL_TOKENS.length);
  });

  test("one getSignaturesForAddress per watched ATA (owner × mint) per scan (the documented cost), in batches of 50", async () => {
    const watch = someSolAddresses(120, "many");
    const h = await sol.head();
    const byAddress = fx.adapter({ scanMode: "addresses" });
    fx.proxy.resetCounts();
    await byAddress.scan(h.scanTo!, h.scanTo!, watchSetOf(watch));
    expect(SOL_TOKENS.map((t) => t.symbol)).toEqual(["USDC", "USDT"]);
    expect(fx.proxy.calls.get("getSignaturesForAddress")).toBe(120 * SOL_TOKENS.length);
    expect(fx.proxy.httpRequests()).toBe(Math.ceil((120 * SOL_TOKENS.length) / 50));
  });

  test("USDT and USDC to the same owner: each found as its own token with its exact amount, by ATA signatures and by blocks alike", async () => {
    const [a, b] = someSolAddresses(2, "two-mints");
    const start = (await sol.head()).scanTo! + 1n;
    const usdt = fx.payer(50_000_000n, "USDT");
    const usdc = fx.payer(50_000_000n, "USDC");
    const t1 = await fx.pay(usdt, [[a, 7_000_001n], [b, 2n]], { token: "USDT" });
    const c1 = await fx.pay(usdc, [[a, 3_000_000n]], { token: "USDC" });
    const seen = (r: Awaited<ReturnType<typeof scanAll>>) => r.transfers.map((t) => [t.txHash, t.token, t.to, t.amount]).sort((x, y) => Number(x[3]) - Number(y[3]));
    const want = [
      [t1, "USDT", b, 2n],
      [c1, "USDC", a, 3_000_000n],
      [t1, "USDT", a, 7_000_001n],
    ];
    expect(seen(await scanAll(start, [a, b], fx.adapter({ scanMode: "addresses" })))).toEqual(want);
    expect(seen(await scanAll(start, [a, b], fx.adapter({ scanMode: "blocks" })))).toEqual(want);
    // The USDT ATA is the one derived from the USDT mint.
    const keys = fx.node.landed(t1)!.keys.map((k) => k.pubkey);
    expect(keys).toContain(getAssociatedTokenAddressSync(new PublicKey(USDT_MINT), new PublicKey(a), true).toBase58());
    expect(await sol.tokenBalance(a, "USDT")).toBe(7_000_001n);
    expect(await sol.tokenBalance(a, "USDC")).toBe(3_000_000n);
  });

  test("a scan past what the node has finalized fails instead of skipping (minContextSlot)", async () => {
    const [a] = someSolAddresses(1, "ahead");
    const h = await sol.head();
    await expect(sol.scan(h.scanTo! + 1n, h.latest + 5n, watchSetOf([a]))).rejects.toThrow(/not finalized slot/);
  });

  test("finality: head.final is the finalized slot, latest the confirmed one; skipped slots are fine", async () => {
    fx.node.skipSlots(3);
    fx.node.advance(1);
    const h = await sol.head();
    expect(h.latest).toBe(BigInt(fx.node.slot("confirmed")));
    expect(h.final).toBe(BigInt(fx.node.slot("finalized")));
    expect(h.scanTo).toBe(h.final);
    expect(h.latest - h.final).toBe(3n);
  });
});

describe("SOL RPC faults", () => {
  test("fails over to the second URL while the first is down, and rides out 429s", async () => {
    const dead = await startRpcProxy(fx.node.url, { down: true });
    try {
      // A long backoff keeps the dead endpoint marked down until the check below, however slow the machine.
      const two = createSolAdapter({ rpcUrls: [dead.url, fx.proxy.url], tokens: SOL_TOKENS, confirmations: 2, backoffBaseMs: 60_000 });
      await two.start();
      const [a] = someSolAddresses(1, "failover");
      const start = (await two.head()).scanTo! + 1n;
      await fx.pay(fx.payer(5_000_000n), [[a, 3_000_000n]]);
      expect((await scanAll(start, [a], two)).transfers.map((t) => t.amount)).toEqual([3_000_000n]);
      expect(dead.injected.down).toBeGreaterThan(0);
      expect(two.rpc.healthSnapshot()[0].healthy).toBe(false);

      // 429s straight from the node (HTTP 429 with a JSON-RPC body, as providers send them).
      const direct = createSolAdapter({ rpcUrls: [fx.node.url], tokens: SOL_TOKENS, confirmations: 2, backoffBaseMs: 5 });
      fx.node.setFaults({ next429: 3 });
      expect((await direct.head()).latest).toBeGreaterThan(0n);
      expect(await direct.tokenBalance(a, "USDC")).toBe(3_000_000n);
      expect(direct.rpc.healthSnapshot()[0].failures).toBe(0);
    } finally {
      fx.node.setFaults({});
      await dead.stop();
    }
  });
});

describe("SOL payouts", () => {
  test("signs transferChecked with the gas wallet as fee payer, creates the recipient ATA, stores meta; rebroadcast is harmless", async () => {
    const src = gatewayKey();
    const gas = gatewayKey();
    fx.node.mint(src.address, 10_000_000n);
    fx.node.airdrop(gas.address, 1_000_000_000n);
    const [to] = someSolAddresses(1, "payout-1");
    const tx = await sol.signTransfer({ token: "USDC", from: src.address, to, amount: 4_000_000n, privateKey: src.privateKey, feePayerKey: gas.privateKey });
    const meta = tx.meta as SolTxMeta;
    expect(meta).toMatchObject({ feePayer: gas.address, from: src.address, to, createsAccount: true, amount: "4000000", feePayerLamports: (10_000n + 2_039_280n).toString() });
    expect(await sol.txState(tx)).toEqual({ state: "unknown" });
    expect(await sol.broadcast(tx)).toEqual({ ok: true });
    expect(await sol.broadcast(tx)).toEqual({ ok: true }); // already processed = ok
    expect(await sol.txState(tx)).toEqual({ state: "pending" }); // processed only
    fx.node.advance(1);
    expect(await sol.txState(tx)).toMatchObject({ state: "included", success: true, final: false });
    fx.node.finalizeAll();
    expect(await sol.txState(tx)).toMatchObject({ state: "included", success: true, final: true });
    expect(fx.node.tokenBalance(to)).toBe(4_000_000n);
    expect(fx.node.tokenBalance(src.address)).toBe(6_000_000n);
    expect(fx.node.lamports(src.address)).toBe(0n);
    expect(fx.node.lamports(gas.address)).toBe(1_000_000_000n - 10_000n - 2_039_280n);
    expect(await sol.broadcast(tx)).toEqual({ ok: true });
    expect(fx.node.tokenBalance(to)).toBe(4_000_000n);
  });

  test("transient vs permanent broadcast errors", async () => {
    const src = gatewayKey();
    const gas = gatewayKey();
    fx.node.mint(src.address, 1_000_000n);
    fx.node.airdrop(gas.address, 1_000_000_000n);
    const [to] = someSolAddresses(1, "payout-2");
    // More than the source holds: the token program refuses it in preflight.
    const tooMuch = await sol.signTransfer({ token: "USDC", from: src.address, to, amount: 2_000_000n, privateKey: src.privateKey, feePayerKey: gas.privateKey });
    expect(await sol.broadcast(tooMuch)).toMatchObject({ ok: false, permanent: true });
    // Tampered signature bytes.
    const ok = await sol.signTransfer({ token: "USDC", from: src.address, to, amount: 1n, privateKey: src.privateKey, feePayerKey: gas.privateKey });
    const bytes = Buffer.from(ok.raw, "base64");
    bytes[5] ^= 0xff;
    expect(await sol.broadcast({ ...ok, raw: bytes.toString("base64") })).toMatchObject({ ok: false, permanent: true });
    // The node is behind: try again later.
    fx.node.setFaults({ failNextSends: 1 });
    expect(await sol.broadcast(ok)).toMatchObject({ ok: false, permanent: false });
    // A fee payer without SOL: transient (the operator funds the gas wallet).
    const poor = gatewayKey();
    const noFee = await sol.signTransfer({ token: "USDC", from: src.address, to, amount: 1n, privateKey: src.privateKey, feePayerKey: poor.privateKey });
    expect(await sol.broadcast(noFee)).toMatchObject({ ok: false, permanent: false });
    expect(await sol.broadcast(ok)).toEqual({ ok: true });
    // A token account of another mint as recipient is refused at signing.
    await expect(sol.signTransfer({ token: "USDC", from: src.address, to: getAssociatedTokenAddressSync(new PublicKey(USDC_MINT), new PublicKey(src.address)).toBase58(), amount: 1n, privateKey: src.privateKey })).resolves.toBeDefined();
  });

  test("txState: a dropped transaction is unknown until its blockhash's last valid block height is final, then expired; never landed", async () => {
    const src = gatewayKey();
    const gas = gatewayKey();
    fx.node.mint(src.address, 1_000_000n);
    fx.node.airdrop(gas.address, 1_000_000_000n);
    const [to] = someSolAddresses(1, "payout-3");
    const tx = await sol.signTransfer({ token: "USDC", from: src.address, to, amount: 5n, privateKey: src.privateKey, feePayerKey: gas.privateKey });
    fx.node.setFaults({ dropNextSends: 1 });
    expect(await sol.broadcast(tx)).toEqual({ ok: true });
    expect(await sol.txState(tx)).toEqual({ state: "unknown" });
    const lastValid = (tx.meta as SolTxMeta).lastValidBlockHeight;
    fx.node.advance(lastValid - fx.node.blockHeight("processed") + 1);
    // Past lastValid at the tip, not yet at finalized: still unknown (could in theory land).
    expect(await sol.txState(tx)).toEqual({ state: "unknown" });
    fx.node.finalizeAll();
    expect(await sol.txState(tx)).toEqual({ state: "expired" });
    expect(await sol.broadcast(tx)).toMatchObject({ ok: false, permanent: true });
    expect(fx.node.tokenBalance(to)).toBe(0n);
  });

  test("a failed transaction that landed (skipPreflight elsewhere) is included with success false", async () => {
    const src = gatewayKey();
    const gas = gatewayKey();
    fx.node.mint(src.address, 1n);
    fx.node.airdrop(gas.address, 1_000_000_000n);
    const [to] = someSolAddresses(1, "payout-4");
    const tx = await sol.signTransfer({ token: "USDC", from: src.address, to, amount: 2n, privateKey: src.privateKey, feePayerKey: gas.privateKey });
    const sig = await fx.conn.sendRawTransaction(Buffer.from(tx.raw, "base64"), { skipPreflight: true });
    expect(sig).toBe(tx.txHash);
    await waitLanded(sig);
    fx.node.finalizeAll();
    expect(await sol.txState(tx)).toMatchObject({ state: "included", success: false, final: true });
  });
});

describe("sendTransaction refusals", () => {
  const rpc = (code: number, message: string, err?: unknown) => new RpcError(message, "rpc", code, err === undefined ? undefined : { err });
  test.each([
    ["already processed", "already", rpc(-32002, "Transaction simulation failed: This transaction has already been processed", "AlreadyProcessed")],
    ["blockhash not found", "blockhash", rpc(-32002, "Transaction simulation failed: Blockhash not found", "BlockhashNotFound")],
    ["insufficient token funds", "permanent", rpc(-32002, "Transaction simulation failed: Error processing Instruction 1", { InstructionError: [1, { Custom: 1 }] })],
    ["fee payer empty", "transient", rpc(-32002, "Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.", "AccountNotFound")],
    ["fee payer short", "transient", rpc(-32002, "Transaction simulation failed", "InsufficientFundsForFee")],
    ["rent short", "transient", rpc(-32002, "Transaction simulation failed", { InsufficientFundsForRent: { account_index: 0 } })],
    ["bad signature", "permanent", rpc(-32003, "Transaction signature verification failure")],
    ["undecodable", "permanent", rpc(-32602, "invalid transaction: failed to deserialize")],
    ["node behind", "transient", rpc(-32005, "Node is behind by 42 slots")],
    ["HTTP 429", "transient", new RpcError("HTTP 429", "http", 429)],
    ["timeout", "transient", new RpcError("timeout", "timeout")],
  ] as const)("%s → %s", (_, kind, e) => {
    expect(sendErrorKind(e)).toBe(kind);
  });
});

// The LiteSVM-backed test node answers like a Solana RPC to @solana/web3.js's own Connection.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync, getMint } from "@solana/spl-token";
import { startSolanaRpc, USDC_MINT, type SolanaRpcNode } from "./solana-rpc";

let node: SolanaRpcNode;
let conn: Connection;
const mint = new PublicKey(USDC_MINT);
beforeAll(async () => {
  node = await startSolanaRpc({ finalizedLag: 3 });
  conn = new Connection(node.url, "confirmed");
});
afterAll(async () => {
  await node?.stop();
});

async function waitStatus(sig: string, want: "confirmed" | "finalized") {
  for (let i = 0; i < 50; i++) {
    const s = (await conn.getSignatureStatuses([sig], { searchTransactionHistory: true })).value[0];
    if (s?.confirmationStatus === want || (want === "confirmed" && s?.confirmationStatus === "finalized")) return s;
    node.advance(1);
  }
  throw new Error("not " + want);
}

describe("Solana test node", () => {
  test("USDC sits at its mainnet mint with 6 decimals; a transferChecked made with web3.js lands with token balances", async () => {
    const m = await getMint(conn, mint);
    expect(m.decimals).toBe(6);
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    node.airdrop(payer.publicKey.toBase58(), 1_000_000_000n);
    node.mint(payer.publicKey.toBase58(), 5_000_000n);
    const src = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const dst = getAssociatedTokenAddressSync(mint, to);
    const tx = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, dst, to, mint),
      createTransferCheckedInstruction(src, mint, dst, payer.publicKey, 1_250_000n, 6),
    );
    const sig = await conn.sendTransaction(tx, [payer]);
    await waitStatus(sig, "finalized");
    expect(node.tokenBalance(to.toBase58())).toBe(1_250_000n);
    const got = await conn.getParsedTransaction(sig, { commitment: "finalized", maxSupportedTransactionVersion: 0 });
    const post = got!.meta!.postTokenBalances!.find((b) => b.owner === to.toBase58())!;
    expect(post.uiTokenAmount.amount).toBe("1250000");
    expect(got!.meta!.preTokenBalances!.find((b) => b.owner === to.toBase58())).toBeUndefined();
    expect(got!.transaction.message.accountKeys[post.accountIndex].pubkey.toBase58()).toBe(dst.toBase58());
    const sigs = await conn.getSignaturesForAddress(dst, { limit: 10 }, "finalized");
    expect(sigs.map((s) => s.signature)).toEqual([sig]);
    expect((await conn.getTokenAccountBalance(dst)).value.amount).toBe("1250000");
  });

  test("finality lags, and a blockhash expires after its last valid block height", async () => {
    const payer = Keypair.generate();
    node.airdrop(payer.publicKey.toBase58(), 1_000_000_000n);
    node.mint(payer.publicKey.toBase58(), 1_000_000n);
    const before = await conn.getSlot("finalized");
    expect(await conn.getSlot("confirmed")).toBeGreaterThan(before);
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash("confirmed");
    node.advance(lastValidBlockHeight - (await conn.getBlockHeight("processed")) + 1);
    const tx = new Transaction().add(createTransferCheckedInstruction(getAssociatedTokenAddressSync(mint, payer.publicKey), mint, getAssociatedTokenAddressSync(mint, payer.publicKey), payer.publicKey, 1n, 6));
    tx.recentBlockhash = blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    await expect(conn.sendRawTransaction(tx.serialize())).rejects.toThrow(/Blockhash not found/);
  });
});

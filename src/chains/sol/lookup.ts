// One Solana transaction by signature (DESIGN 25: the payer's hash, the back office's look-up):
// the token balances it raised, whoever owns them, numbered as the scan numbers them (the
// token account's index in the transaction), with its slot's time and finality (finalized).
import { base58 } from "@scure/base";
import type { ChainHead, TokenInfo, TxLookup, TxTokenTransfer } from "../types";
import type { ParsedTransaction, RpcClient, UiTokenBalance } from "./rpc";
import { inclusion } from "../common/adapter-parts";

/** A signature is 64 bytes in base58. */
function isSignature(s: string): boolean {
  try {
    return /^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(s) && base58.decode(s).length === 64;
  } catch {
    return false;
  }
}

const keysOf = (tx: ParsedTransaction) => tx.transaction.message.accountKeys.map((k) => (typeof k === "string" ? k : k.pubkey));

/**
 * Every owner's balance the transaction raised, per mint: the scan's rule (the owner's own
 * associated token account for a configured token), the payer the owner whose balance of that
 * mint dropped most.
 */
export function decodeSolBalances(tx: ParsedTransaction, tokens: readonly TokenInfo[], ataOf: (owner: string, token: TokenInfo) => string): TxTokenTransfer[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const keys = keysOf(tx);
  const pre = tx.meta.preTokenBalances ?? [];
  const post = tx.meta.postTokenBalances ?? [];
  const amountOf = (list: UiTokenBalance[], i: number) => BigInt(list.find((b) => b.accountIndex === i)?.uiTokenAmount.amount ?? "0");
  const out: TxTokenTransfer[] = [];
  for (const b of post) {
    if (!b.owner) continue;
    const amount = BigInt(b.uiTokenAmount.amount) - amountOf(pre, b.accountIndex);
    if (amount <= 0n) continue;
    const token = tokens.find((t) => t.contract === b.mint);
    if (token && keys[b.accountIndex] !== ataOf(b.owner, token)) continue;
    let from = keys[0]!;
    let drop = 0n;
    for (const p of pre) {
      if (p.mint !== b.mint || !p.owner) continue;
      const d = BigInt(p.uiTokenAmount.amount) - amountOf(post, p.accountIndex);
      if (d > drop) [drop, from] = [d, p.owner];
    }
    out.push({ token: token?.symbol ?? null, contract: b.mint, logIndex: b.accountIndex, from, to: b.owner, amount });
  }
  return out;
}

/** The adapter's lookupTx: the transaction at "confirmed" (final once its slot is finalized). */
export function solTxLookup(rpc: RpcClient, tokens: readonly TokenInfo[], ataOf: (owner: string, token: TokenInfo) => string, head: () => Promise<ChainHead>) {
  return async (hash: string): Promise<TxLookup> => {
    const txHash = hash.trim();
    if (!isSignature(txHash)) return { state: "malformed" };
    const tx = await rpc.request<ParsedTransaction | null>("getTransaction", [txHash, { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 }]);
    if (!tx) {
      const st = await rpc.request<{ value: Array<unknown | null> }>("getSignatureStatuses", [[txHash], { searchTransactionHistory: true }]);
      return st.value[0] ? { state: "pending", txHash } : { state: "not_found" };
    }
    const slot = BigInt(tx.slot);
    return {
      state: "included",
      txHash,
      success: !!tx.meta && tx.meta.err === null,
      blockNumber: slot,
      blockHash: `slot:${slot}`,
      blockTime: (tx.blockTime ?? 0) * 1000,
      ...inclusion(await head(), slot),
      transfers: decodeSolBalances(tx, tokens, ataOf),
    };
  };
}

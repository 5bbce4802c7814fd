// One TON transaction by hash (DESIGN 25: the payer's hash, the back office's look-up): toncenter
// v3 GET /transactions?hash=…, its USDT transfer_notification read by the scan's own rule
// (scan.ts decodeNotification), whoever it pays, with its masterchain block's hash, time and
// finality. The hash is the receiving owner's notification transaction (what the gateway records
// and Tonviewer shows on the recipient's page), as 64 hex digits or toncenter's base64; a
// look-alike jetton's notification is listed with token null and, as its contract, the jetton
// wallet that sent it (its master is not asked for). From a transaction that is not a
// notification (the payer's own, as a wallet app's history shows it) the look-up follows the
// trace's jetton messages (GET /transactionsByMessage, at most MAX_TRACE_TXS) to the first
// notification and answers that one; a message still on its way is `pending`.
import type { BlockRef, ChainHead, IncomingTransfer, TokenInfo, TxLookup, TxTokenTransfer, WatchSet } from "../types";
import { inclusion } from "../common/adapter-parts";
import { b64hex, OP_INTERNAL_TRANSFER, OP_JETTON_TRANSFER, OP_TRANSFER_NOTIFICATION, type V3Transaction } from "./scan";
import type { TonRpc } from "./rpc";

const EVERYONE: WatchSet = { has: () => true, size: 0, addresses: () => [] };

type Decoded = { transfer: IncomingTransfer; counterfeit: boolean; jettonWallet: string } | null;

/** A TON transaction hash in hex (as the gateway writes it) or base64/base64url (toncenter, explorers), as lowercase hex; null if it is neither. */
export function tonTxHash(s: string): string | null {
  const h = s.trim();
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(h)) return h.replace(/^0x/, "").toLowerCase();
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(h)) {
    const bytes = Buffer.from(h.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (bytes.length === 32) return bytes.toString("hex");
  }
  return null;
}

export interface TonLookupDeps {
  rpc: TonRpc;
  tokens: readonly TokenInfo[];
  head(): Promise<ChainHead>;
  blockRef(n: bigint): Promise<BlockRef>;
  decodeNotification(t: V3Transaction, block: BlockRef, watch: WatchSet): Promise<Decoded>;
}

/** Jetton messages a look-up follows from a payer's transaction to the recipient's notification. */
const JETTON_OPS = new Set([OP_JETTON_TRANSFER, OP_INTERNAL_TRANSFER, OP_TRANSFER_NOTIFICATION]);
/** Transactions a look-up reads along a trace at most (a wallet's jetton transfer takes 3 hops). */
export const MAX_TRACE_TXS = 6;

const isNotification = (t: V3Transaction) => Number(t.in_msg?.opcode) === OP_TRANSFER_NOTIFICATION;

/** The adapter's lookupTx. */
export function tonTxLookup(d: TonLookupDeps) {
  const byHash = async (hash: string) => (await d.rpc.get<{ transactions?: V3Transaction[] }>("transactions", { hash, limit: 1 })).transactions?.[0] ?? null;
  const byInMessage = async (msgHash: string) => (await d.rpc.get<{ transactions?: V3Transaction[] }>("transactionsByMessage", { msg_hash: msgHash, direction: "in", limit: 1 })).transactions?.[0] ?? null;

  /**
   * From a transaction that is not a notification (the payer's wallet or jetton wallet), its
   * jetton messages onward to the first transfer_notification; "in_flight" when a message on the
   * way has not been processed yet, null when the trace has none.
   */
  async function notificationAfter(t: V3Transaction): Promise<V3Transaction | "in_flight" | null> {
    const queue = [...t.out_msgs];
    let inFlight = false;
    for (let read = 0; queue.length > 0 && read < MAX_TRACE_TXS; ) {
      const m = queue.shift()!;
      if (!m.destination || !JETTON_OPS.has(Number(m.opcode))) continue;
      read++;
      const next = await byInMessage(m.hash);
      if (!next) inFlight = true;
      else if (isNotification(next)) return next;
      else queue.push(...next.out_msgs);
    }
    return inFlight ? "in_flight" : null;
  }

  return async (hash: string): Promise<TxLookup> => {
    const txHash = tonTxHash(hash);
    if (!txHash) return { state: "malformed" };
    let t = await byHash(txHash);
    if (!t) return { state: "not_found" };
    if (!isNotification(t)) {
      const n = await notificationAfter(t);
      if (n === "in_flight") return { state: "pending", txHash };
      if (n) t = n;
    }
    // In a shard block the masterchain has not taken in yet.
    if (t.mc_block_seqno === null || t.mc_block_seqno === undefined) return { state: "pending", txHash };
    const block = await d.blockRef(BigInt(t.mc_block_seqno));
    const found = await d.decodeNotification(t, block, EVERYONE);
    const transfers: TxTokenTransfer[] = found
      ? [{ token: found.counterfeit ? null : found.transfer.token, contract: found.counterfeit ? found.jettonWallet : (d.tokens.find((k) => k.symbol === found.transfer.token)?.contract ?? ""), logIndex: 0, from: found.transfer.from, to: found.transfer.to, amount: found.transfer.amount }]
      : [];
    return {
      state: "included",
      txHash: b64hex(t.hash),
      // A notification proves the jetton wallet took the transfer, whatever the owner's (maybe undeployed) wallet did with it.
      success: isNotification(t) || !t.description?.aborted,
      blockNumber: block.number,
      blockHash: block.hash,
      blockTime: block.time,
      ...inclusion(await d.head(), block.number),
      transfers,
    };
  };
}

// TON scan (DESIGN 23): every masterchain block is read once, all its transactions
// (toncenter v3 /transactionsByMasterchainBlock), so the calls per block do not depend on the
// number of watched addresses. A USDT payment is a `transfer_notification` (op 0x7362d09c)
// arriving at a watched owner's wallet; it counts only when the jetton wallet that sent it is
// the one the USDT master assigns to that owner (get_wallet_address, asked once per owner and
// cached). A look-alike jetton's notification is returned flagged `counterfeit`: the pay-in side
// keeps it as an unmatched deposit that never pays, attaches or refunds.
import type { Address, Cell, Slice } from "@ton/core";
import type { BlockRef, ChainHead, IncomingTransfer, TokenInfo, WatchSet } from "../types";
import { tonCore, tonFriendly } from "./address";
import type { TonRpc } from "./rpc";

export const OP_TRANSFER_NOTIFICATION = 0x7362d09c;
export const OP_JETTON_TRANSFER = 0x0f8a7ea5;
export const OP_INTERNAL_TRANSFER = 0x178d4519;
export const OP_TEXT_COMMENT = 0;

/** toncenter v3's message (the parts the gateway reads). */
export interface V3Message {
  hash: string;
  source: string | null;
  destination: string | null;
  value: string | null;
  /** The forwarding fee the message still carries (paid by its sender on top of `value`). */
  fwd_fee?: string | null;
  opcode: string | null;
  bounced?: boolean | null;
  message_content?: { body?: string | null } | null;
}

export interface V3Transaction {
  account: string;
  hash: string;
  lt: string;
  now: number;
  mc_block_seqno: number | null;
  total_fees?: string;
  description?: { aborted?: boolean; compute_ph?: { success?: boolean; skipped?: boolean }; action?: { success?: boolean } };
  in_msg: V3Message | null;
  out_msgs: V3Message[];
}

export interface V3Block {
  workchain: number;
  shard: string;
  seqno: number;
  root_hash: string;
  gen_utime: string | number;
}

/** A look-alike jetton's notification to a gateway address: kept for the operator, never credited. */
export interface CounterfeitNotice {
  txHash: string;
  blockNumber: bigint;
  to: string;
  /** The jetton wallet that sent it (not USDT's for `to`). */
  jettonWallet: string;
  from: string;
  amount: bigint;
}

export const b64hex = (b64: string): string => Buffer.from(b64, "base64").toString("hex");

/** A transfer_notification body: amount, original sender, and the forward payload's text comment if it has one. */
export function parseNotification(bodyB64: string): { amount: bigint; sender: Address | null; comment: string | null } | null {
  const { Cell } = tonCore();
  try {
    const s = Cell.fromBase64(bodyB64).beginParse();
    if (s.loadUint(32) !== OP_TRANSFER_NOTIFICATION) return null;
    s.loadUintBig(64);
    const amount = s.loadCoins();
    const sender = s.loadMaybeAddress();
    return { amount, sender, comment: forwardComment(s) };
  } catch {
    return null;
  }
}

/** forward_payload:(Either Cell ^Cell) read as a text comment (op 0 + UTF-8), or null. */
function forwardComment(s: Slice): string | null {
  try {
    if (s.remainingBits === 0 && s.remainingRefs === 0) return null;
    const payload: Slice = s.loadBit() ? (s.loadRef() as Cell).beginParse() : s;
    if (payload.remainingBits < 32 || payload.loadUint(32) !== OP_TEXT_COMMENT) return null;
    return payload.loadStringTail();
  } catch {
    return null;
  }
}

/** The block reads of a TON adapter: head, block hashes, the masterchain-block scan. */
export function tonScanner(a: { rpc: TonRpc; tokens: readonly TokenInfo[]; confirmations: number; onCounterfeit?: (n: CounterfeitNotice) => void }) {
  const { Address, beginCell } = tonCore();
  const usdt = a.tokens.find((t) => t.symbol === "USDT");
  const master = usdt ? Address.parse(usdt.contract) : null;
  // Owner (UQ…) → its USDT jetton wallet (raw), as the master answers it.
  const jettonWallets = new Map<string, string>();
  const blocks = new Map<number, V3Block>();

  async function masterBlock(seqno: number): Promise<V3Block | null> {
    const cached = blocks.get(seqno);
    if (cached) return cached;
    const r = await a.rpc.get<{ blocks: V3Block[] }>("blocks", { workchain: -1, shard: "8000000000000000", seqno, limit: 1 });
    const b = r.blocks?.[0] ?? null;
    if (b) {
      blocks.set(seqno, b);
      if (blocks.size > 2048) blocks.delete(blocks.keys().next().value!);
    }
    return b;
  }

  /** The jetton wallet the USDT master assigns to `owner` (get_wallet_address), raw form. */
  async function jettonWalletOf(owner: string): Promise<string> {
    const known = jettonWallets.get(owner);
    if (known) return known;
    if (!master) throw new Error("no USDT jetton master configured for TON");
    const arg = beginCell().storeAddress(Address.parse(owner)).endCell().toBoc().toString("base64");
    const r = await a.rpc.post<{ exit_code: number; stack: Array<{ type: string; value: string }> }>("runGetMethod", {
      address: master.toRawString(),
      method: "get_wallet_address",
      stack: [{ type: "slice", value: arg }],
    });
    const top = r.stack?.[0];
    if (r.exit_code !== 0 || !top) throw new Error(`get_wallet_address on the USDT master failed (exit code ${r.exit_code})`);
    const wallet = tonCore().Cell.fromBase64(top.value).beginParse().loadAddress().toRawString();
    jettonWallets.set(owner, wallet);
    return wallet;
  }

  async function blockTransactions(seqno: number): Promise<V3Transaction[]> {
    const out: V3Transaction[] = [];
    const limit = 256;
    for (let offset = 0; ; offset += limit) {
      const r = await a.rpc.get<{ transactions: V3Transaction[] }>("transactionsByMasterchainBlock", { seqno, limit, offset, sort: "asc" });
      out.push(...(r.transactions ?? []));
      if ((r.transactions?.length ?? 0) < limit) return out;
    }
  }

  /** Masterchain block `n` as the scan reports it (number, hex root hash, ms time). */
  async function blockRef(n: bigint): Promise<BlockRef> {
    const block = await masterBlock(Number(n));
    if (!block) throw new Error(`TON masterchain block ${n} not found`);
    return { number: n, hash: b64hex(block.root_hash), time: Number(block.gen_utime) * 1000 };
  }

  return {
    jettonWalletOf,
    blockRef,
    /** The scan's reading of one transaction: a USDT transfer_notification to a watched owner (flagged when counterfeit), or null. */
    transferOf: (t: V3Transaction, block: BlockRef, watch: WatchSet) => notification(t, block, watch),
    /** The same reading without the counterfeit notice (a look-up, not a payment to the gateway). */
    decodeNotification,
    async head(): Promise<ChainHead> {
      const r = await a.rpc.get<{ last: V3Block }>("masterchainInfo");
      const latest = BigInt(r.last.seqno);
      // Every masterchain block is final; `confirmations` counts them, the transfer's own included.
      const final = latest - BigInt(a.confirmations - 1);
      return { latest, final: final < 0n ? 0n : final, time: Number(r.last.gen_utime) * 1000 };
    },
    async blockHash(n: bigint): Promise<string | null> {
      const b = await masterBlock(Number(n));
      return b ? b64hex(b.root_hash) : null;
    },
    async scan(from: bigint, to: bigint, watch: WatchSet): Promise<{ transfers: IncomingTransfer[]; tip: BlockRef }> {
      const transfers: IncomingTransfer[] = [];
      let tip: BlockRef | null = null;
      for (let n = from; n <= to; n++) {
        const ref = await blockRef(n);
        for (const t of await blockTransactions(Number(n))) {
          const found = await notification(t, ref, watch);
          if (found) transfers.push(found);
        }
        tip = ref;
      }
      return { transfers, tip: tip! };
    },
  };

  async function notification(t: V3Transaction, block: BlockRef, watch: WatchSet): Promise<IncomingTransfer | null> {
    const r = await decodeNotification(t, block, watch);
    if (!r) return null;
    if (!r.counterfeit) return r.transfer;
    const n = r.transfer;
    a.onCounterfeit?.({ txHash: n.txHash, blockNumber: block.number, to: n.to, jettonWallet: r.jettonWallet, from: n.from, amount: n.amount });
    return { ...n, counterfeit: true };
  }

  /** A USDT transfer_notification to an owner in `watch`: the transfer, and whether a look-alike jetton wallet (`jettonWallet`) sent it. */
  async function decodeNotification(t: V3Transaction, block: BlockRef, watch: WatchSet): Promise<{ transfer: IncomingTransfer; counterfeit: boolean; jettonWallet: string } | null> {
    const m = t.in_msg;
    if (!usdt || !m?.source || m.bounced || Number(m.opcode) !== OP_TRANSFER_NOTIFICATION || !m.message_content?.body) return null;
    const owner = tonFriendly(Address.parseRaw(t.account));
    if (!watch.has(owner)) return null;
    const body = parseNotification(m.message_content.body);
    if (!body) return null;
    const txHash = b64hex(t.hash);
    const from = body.sender ? tonFriendly(body.sender) : tonFriendly(Address.parseRaw(m.source));
    const source = Address.parseRaw(m.source);
    const transfer: IncomingTransfer = { chain: "TON", token: "USDT", txHash, logIndex: 0, blockNumber: block.number, blockHash: block.hash, blockTime: block.time, from, to: owner, amount: body.amount, ...(body.comment ? { memo: body.comment } : {}) };
    return { transfer, counterfeit: (await jettonWalletOf(owner)) !== source.toRawString(), jettonWallet: tonFriendly(source) };
  }
}

// The TON sweep (DESIGN 25): a second detection path beside the masterchain-block scan. Per
// address, the owner's own transactions (toncenter v3 GET /transactions?account=<owner>, newest
// first, between the time of the last swept block, or `since`, and the time of the scan's
// cursor), each one in a masterchain block after `after` and up to `upTo` and not yet known
// read by the scan's own rule (scan.ts transferOf: a USDT transfer_notification counts only from
// the jetton wallet the master assigns to the owner; a look-alike jetton's is flagged
// counterfeit), with its masterchain block's hash and time, so it reaches the funnel exactly as
// the scan would have reported it. The owner's account, not its jetton wallet: the notification
// is the owner's transaction (the scan's key) and look-alike jettons arrive there too.
// Cost per address: one page (at most MAX_PAGES) plus the block of each unknown transfer (cached).
import type { BlockRef, IncomingTransfer, SweepQuery, WatchSet } from "../types";
import { b64hex, OP_TRANSFER_NOTIFICATION, type V3Transaction } from "./scan";
import type { TonRpc } from "./rpc";
import { normalizeTonAddress } from "./address";

export interface TonSweepDeps {
  rpc: TonRpc;
  /** Masterchain block `n` as the scan reports it. */
  blockRef(n: bigint): Promise<BlockRef>;
  /** The scan's reading of one transaction. */
  transferOf(t: V3Transaction, block: BlockRef, watch: WatchSet): Promise<IncomingTransfer | null>;
  /** Transactions per page (toncenter's maximum is 1000). Default 100. */
  pageLimit?: number;
}

/** Pages of transactions one sweep of one address reads at most (its cost bound). */
export const MAX_PAGES = 3;

/** Masterchain blocks bound the sweep; times only narrow the query, with this margin. */
const TIME_SLACK_MS = 60_000;

const watchOf = (address: string): WatchSet => ({ has: (a) => a === address, size: 1, addresses: () => [address] });

const isNotification = (t: V3Transaction) => !!t.in_msg?.source && !t.in_msg.bounced && Number(t.in_msg.opcode) === OP_TRANSFER_NOTIFICATION;

export function tonSweep(d: TonSweepDeps): (q: SweepQuery) => Promise<IncomingTransfer[]> {
  const limit = d.pageLimit ?? 100;

  /** The owner's notification transactions in masterchain blocks (after, upTo], not before `since`, unknown to the gateway. */
  async function unknownNotifications(owner: string, q: SweepQuery): Promise<V3Transaction[]> {
    // A shard's transaction may carry a time a little before the masterchain block that precedes the one holding it.
    const startMs = Math.max(q.since, q.after !== null ? (await d.blockRef(q.after)).time - TIME_SLACK_MS : 0);
    const endMs = (await d.blockRef(q.upTo)).time;
    if (endMs < startMs) return [];
    const out: V3Transaction[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await d.rpc.get<{ transactions?: V3Transaction[] }>("transactions", {
        account: owner,
        start_utime: Math.floor(startMs / 1000),
        end_utime: Math.ceil(endMs / 1000),
        limit,
        offset: page * limit,
        sort: "desc",
      });
      const list = r.transactions ?? [];
      let older = false;
      for (const t of list) {
        if (t.mc_block_seqno === null || t.mc_block_seqno === undefined) continue;
        const seqno = BigInt(t.mc_block_seqno);
        if ((q.after !== null && seqno <= q.after) || t.now * 1000 < q.since) {
          older = true;
          break;
        }
        if (seqno <= q.upTo && isNotification(t) && !await q.known(b64hex(t.hash))) out.push(t);
      }
      if (older || list.length < limit) break;
    }
    return out;
  }

  return async (q) => {
    const owner = normalizeTonAddress(q.address);
    const watch = watchOf(owner);
    const out: IncomingTransfer[] = [];
    for (const t of await unknownNotifications(owner, q)) {
      const found = await d.transferOf(t, await d.blockRef(BigInt(t.mc_block_seqno!)), watch);
      if (found) out.push(found);
    }
    return out;
  };
}

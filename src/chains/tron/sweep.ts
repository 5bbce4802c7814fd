// The TRON sweep (DESIGN 25): a second detection path beside the block scan. Per address, the
// account's TRC20 history (TronGrid's GET /v1/accounts/{address}/transactions/trc20,
// only_to, from `since`): a transfer the gateway does not know yet is read again from the node
// (gettransactioninfobyid: its block and logs, getblockbynum: the block's id), so it reaches
// the funnel exactly as the scan would have reported it (same log index, block hash, time).
// Cost per address: one history page (at most MAX_PAGES), plus two calls per unknown transfer.
import type { ChainCode, IncomingTransfer, SweepQuery, TokenInfo } from "../types";
import type { TronRpc } from "./rpc";
import { normalizeTronAddress, tronFromHex, tronToHex20 } from "./address";
import { TRANSFER_TOPIC } from "./tx";

export interface TronSweepDeps {
  rpc: TronRpc;
  tokens: readonly TokenInfo[];
  /** History entries per page (TronGrid's maximum is 200). Default 200. */
  pageLimit?: number;
}

/** One TRC20 transfer as TronGrid's history lists it. */
interface HistoryEntry {
  transaction_id: string;
  token_info?: { address?: string };
  block_timestamp?: number;
  from?: string;
  to?: string;
  type?: string;
  value?: string;
}

interface HistoryPage {
  data?: HistoryEntry[];
  success?: boolean;
  meta?: { fingerprint?: string };
}

interface TxInfo {
  id?: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  result?: string;
  log?: Array<{ address?: string; topics?: string[]; data?: string }>;
}

/** Pages of history one sweep of one address reads at most (its cost bound). */
export const MAX_PAGES = 3;

const CHAIN: ChainCode = "TRON";

export function tronSweep(d: TronSweepDeps): (q: SweepQuery) => Promise<IncomingTransfer[]> {
  const byContract = new Map(d.tokens.map((t) => [t.contract, t]));
  const byContract20 = new Map(d.tokens.map((t) => [tronToHex20(t.contract).slice(2).toLowerCase(), t]));
  const limit = d.pageLimit ?? 200;

  /** The address's incoming TRC20 transfers of configured tokens since `since`, newest first, not yet known. */
  async function unknownIncoming(address: string, since: number, known: (tx: string) => Promise<boolean>): Promise<string[]> {
    const out = new Set<string>();
    let fingerprint: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = { only_to: true, limit, min_timestamp: Math.max(0, Math.floor(since)), order_by: "block_timestamp,desc", ...(fingerprint ? { fingerprint } : {}) };
      const r = await d.rpc.get<HistoryPage>(`v1/accounts/${address}/transactions/trc20`, query);
      if (r === null) throw new Error("the TRON endpoint does not serve TronGrid's v1 API (GET /v1/accounts/…/transactions/trc20), which the sweep needs");
      if (r.success === false) throw new Error(`TRON TRC20 history of ${address} refused`);
      for (const e of r.data ?? []) {
        if (e.to !== address || !byContract.has(String(e.token_info?.address ?? ""))) continue;
        if (!await known(e.transaction_id)) out.add(e.transaction_id);
      }
      fingerprint = r.meta?.fingerprint;
      if (!fingerprint || (r.data?.length ?? 0) < limit) break;
    }
    return [...out];
  }

  /** The transfers to `address` in one transaction, as the scan reads them (log index = position in the logs). */
  async function transfersIn(txId: string, address: string, upTo: bigint): Promise<IncomingTransfer[]> {
    const info = await d.rpc.post<TxInfo>("wallet/gettransactioninfobyid", { value: txId });
    if (!info?.id || info.blockNumber === undefined || info.result === "FAILED" || BigInt(info.blockNumber) > upTo) return [];
    const block = await d.rpc.post<{ blockID?: string; block_header?: { raw_data: { timestamp: number } } }>("wallet/getblockbynum", { num: info.blockNumber });
    if (!block?.blockID) return [];
    const out: IncomingTransfer[] = [];
    (info.log ?? []).forEach((l, logIndex) => {
      const t = byContract20.get(String(l.address ?? "").toLowerCase().replace(/^(0x|41(?=[0-9a-f]{40}$))/, ""));
      const topics = l.topics ?? [];
      if (!t || topics.length !== 3 || topics[0]!.toLowerCase().replace(/^0x/, "") !== TRANSFER_TOPIC) return;
      const to = tronFromHex(topics[2]!.slice(-40));
      if (to !== address) return;
      const data = String(l.data ?? "").replace(/^0x/, "");
      out.push({
        chain: CHAIN,
        token: t.symbol,
        txHash: info.id!,
        logIndex,
        blockNumber: BigInt(info.blockNumber!),
        blockHash: block.blockID!,
        blockTime: block.block_header?.raw_data.timestamp ?? info.blockTimeStamp ?? 0,
        from: tronFromHex(topics[1]!.slice(-40)),
        to,
        amount: data ? BigInt("0x" + data) : 0n,
      });
    });
    return out;
  }

  return async (q) => {
    if (d.tokens.length === 0) return [];
    const address = normalizeTronAddress(q.address);
    const out: IncomingTransfer[] = [];
    for (const tx of await unknownIncoming(address, q.since, q.known)) out.push(...(await transfersIn(tx, address, q.upTo)));
    return out;
  };
}

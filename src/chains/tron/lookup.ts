// One TRON transaction by id (DESIGN 25: the payer's hash, the back office's look-up): its
// info's TRC-20 Transfer logs, whoever they pay, numbered as the scan numbers them (the log's
// position in the info), with the block's id, time and finality (solidified).
import type { ChainHead, TokenInfo, TxLookup, TxTokenTransfer } from "../types";
import type { TronRpc } from "./rpc";
import { tronFromHex, tronToHex20 } from "./address";
import { TRANSFER_TOPIC } from "./tx";
import { inclusion } from "../common/adapter-parts";

const TRON_TX_ID = /^(0x)?[0-9a-fA-F]{64}$/;

interface TxInfo {
  id?: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  result?: string;
  receipt?: { result?: string };
  log?: Array<{ address?: string; topics?: string[]; data?: string }>;
}

const bare = (h: string) => h.toLowerCase().replace(/^0x/, "");

/** The Transfer logs of a transaction info (address: the contract's 20 bytes in hex). */
export function decodeTronLogs(logs: TxInfo["log"], tokens: readonly TokenInfo[]): TxTokenTransfer[] {
  const byContract = new Map(tokens.map((t) => [bare(tronToHex20(t.contract)), t]));
  const out: TxTokenTransfer[] = [];
  (logs ?? []).forEach((l, logIndex) => {
    const topics = l.topics ?? [];
    if (topics.length !== 3 || bare(topics[0]!) !== TRANSFER_TOPIC) return;
    const contract20 = bare(String(l.address ?? "")).replace(/^41(?=[0-9a-f]{40}$)/, "");
    const data = bare(String(l.data ?? ""));
    out.push({
      token: byContract.get(contract20)?.symbol ?? null,
      contract: tronFromHex(contract20),
      logIndex,
      from: tronFromHex(topics[1]!.slice(-40)),
      to: tronFromHex(topics[2]!.slice(-40)),
      amount: data ? BigInt("0x" + data) : 0n,
    });
  });
  return out;
}

/** The adapter's lookupTx: the transaction's info once in a block, else the node's pending pool. */
export function tronTxLookup(rpc: TronRpc, tokens: readonly TokenInfo[], head: () => Promise<ChainHead>, blockHash: (n: bigint) => Promise<string | null>) {
  return async (hash: string): Promise<TxLookup> => {
    const h = hash.trim();
    if (!TRON_TX_ID.test(h)) return { state: "malformed" };
    const txHash = bare(h);
    const info = await rpc.post<TxInfo>("wallet/gettransactioninfobyid", { value: txHash });
    if (!info || typeof info.blockNumber !== "number") {
      const t = await rpc.post<{ txID?: string }>("wallet/gettransactionbyid", { value: txHash });
      return t?.txID ? { state: "pending", txHash } : { state: "not_found" };
    }
    const blockNumber = BigInt(info.blockNumber);
    const id = await blockHash(blockNumber);
    if (!id) return { state: "pending", txHash };
    const success = info.result !== "FAILED";
    return {
      state: "included",
      txHash,
      success,
      blockNumber,
      blockHash: id,
      blockTime: Number(info.blockTimeStamp ?? 0),
      ...inclusion(await head(), blockNumber),
      transfers: success ? decodeTronLogs(info.log, tokens) : [],
    };
  };
}

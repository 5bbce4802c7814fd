// One EVM transaction by hash (DESIGN 25: the payer's hash, the back office's look-up): its
// receipt's ERC-20 Transfer logs, whoever they pay, with the block's time and finality. Reads
// the receipt, never a block-range eth_getLogs, so a node that drops range answers still
// shows the payment.
import { getAddress } from "viem";
import type { ChainHead, TokenInfo, TxLookup, TxTokenTransfer } from "../types";
import type { RpcClient } from "../json-rpc";
import { inclusion } from "../common/adapter-parts";

const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const EVM_TX_HASH = /^0x[0-9a-fA-F]{64}$/;

interface ReceiptLog {
  address: string;
  topics: string[];
  data: string;
  logIndex: string;
}

interface Receipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  logs: ReceiptLog[];
}

/** The ERC-20 Transfer logs of a receipt (topics: event, from, to; data: amount). */
export function decodeTransferLogs(logs: ReceiptLog[], tokens: readonly TokenInfo[]): TxTokenTransfer[] {
  const byContract = new Map(tokens.map((t) => [t.contract.toLowerCase(), t]));
  return logs
    .filter((l) => l.topics.length === 3 && l.topics[0]!.toLowerCase() === TRANSFER_TOPIC)
    .map((l) => ({
      token: byContract.get(l.address.toLowerCase())?.symbol ?? null,
      contract: getAddress(l.address),
      logIndex: Number(BigInt(l.logIndex)),
      from: getAddress("0x" + l.topics[1]!.slice(26)),
      to: getAddress("0x" + l.topics[2]!.slice(26)),
      amount: BigInt(l.data.length > 2 ? l.data : "0x0"),
    }));
}

/** The adapter's lookupTx: receipt, else the pending pool, else not found. */
export function evmTxLookup(rpc: RpcClient, tokens: readonly TokenInfo[], head: () => Promise<ChainHead>) {
  return async (hash: string): Promise<TxLookup> => {
    const h = hash.trim();
    if (!EVM_TX_HASH.test(h)) return { state: "malformed" };
    const txHash = h.toLowerCase();
    const r = await rpc.request<Receipt | null>("eth_getTransactionReceipt", [txHash]);
    if (!r) {
      const known = await rpc.request<unknown>("eth_getTransactionByHash", [txHash]);
      return known ? { state: "pending", txHash } : { state: "not_found" };
    }
    const block = await rpc.request<{ timestamp: string; hash: string } | null>("eth_getBlockByHash", [r.blockHash, false]);
    // The block was reorganised away between the two reads: the transaction is not in a block now.
    if (!block) return { state: "pending", txHash };
    const blockNumber = BigInt(r.blockNumber);
    return {
      state: "included",
      txHash,
      success: r.status === "0x1",
      blockNumber,
      blockHash: r.blockHash,
      blockTime: Number(BigInt(block.timestamp)) * 1000,
      ...inclusion(await head(), blockNumber),
      transfers: r.status === "0x1" ? decodeTransferLogs(r.logs ?? [], tokens) : [],
    };
  };
}

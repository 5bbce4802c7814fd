// The EVM sweep (DESIGN 25): a second detection path beside the block scan. Per address,
// eth_getLogs by recipient topic (topic 2 = the address as one value, not the scan's list),
// over the blocks since the last sweep of that address (the first sweep: the blocks since
// `since`, from the chain's measured block time), at most `maxBlocks` blocks a sweep. A log
// the gateway already knows costs nothing more; an unknown one costs one block header (its
// time), all in one batch. See docs/operations.md "The sweep".
import { getAddress } from "viem";
import type { RpcClient, RpcError } from "../json-rpc";
import type { ChainCode, IncomingTransfer, SweepQuery, TokenInfo } from "../types";
import type { RpcBlock } from "./node";
import type { RpcLog } from "./scan";
import { filterSeq } from "../../lib/async-seq";

export interface EvmSweepDeps {
  chain: ChainCode;
  /** In errors ("BSC"). */
  name: string;
  rpc: RpcClient;
  tokens: readonly TokenInfo[];
  /** The ERC-20 Transfer event's topic 0. */
  transferTopic: string;
  /** Widest eth_getLogs range (blocks); halved while the node refuses it. */
  maxLogRange: number;
  isRangeRefusal(e: RpcError): boolean;
  /** Most blocks one sweep of one address covers (its cost bound: maxBlocks / maxLogRange calls). Default 10 × maxLogRange. */
  maxBlocks?: number;
}

const hex = (n: bigint) => "0x" + n.toString(16);
const padTopic = (address: string) => "0x" + "0".repeat(24) + address.slice(2).toLowerCase();
/** Blocks between the two headers that measure the block time. */
const SAMPLE_BLOCKS = 100n;

export function evmSweep(d: EvmSweepDeps): (q: SweepQuery) => Promise<IncomingTransfer[]> {
  const byContract = new Map(d.tokens.map((t) => [t.contract.toLowerCase(), t]));
  const maxBlocks = BigInt(Math.max(1, d.maxBlocks ?? 10 * d.maxLogRange));
  let span = Math.max(1, d.maxLogRange);

  /** Blocks since `since` up to block `upTo`, from the time of `upTo` and of the block SAMPLE_BLOCKS below it. */
  async function blocksSince(since: number, upTo: bigint): Promise<bigint> {
    const low = upTo > SAMPLE_BLOCKS ? upTo - SAMPLE_BLOCKS : 0n;
    const [top, bottom] = (await d.rpc.batch([
      { method: "eth_getBlockByNumber", params: [hex(upTo), false] },
      { method: "eth_getBlockByNumber", params: [hex(low), false] },
    ])) as Array<RpcBlock | null | RpcError>;
    if (!top || !bottom || top instanceof Error || bottom instanceof Error) return maxBlocks;
    const topMs = Number(BigInt(top.timestamp)) * 1000;
    const perBlock = upTo > low ? Math.max(1, (topMs - Number(BigInt(bottom.timestamp)) * 1000) / Number(upTo - low)) : 1000;
    // A tenth more, and two blocks: block times wander.
    return BigInt(Math.ceil((Math.max(0, topMs - since) / perBlock) * 1.1) + 2);
  }

  async function logsTo(topic: string, from: bigint, to: bigint): Promise<RpcLog[]> {
    const out: RpcLog[] = [];
    let cursor = from;
    while (cursor <= to) {
      const end = cursor + BigInt(span) - 1n < to ? cursor + BigInt(span) - 1n : to;
      const filter = { fromBlock: hex(cursor), toBlock: hex(end), address: d.tokens.map((t) => t.contract), topics: [d.transferTopic, null, topic] };
      try {
        out.push(...(await d.rpc.request<RpcLog[]>("eth_getLogs", [filter])));
        cursor = end + 1n;
      } catch (e) {
        if (span > 1 && (e as RpcError).kind !== undefined && d.isRangeRefusal(e as RpcError)) {
          span = Math.max(1, Math.floor(span / 2));
          continue;
        }
        throw e;
      }
    }
    return out;
  }

  return async (q) => {
    if (d.tokens.length === 0) return [];
    const address = getAddress(q.address);
    const back = q.after !== null ? q.upTo - q.after : await blocksSince(q.since, q.upTo);
    const blocks = back < maxBlocks ? back : maxBlocks;
    const from = q.upTo - blocks + 1n > 0n ? q.upTo - blocks + 1n : 0n;
    if (blocks <= 0n || from > q.upTo) return [];
    const logs = await filterSeq((await logsTo(padTopic(address), from, q.upTo)), 
      async (l) =>
        !l.removed &&
        l.topics.length === 3 &&
        l.topics[0]!.toLowerCase() === d.transferTopic &&
        byContract.has(l.address.toLowerCase()) &&
        getAddress("0x" + l.topics[2]!.slice(26)) === address &&
        !await q.known(l.transactionHash),
    );
    if (logs.length === 0) return [];
    const hashes = [...new Set(logs.map((l) => l.blockHash))];
    const headers = await d.rpc.batch(hashes.map((h) => ({ method: "eth_getBlockByHash", params: [h, false] })));
    const times = new Map<string, number>();
    hashes.forEach((h, i) => {
      const b = headers[i] as RpcBlock | null | RpcError;
      if (b instanceof Error) throw b;
      if (!b) throw new Error(`${d.name} block ${h} vanished during the sweep (reorg); sweep again`);
      times.set(h, Number(BigInt(b.timestamp)) * 1000);
    });
    return logs.map((l) => transferOfLog(d.chain, byContract.get(l.address.toLowerCase())!, l, times.get(l.blockHash)!));
  };
}

/** A Transfer log of a configured token as the incoming transfer the funnel records (the scan's and the sweep's one reading). */
export function transferOfLog(chain: ChainCode, token: TokenInfo, l: RpcLog, blockTime: number): IncomingTransfer {
  return {
    chain,
    token: token.symbol,
    txHash: l.transactionHash,
    logIndex: Number(BigInt(l.logIndex)),
    blockNumber: BigInt(l.blockNumber),
    blockHash: l.blockHash,
    blockTime,
    from: getAddress("0x" + l.topics[1]!.slice(26)),
    to: getAddress("0x" + l.topics[2]!.slice(26)),
    amount: BigInt(l.data.length > 2 ? l.data : "0x0"),
  };
}

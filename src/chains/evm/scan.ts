// Reading the chain: the head (latest and final block), block hashes, and the token transfers
// in a block range, to a watch set (scan) or from one address (restore reconcile), by
// eth_getLogs on the token contracts over a block range that adapts to what the provider takes.
import { transferOfLog } from "./sweep";
import { getAddress } from "viem";
import type { ChainHead, IncomingTransfer, ScanResult, TokenSymbol, WatchSet } from "../types";
import { RpcError } from "../json-rpc";
import { sleep } from "../../lib/clock";
import { hex, toRef, type EvmNode, type RpcBlock } from "./node";

export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
  removed?: boolean;
}

/**
 * "Too much at once": providers answer -32005 "limit exceeded", -32602/-32000 "block range
 * too large", "query returned more than 10000 results", or just time out.
 */
export function isRangeRefusal(err: RpcError): boolean {
  if (err.kind === "timeout") return true;
  if (err.kind !== "rpc") return false;
  if (err.code === -32005) return true;
  return /range|limit|too (many|large|big)|exceed|more than|results|response size|timeout|timed out/i.test(err.message);
}

const padTopic = (address: string) => "0x" + "0".repeat(24) + address.slice(2).toLowerCase();
const addressOfTopic = (topic: string) => getAddress("0x" + topic.slice(26));

/** The latest block and the final one: `confirmations` deep, and at or below the finality tag's block when there is one. */
export async function readHead(node: EvmNode): Promise<ChainHead> {
  const { profile, finality, opts } = node;
  // With a finality tag: the latest block and the tag's in one request.
  const [b, tagged] = finality === "confirmations" ? [await node.getBlock("latest"), null] : await latestAndTagged(node, finality);
  if (!b) throw new Error(`${profile.name} node returned no latest block`);
  const latest = BigInt(b.number);
  const back = BigInt(Math.max(0, opts.confirmations - 1));
  const byCount = latest > back ? latest - back : 0n;
  // No block under the tag yet (a young chain): nothing is final.
  const final = tagged === null ? (finality === "confirmations" ? byCount : 0n) : BigInt(tagged.number) < byCount ? BigInt(tagged.number) : byCount;
  return { latest, final, time: Number(BigInt(b.timestamp)) * 1000 };
}

async function latestAndTagged(node: EvmNode, tag: string): Promise<[RpcBlock | null, RpcBlock | null]> {
  const answers = await node.rpc.batch([
    { method: "eth_getBlockByNumber", params: ["latest", false] },
    { method: "eth_getBlockByNumber", params: [tag, false] },
  ]);
  for (const a of answers) if (a instanceof RpcError) throw a;
  return [answers[0] as RpcBlock | null, answers[1] as RpcBlock | null];
}

export async function blockHashAt(node: EvmNode, n: bigint): Promise<string | null> {
  const b = await node.getBlock(hex(n));
  return b ? b.hash : null;
}

/** Transfer logs of the configured tokens over [from, to], in chunks of an adaptive range. */
export type LogReader = (from: bigint, to: bigint, toTopics: string[] | null, fromTopic?: string) => Promise<RpcLog[]>;

/**
 * A LogReader whose getLogs range is kept across calls: halves on refusal, doubles after a run of
 * successes. `ceiling` is one below the smallest span refused lately, so growth stops short of it;
 * forgotten after a long run of successes in case the provider's limit was raised.
 */
export function logReader(node: EvmNode): LogReader {
  const { profile, log, clock } = node;
  const maxLogRange = Math.max(1, node.opts.maxLogRange ?? 1000);
  let span = maxLogRange;
  let okStreak = 0;
  let ceiling = maxLogRange;
  let sinceCeiling = 0;
  const GROW_AFTER = 8;
  const FORGET_CEILING_AFTER = 500;
  const MAX_CHUNK_FAILURES = 12;
  const getLogs = (from: bigint, to: bigint, toTopics: string[] | null, fromTopic?: string) => logsOfRange(node, from, to, toTopics, fromTopic);

  return async function collectLogs(from, to, toTopics, fromTopic) {
    const out: RpcLog[] = [];
    let cursor = from;
    let failures = 0;
    while (cursor <= to) {
      const end = cursor + BigInt(span) - 1n < to ? cursor + BigInt(span) - 1n : to;
      try {
        const logs = await getLogs(cursor, end, toTopics, fromTopic);
        out.push(...logs);
        cursor = end + 1n;
        failures = 0;
        if (++sinceCeiling >= FORGET_CEILING_AFTER) ceiling = maxLogRange;
        if (++okStreak >= GROW_AFTER && span < ceiling) {
          span = Math.min(ceiling, span * 2);
          okStreak = 0;
        }
      } catch (e) {
        okStreak = 0;
        const err = e instanceof RpcError ? e : new RpcError(String(e), "network");
        if (isRangeRefusal(err) && span > 1) {
          const before = span;
          ceiling = Math.max(1, span - 1);
          sinceCeiling = 0;
          span = Math.max(1, Math.floor(span / 2));
          log?.info({ msg: `${profile.name} getLogs range shrunk`, from: before, to: span, error: err.message });
          continue;
        }
        // Other failures retry the same range. 429s, 5xx and dead sockets already put the
        // endpoint into backoff in the client; a JSON-RPC error needs its own short pause.
        if (++failures > MAX_CHUNK_FAILURES) throw err;
        if (err.kind === "rpc") await sleep(clock, Math.min(1000, 20 * 2 ** (failures - 1)));
      }
    }
    return out;
  };
}

/** Logs of one block range, or throws. */
function logsOfRange(node: EvmNode, from: bigint, to: bigint, toTopics: string[] | null, fromTopic?: string): Promise<RpcLog[]> {
  const topics: unknown[] = [TRANSFER_TOPIC];
  if (fromTopic) topics.push(fromTopic, toTopics);
  else if (toTopics) topics.push(null, toTopics);
  const filter = { fromBlock: hex(from), toBlock: hex(to), address: node.tokens.map((t) => t.contract), topics };
  // One attempt: the chunk loop decides between shrinking the range and retrying.
  return node.rpc.request<RpcLog[]>("eth_getLogs", [filter], { attempts: 1 });
}

// Filter choice (measured with scripts/bench-bsc-scan.ts on anvil): the `to` addresses go
// into topic 2 while the set is small (<= topicFilterLimit, 500 ≈ 34 KiB of request, well
// inside provider body limits), which keeps answers small on busy tokens. Bigger sets filter
// by contract only and match locally, so a range always costs the same calls: eth_getLogs
// per chunk + one batch of block headers (tip + blocks with hits), whatever the set size.
// Splitting 100k addresses into topic groups would multiply calls by the group count.
export async function scanTransfers(node: EvmNode, readLogs: LogReader, from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
  if (from > to) throw new RangeError(`scan range is empty: ${from} > ${to}`);
  let logs: RpcLog[] = [];
  // No tokens must mean no logs: an empty address list would match every contract.
  if (watch.size > 0 && node.tokens.length > 0) {
    const toTopics = watch.size <= (node.opts.topicFilterLimit ?? 500) ? [...watch.addresses()].map(padTopic) : null;
    logs = await readLogs(from, to, toTopics);
  }
  const hits = transfersToWatched(node, logs, watch);
  const { tip, times } = await tipAndBlockTimes(node, to, hits);
  const transfers = hits.map((l) => incomingTransfer(node, l, times.get(l.blockHash)!));
  transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
  return { transfers, tip };
}

/** The Transfer logs of configured tokens to a watched address, each once. */
function transfersToWatched(node: EvmNode, logs: RpcLog[], watch: WatchSet): RpcLog[] {
  const hits: RpcLog[] = [];
  const seen = new Set<string>();
  for (const l of logs) {
    if (l.removed || l.topics.length !== 3 || l.topics[0].toLowerCase() !== TRANSFER_TOPIC) continue;
    if (!node.byContract.has(l.address.toLowerCase())) continue;
    const toAddr = addressOfTopic(l.topics[2]);
    if (!watch.has(toAddr)) continue;
    const key = `${l.transactionHash}:${l.logIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    hits.push(l);
  }
  return hits;
}

/** The scan's tip block and the timestamps of the blocks with hits (by hash: the exact block the log came from); throws on a reorg under the scan. */
async function tipAndBlockTimes(node: EvmNode, to: bigint, hits: RpcLog[]) {
  const name = node.profile.name;
  const hashes = [...new Set(hits.map((l) => l.blockHash))];
  const answers = await node.rpc.batch([
    { method: "eth_getBlockByNumber", params: [hex(to), false] },
    ...hashes.map((h) => ({ method: "eth_getBlockByHash", params: [h, false] })),
  ]);
  for (const a of answers) if (a instanceof RpcError) throw a;
  const tipBlock = answers[0] as RpcBlock | null;
  if (!tipBlock) throw new Error(`${name} block ${to} does not exist yet`);
  const tip = toRef(tipBlock);
  const times = new Map<string, number>();
  hashes.forEach((h, i) => {
    const b = answers[i + 1] as RpcBlock | null;
    if (!b) throw new Error(`${name} block ${h} vanished during the scan (reorg); scan again`);
    times.set(h, toRef(b).time);
  });
  for (const l of hits) {
    if (BigInt(l.blockNumber) === tip.number && l.blockHash !== tip.hash) {
      throw new Error(`${name} block ${to} changed during the scan (reorg); scan again`);
    }
  }
  return { tip, times };
}

function incomingTransfer(node: EvmNode, l: RpcLog, blockTime: number): IncomingTransfer {
  return transferOfLog(node.profile.chain, node.byContract.get(l.address.toLowerCase())!, l, blockTime);
}

/** Transfers of the configured tokens sent by `address` in blocks [from, latest] (restore reconcile). */
export async function outgoingTokenTransfers(node: EvmNode, readLogs: LogReader, address: string, from: bigint) {
  const latest = BigInt(await node.rpc.request<string>("eth_blockNumber"));
  if (from > latest || node.tokens.length === 0) return [];
  const logs = await readLogs(from, latest, null, padTopic(getAddress(address)));
  return logs
    .filter((l) => !l.removed && l.topics.length === 3 && l.topics[0]!.toLowerCase() === TRANSFER_TOPIC && node.byContract.has(l.address.toLowerCase()))
    .map((l) => ({
      txHash: l.transactionHash,
      blockNumber: BigInt(l.blockNumber),
      to: addressOfTopic(l.topics[2]!),
      token: node.byContract.get(l.address.toLowerCase())!.symbol as TokenSymbol,
      amount: BigInt(l.data),
    }));
}

// The TRON full node (HTTP API, java-tron / TronGrid) as the adapter's parts see it: the client
// with failover and API key, the configured tokens, blocks by number or at the head, constant
// contract calls, transaction lookups, and the chain parameters (cached a minute).
import type { BlockRef, TokenInfo, TokenSymbol } from "../types";
import { normalizeTronAddress, tronFromHex, tronToHex20 } from "./address";
import { TronRpc, TronRpcError, type TronRpcLogger } from "./rpc";
import { type Clock, systemClock } from "../../lib/clock";
import { assertDecimals } from "../common/adapter-parts";
import { toHex41 } from "./tx";
import type { TronAdapterOptions, TronChainParams } from "./types";

const PARAMS_TTL_MS = 60_000;

export interface NodeBlock {
  blockID?: string;
  block_header?: { raw_data: { number?: number; timestamp: number; parentHash: string } };
  transactions?: Array<{ txID: string; raw_data?: { contract?: Array<{ type?: string; parameter?: { value?: Record<string, unknown> } }> } }>;
}

export interface NodeTxInfo {
  id: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  fee?: number;
  result?: string;
  receipt?: { result?: string; energy_usage?: number; energy_fee?: number; energy_usage_total?: number; net_usage?: number; net_fee?: number };
  log?: Array<{ address: string; topics?: string[]; data?: string }>;
}

export interface ConstantAnswer {
  result?: { result?: boolean; code?: string; message?: string };
  energy_used?: number;
  constant_result?: string[];
  Error?: string;
}

/** A node's hex message as text (TRON answers messages hex-encoded). */
export const hexText = (h: unknown) => {
  if (typeof h !== "string" || !/^[0-9a-fA-F]*$/.test(h)) return String(h ?? "");
  try {
    return Buffer.from(h, "hex").toString("utf8");
  } catch {
    return h;
  }
};

/** An address a block lists (hex 41…, or base58) in base58; undefined when it is none. */
export const asBase58 = (a: unknown) => {
  if (typeof a !== "string") return undefined;
  try {
    return /^(0x)?(41)?[0-9a-fA-F]{40}$/.test(a) ? tronFromHex(a) : normalizeTronAddress(a);
  } catch {
    return undefined;
  }
};

export const numberOf = (b: NodeBlock) => BigInt(b.block_header!.raw_data.number ?? 0);
export const toRef = (b: NodeBlock): BlockRef => ({ number: numberOf(b), hash: b.blockID!, time: Number(b.block_header!.raw_data.timestamp) });
/** Why a constant call failed, or null when it succeeded. */
export const constantFailure = (r: ConstantAnswer) => (r.Error ? r.Error : r.result?.result ? null : `${r.result?.code ?? "error"}: ${hexText(r.result?.message)}`);

export interface TronNode {
  opts: TronAdapterOptions;
  rpc: TronRpc;
  log?: TronRpcLogger;
  clock: Clock;
  tokens: TokenInfo[];
  /** The tokens by contract, as 20-byte hex without prefix (how logs name them). */
  byContract20: ReadonlyMap<string, TokenInfo>;
  /** Signed transactions expire this long after the head's time. */
  lifetime: number;
  token(symbol: TokenSymbol): TokenInfo;
  getBlock(num: bigint, solid?: boolean): Promise<NodeBlock | null>;
  /** The head block, or the solidified one. */
  nowBlock(solid: boolean): Promise<NodeBlock>;
  constant(contract: string, owner: string, selector: string, parameter: string): Promise<ConstantAnswer>;
  /** Whether the node has the transaction (in a block or its pool). */
  known(txHash: string): Promise<boolean>;
  /** The transaction's info once it is in a block, else null. */
  infoOf(txHash: string): Promise<NodeTxInfo | null>;
  chainParams(): Promise<TronChainParams>;
  /** Blocks [from, to], `scanConcurrency` at a time, each mapped by `fn`; results in block order. */
  eachBlock<T>(from: bigint, to: bigint, fn: (block: NodeBlock, n: bigint) => Promise<T>): Promise<T[]>;
}

export function connectTronNode(opts: TronAdapterOptions): TronNode {
  const rpc = new TronRpc({
    urls: opts.rpcUrls,
    apiKey: opts.apiKey,
    timeoutMs: opts.requestTimeoutMs,
    backoffBaseMs: opts.backoffBaseMs,
    rateLimitBackoffMs: opts.rateLimitBackoffMs,
    attempts: opts.rpcAttempts ?? Math.max(4, 2 * opts.rpcUrls.length),
    logger: opts.logger,
    clock: opts.clock,
  });
  const clock = opts.clock ?? systemClock;
  const tokens = opts.tokens;
  const concurrency = Math.max(1, opts.scanConcurrency ?? 4);
  let params: { at: number; value: TronChainParams } | null = null;

  const getBlock = async (num: bigint, solid = false): Promise<NodeBlock | null> => {
    const b = await rpc.post<NodeBlock>(solid ? "walletsolidity/getblockbynum" : "wallet/getblockbynum", { num: Number(num) });
    return b && b.blockID && b.block_header ? b : null;
  };

  return {
    opts,
    rpc,
    log: opts.logger,
    clock,
    tokens,
    byContract20: new Map(tokens.map((t) => [tronToHex20(t.contract).slice(2).toLowerCase(), t])),
    lifetime: opts.txLifetimeMs ?? 3_600_000,
    token(symbol) {
      const t = tokens.find((x) => x.symbol === symbol);
      if (!t) throw new Error(`TRON token ${symbol} is not configured`);
      return t;
    },
    getBlock,
    async nowBlock(solid) {
      const b = await rpc.post<NodeBlock>(solid ? "walletsolidity/getnowblock" : "wallet/getnowblock");
      if (!b?.blockID || !b.block_header) throw new TronRpcError(`${solid ? "solidified" : "latest"} block missing in node answer`, "answer");
      return b;
    },
    constant: (contract, owner, selector, parameter) =>
      rpc.post<ConstantAnswer>("wallet/triggerconstantcontract", {
        owner_address: toHex41(owner),
        contract_address: toHex41(contract),
        function_selector: selector,
        parameter,
      }),
    async known(txHash) {
      const t = await rpc.post<{ txID?: string }>("wallet/gettransactionbyid", { value: txHash });
      return !!t?.txID;
    },
    async infoOf(txHash) {
      const info = await rpc.post<NodeTxInfo>("wallet/gettransactioninfobyid", { value: txHash });
      return info && typeof info.blockNumber === "number" ? info : null;
    },
    async chainParams() {
      if (params && clock.now() - params.at < PARAMS_TTL_MS) return params.value;
      const r = await rpc.post<{ chainParameter?: Array<{ key: string; value?: number }> }>("wallet/getchainparameters");
      const get = (k: string, d: bigint) => {
        const v = r.chainParameter?.find((p) => p.key === k)?.value;
        return v === undefined ? d : BigInt(v);
      };
      const value = {
        energyFee: get("getEnergyFee", 100n),
        transactionFee: get("getTransactionFee", 1000n),
        createAccountFee: get("getCreateNewAccountFeeInSystemContract", 1_000_000n),
        maxFeeLimit: get("getMaxFeeLimit", 15_000_000_000n),
      };
      params = { at: clock.now(), value };
      return value;
    },
    async eachBlock(from, to, fn) {
      const out: Awaited<ReturnType<typeof fn>>[] = [];
      const count = to >= from ? Number(to - from + 1n) : 0;
      let next = 0;
      const worker = async () => {
        for (;;) {
          const i = next++;
          if (i >= count) return;
          const n = from + BigInt(i);
          const block = await getBlock(n);
          if (!block) throw new Error(`TRON block ${n} does not exist yet`);
          out[i] = await fn(block, n);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
      return out;
    },
  };
}

/** Start-up checks: a token contract with the configured decimals at every token; logs the head and the solidified block. */
export async function checkNode(node: TronNode): Promise<void> {
  for (const t of node.tokens) {
    const r = await node.constant(t.contract, t.contract, "decimals()", "");
    const failure = constantFailure(r);
    const out = r.constant_result?.[0];
    if (failure || !out) throw new Error(`TRON ${t.symbol}: no token contract at ${t.contract} (${failure ?? "empty answer"})`);
    assertDecimals("TRON", t, Number(BigInt("0x" + out)));
  }
  const [head, solid] = await Promise.all([node.nowBlock(false), node.nowBlock(true)]);
  node.log?.info({ msg: "tron adapter started", head: Number(numberOf(head)), solidified: Number(numberOf(solid)), tokens: node.tokens.map((t) => t.symbol) });
}

// One EVM chain's node as the adapter's parts see it: the profile, the configured tokens, the
// JSON-RPC client with failover, and the few reads every part makes (a block by tag, an
// eth_call). Raw JSON-RPC throughout, so no client-side cache ever serves a stale block number.
import { decodeFunctionResult, encodeFunctionData, getAddress, parseAbi, type Hex } from "viem";
import type { BlockRef, TokenInfo, TokenSymbol } from "../types";
import { isEvmAddress } from "./address";
import { RpcClient, RpcError, type RpcLogger } from "../json-rpc";
import { type Clock, systemClock } from "../../lib/clock";
import { assertDecimals } from "../common/adapter-parts";
import type { EvmAdapterOptions, EvmFinality, EvmProfile } from "./types";

export const ERC20_ABI = parseAbi([
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address) view returns (uint256)",
  "function decimals() view returns (uint8)",
]);

export interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
  baseFeePerGas?: string;
}

export const hex = (n: bigint | number) => "0x" + n.toString(16);

export interface EvmNode {
  profile: EvmProfile;
  opts: EvmAdapterOptions;
  /** The configured tokens, contracts checksummed. */
  tokens: readonly TokenInfo[];
  /** By lower-case contract address. */
  byContract: ReadonlyMap<string, TokenInfo>;
  chainId: number;
  finality: EvmFinality;
  rpc: RpcClient;
  clock: Clock;
  log?: RpcLogger;
  /** The token of `symbol`; throws when it is not configured. */
  token(symbol: TokenSymbol): TokenInfo;
  getBlock(tag: string): Promise<RpcBlock | null>;
  call(to: string, data: Hex, block?: string): Promise<Hex>;
}

/** Checks the configured tokens against the profile and opens the RPC client. */
export function connectEvmNode(profile: EvmProfile, opts: EvmAdapterOptions): EvmNode {
  for (const t of opts.tokens) {
    if (t.chain !== profile.chain) throw new Error(`token ${t.chain} ${t.symbol} given to the ${profile.name} adapter`);
    if (!isEvmAddress(t.contract)) throw new Error(`${profile.name} ${t.symbol} contract is not an address: ${t.contract}`);
  }
  const tokens: readonly TokenInfo[] = opts.tokens.map((t) => ({ ...t, contract: getAddress(t.contract) }));
  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const rpc = new RpcClient({
    urls: opts.rpcUrls,
    timeoutMs: opts.requestTimeoutMs,
    backoffBaseMs: opts.backoffBaseMs,
    attempts: opts.rpcAttempts ?? Math.max(4, 2 * opts.rpcUrls.length),
    logger: opts.logger,
    clock: opts.clock,
  });
  return {
    profile,
    opts,
    tokens,
    byContract: new Map(tokens.map((t) => [t.contract.toLowerCase(), t])),
    chainId: opts.chainId ?? profile.chainId,
    finality: opts.finality ?? "confirmations",
    rpc,
    clock: opts.clock ?? systemClock,
    log: opts.logger,
    token(symbol) {
      const t = bySymbol.get(symbol);
      if (!t) throw new Error(`${profile.name} ${symbol} is not configured`);
      return t;
    },
    getBlock: (tag) => rpc.request<RpcBlock | null>("eth_getBlockByNumber", [tag, false]),
    call: (to, data, block = "latest") => rpc.request<Hex>("eth_call", [{ to, data }, block]),
  };
}

export function toRef(b: RpcBlock): BlockRef {
  return { number: BigInt(b.number), hash: b.hash, time: Number(BigInt(b.timestamp)) * 1000 };
}

/**
 * Start-up checks: the node's chain id, a contract with the configured decimals at every token,
 * and the finality tag served (a node that does not know it would stall every pay-in).
 */
export async function checkNode(node: EvmNode): Promise<void> {
  const { profile, rpc, chainId, tokens, finality } = node;
  const id = Number(BigInt(await rpc.request<string>("eth_chainId")));
  if (id !== chainId) throw new Error(`${profile.name} RPC answers chain id ${id}, expected ${chainId}`);
  const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "decimals" });
  for (const t of tokens) {
    const res = await node.call(t.contract, data);
    if (!res || res === "0x") throw new Error(`${profile.name} ${t.symbol}: no token contract at ${t.contract}`);
    assertDecimals(profile.name, t, Number(decodeFunctionResult({ abi: ERC20_ABI, functionName: "decimals", data: res })));
  }
  if (finality !== "confirmations") {
    // A node that does not know the tag would stall every pay-in: refuse to start instead.
    try {
      await node.getBlock(finality);
    } catch (e) {
      if (e instanceof RpcError && e.kind === "rpc") throw new Error(`${profile.name} RPC does not serve the "${finality}" block tag (chains.${profile.chain}.finality): ${e.message}`);
      throw e;
    }
  }
  node.log?.info({ msg: `${profile.name.toLowerCase()} adapter started`, chainId, finality, tokens: tokens.map((t) => t.symbol) });
}

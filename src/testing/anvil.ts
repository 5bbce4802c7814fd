// A real EVM node for tests: anvil from the @foundry-rs/anvil-linux-amd64 npm package,
// by default chain id 56 with the test ERC-20 (TestToken.sol, 18 decimals) installed at the
// mainnet BSC USDT and USDC addresses so configuration stays the real one; `chain` stands it
// up as another product EVM chain (its chain id, its tokens' addresses and decimals).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import { encodeFunctionData, parseAbi, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainModule, defaultToken } from "../chains/registry";
import type { ChainCode, TokenSymbol } from "../chains/types";
import type { EvmChainProfile } from "../chains/evm/module";
import { ARBITRUM_PROFILE } from "../chains/arbitrum";
import { BASE_PROFILE } from "../chains/base";
import { BSC_PROFILE } from "../chains/bsc";
import { ETH_PROFILE } from "../chains/eth";
import { POLYGON_PROFILE } from "../chains/polygon";
import { OPTIMISM_PROFILE } from "../chains/optimism";
import { AVALANCHE_PROFILE } from "../chains/avalanche";
import { XLAYER_PROFILE } from "../chains/xlayer";
import { PLASMA_PROFILE } from "../chains/plasma";
import { testTokenBytecode } from "./erc20-bytecode";
import { GAS_PRICE_ORACLE } from "../chains/evm/adapter";
import { l1FeeOracleBytecode, TEST_L1_FEE } from "./l1-fee-oracle";
import { freePort } from "./wait";


export const TEST_TOKEN_ABI = parseAbi([
  "function mint(address to, uint256 value)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address) view returns (uint256)",
  "function decimals() view returns (uint8)",
]);

/** anvil's default dev accounts ("test test … junk" mnemonic), funded with 10,000 ETH (here: BNB). */
export const DEV_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
] as const;

export const TOKEN_ADDRESSES: Record<TokenSymbol, `0x${string}`> = {
  USDT: defaultToken("BSC", "USDT")!.contract as `0x${string}`,
  USDC: defaultToken("BSC", "USDC")!.contract as `0x${string}`,
};

type Hex = `0x${string}`;

/** The product's EVM profiles by chain code: the chain ids anvil stands in for. */
export const EVM_PROFILES: Readonly<Record<string, EvmChainProfile>> = Object.fromEntries(
  [BSC_PROFILE, ETH_PROFILE, POLYGON_PROFILE, ARBITRUM_PROFILE, BASE_PROFILE, OPTIMISM_PROFILE, AVALANCHE_PROFILE, XLAYER_PROFILE, PLASMA_PROFILE].map((p) => [p.chain, p]),
);

export interface MinedTx {
  hash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  status: "success" | "reverted";
  /** Log index of the first log (the Transfer) in its block, when there is one. */
  logIndex?: number;
}

export interface AnvilNode {
  url: string;
  port: number;
  chainId: number;
  /** Where the test token of each of the chain's symbols lives (the chain's mainnet contract). */
  tokenAddresses: Partial<Record<TokenSymbol, Hex>>;
  /** The funded test key (dev account 0) and its address. */
  devKey: Hex;
  devAddress: Hex;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  blockNumber(): Promise<bigint>;
  /** Mint test tokens (the contract lets anyone mint). */
  mint(token: TokenSymbol, to: string, amount: bigint): Promise<MinedTx>;
  /** Token transfer signed with `key` (default: the funded dev key). */
  transfer(token: TokenSymbol, to: string, amount: bigint, key?: Hex): Promise<MinedTx>;
  tokenBalance(token: TokenSymbol, address: string): Promise<bigint>;
  setBalance(address: string, wei: bigint): Promise<void>;
  mine(blocks?: number): Promise<void>;
  snapshot(): Promise<string>;
  revert(id: string): Promise<void>;
  /** Drop the last `depth` blocks and mine as many empty ones: same heights, new hashes. */
  reorg(depth: number): Promise<void>;
  /** Turn auto-mining off/on (off: transactions wait in the mempool until mine()). */
  setAutomine(on: boolean): Promise<void>;
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  /** Seconds per block; default auto-mine (a block per transaction). */
  blockTime?: number;
  /** Install the test token at the USDT/USDC addresses (default true). */
  tokens?: boolean;
  /** Default: the chain's (56 for BSC); another id stands in for another EVM chain. */
  chainId?: number;
  /** Wei: a chain with an EIP-1559 base fee (it then moves with the blocks). Default 0 (BSC has none), with 1 gwei as the suggested gas price. */
  baseFee?: bigint;
  /** A product EVM chain (default BSC): its tokens' contracts and decimals, its chain id. */
  chain?: ChainCode;
  /** anvil's epoch length: the `safe` tag trails latest by this many blocks, `finalized` by twice (default anvil's 32). */
  slotsInAnEpoch?: number;
  /** startBscFixture: a process other rows used before, re-dressed as this chain (shareAnvil). */
  shared?: boolean;
}

export function anvilBinary(): string {
  const pkg = require.resolve("@foundry-rs/anvil-linux-amd64/package.json");
  const bin = join(dirname(pkg), "bin", "anvil");
  if (!existsSync(bin)) throw new Error(`anvil binary missing at ${bin}`);
  return bin;
}

// Every node still running is killed when the test process exits, even on a crash.
const live = new Set<Subprocess>();
let exitHookInstalled = false;
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const p of live) p.kill("SIGKILL");
  };
  process.on("exit", killAll);
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      killAll();
      process.exit(sig === "SIGINT" ? 130 : 143);
    });
  }
}


export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilNode> {
  installExitHook();
  let lastErr: unknown;
  const chain = opts.chain ?? "BSC";
  const profile = EVM_PROFILES[chain];
  if (!profile) throw new Error(`${chain} is not a product EVM chain`);
  const chainId = opts.chainId ?? profile.chainId;
  const tokens = chainModule(chain).defaults.tokens;
  const tokenAddresses = Object.fromEntries(tokens.map((t) => [t.symbol, t.contract as Hex])) as Partial<Record<TokenSymbol, Hex>>;
  // The free port can be taken between probing and anvil binding it: retry with another.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const args = [anvilBinary(), "--host", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId), "--silent", "--accounts", "2"];
    // BSC has no base fee (cost = gasUsed × gasPrice); 1 gwei as the node's suggested price.
    if (opts.baseFee) args.push("--base-fee", opts.baseFee.toString());
    else args.push("--base-fee", "0", "--gas-price", "1000000000");
    if (opts.blockTime !== undefined) args.push("--block-time", String(opts.blockTime));
    if (opts.slotsInAnEpoch !== undefined) args.push("--slots-in-an-epoch", String(opts.slotsInAnEpoch));
    const proc = Bun.spawn(args, { stdout: "ignore", stderr: "ignore", stdin: "ignore" });
    live.add(proc);
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitReady(url, proc, chainId);
      const node = makeNode(url, port, proc, chainId, tokenAddresses);
      await dressAs(node, chain, opts);
      return node;
    } catch (e) {
      lastErr = e;
      proc.kill("SIGKILL");
      live.delete(proc);
    }
  }
  throw new Error(`anvil did not start: ${lastErr}`);
}

/** Puts `chain`'s contracts on a node running with its chain id: the test token at each token contract, the L1 fee oracle. */
async function dressAs(node: AnvilNode, chain: ChainCode, opts: StartAnvilOptions): Promise<void> {
  if (opts.tokens !== false) {
    for (const t of chainModule(chain).defaults.tokens) await node.rpc("anvil_setCode", [t.contract, testTokenBytecode(t.decimals)]);
  }
  // An OP-stack chain (BASE, OPTIMISM, XLAYER) prices the L1 data fee at its GasPriceOracle predeploy.
  if (EVM_PROFILES[chain]!.l1Fee === "op-stack") await node.rpc("anvil_setCode", [GAS_PRICE_ORACLE, l1FeeOracleBytecode(TEST_L1_FEE)]);
}

/** Processes kept by shareAnvil, by their start options (the chain aside); `lent` while a row uses one. */
const spare = new Map<string, Array<{ url: string; port: number; proc: Subprocess; lent: boolean }>>();

/**
 * An anvil standing in for `opts.chain` on a process another table row used before, when one with
 * the same options is free (a fresh one otherwise): anvil_setChainId to the chain's id, then its
 * tokens and oracle placed as startAnvil does. The blocks and balances of earlier rows stay (every
 * chain derives its own addresses, DESIGN 16); a row that needs a fresh chain calls startAnvil.
 * stop() hands the process back; a suite that shares calls stopSharedAnvils() once it is done
 * (chainFixtures' stop does), since a test runner may exit without running exit hooks.
 */
export async function shareAnvil(opts: StartAnvilOptions = {}): Promise<AnvilNode> {
  const chain = opts.chain ?? "BSC";
  const key = JSON.stringify({ ...opts, chain: undefined, chainId: undefined, shared: undefined, baseFee: opts.baseFee?.toString() });
  const pool = spare.get(key) ?? [];
  spare.set(key, pool);
  let slot = pool.find((p) => !p.lent && p.proc.exitCode === null);
  if (!slot) {
    const first = await startAnvil(opts);
    slot = { url: first.url, port: first.port, proc: procOf.get(first)!, lent: false };
    pool.push(slot);
  }
  slot.lent = true;
  const held = slot;
  const chainId = opts.chainId ?? EVM_PROFILES[chain]!.chainId;
  const tokenAddresses = Object.fromEntries(chainModule(chain).defaults.tokens.map((t) => [t.symbol, t.contract as Hex])) as Partial<Record<TokenSymbol, Hex>>;
  const node = makeNode(held.url, held.port, held.proc, chainId, tokenAddresses);
  await node.setAutomine(true);
  await node.rpc("anvil_setChainId", [chainId]);
  await dressAs(node, chain, opts);
  return {
    ...node,
    async stop() {
      held.lent = false;
    },
  };
}

/** Kills every process shareAnvil started (lent or not): a sharing suite's afterAll. */
export async function stopSharedAnvils(): Promise<void> {
  const procs = [...spare.values()].flat().map((p) => p.proc);
  spare.clear();
  for (const proc of procs) {
    live.delete(proc);
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

const procOf = new WeakMap<AnvilNode, Subprocess>();

async function waitReady(url: string, proc: Subprocess, chainId: number) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`anvil exited with ${proc.exitCode}`);
    try {
      const r = await rawRpc(url, "eth_chainId", []);
      if (r === "0x" + chainId.toString(16)) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(10);
  }
  throw new Error("anvil not ready within 10 s");
}

let rpcId = 1;
/** anvil answers in milliseconds: a call unanswered this long is on a dead or half-open socket (Bun's own fetch ceiling is 5 minutes). */
const RPC_DEADLINE_MS = 30_000;

/**
 * One JSON-RPC call to the test node, within RPC_DEADLINE_MS. A connection the node (or the
 * kernel) reset before answering is tried once more on a new one: Bun's fetch reuses pooled
 * keep-alive sockets, and a POST sent on one being closed fails with ECONNRESET unanswered.
 */
async function rawRpc(url: string, method: string, params: unknown[]): Promise<any> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: rpcId++, method, params });
  let j: { result?: unknown; error?: { message: string } };
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(RPC_DEADLINE_MS) });
      j = (await res.json()) as typeof j;
      break;
    } catch (e) {
      if (attempt === 1 && connectionDropped(e)) continue;
      const why = (e as Error)?.name === "TimeoutError" ? `no answer within ${RPC_DEADLINE_MS / 1000} s` : String((e as Error)?.message ?? e);
      throw new Error(`anvil ${url} ${method}: ${why}`, { cause: e });
    }
  }
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

/** A connection closed under a request (reset, or closed before the answer), not a refusal or a timeout. */
function connectionDropped(e: unknown): boolean {
  const code = (e as { code?: string })?.code;
  return code === "ECONNRESET" || /closed unexpectedly|socket hang up/i.test(String((e as Error)?.message));
}

function makeNode(url: string, port: number, proc: Subprocess, chainId: number, tokenAddresses: Partial<Record<TokenSymbol, Hex>>): AnvilNode {
  const tokenAt = (token: TokenSymbol): Hex => {
    const a = tokenAddresses[token];
    if (!a) throw new Error(`chain id ${chainId} has no ${token} token`);
    return a;
  };
  const rpc = (method: string, params: unknown[] = []) => rawRpc(url, method, params);
  const devKey = DEV_KEYS[0] as Hex;
  const devAddress = privateKeyToAccount(devKey).address;

  async function receipt(hash: Hex): Promise<MinedTx> {
    // Auto-mine answers eth_send* once the block exists; with --block-time, wait for it.
    const deadline = Date.now() + RPC_DEADLINE_MS;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`anvil ${url}: ${hash} not mined within ${RPC_DEADLINE_MS / 1000} s`);
      const r = await rpc("eth_getTransactionReceipt", [hash]);
      if (r) {
        return {
          hash,
          blockNumber: BigInt(r.blockNumber),
          blockHash: r.blockHash,
          status: r.status === "0x1" ? "success" : "reverted",
          logIndex: r.logs?.[0] ? Number(r.logs[0].logIndex) : undefined,
        };
      }
      await Bun.sleep(20);
    }
  }

  async function sendFromKey(key: Hex, to: Hex, data: Hex): Promise<MinedTx> {
    const account = privateKeyToAccount(key);
    const [nonce, gasPrice] = await Promise.all([
      rpc("eth_getTransactionCount", [account.address, "pending"]),
      rpc("eth_gasPrice"),
    ]);
    const raw = await account.signTransaction({
      type: "legacy",
      chainId,
      nonce: Number(nonce),
      gasPrice: BigInt(gasPrice),
      gas: 100_000n,
      to,
      data,
    });
    return receipt(await rpc("eth_sendRawTransaction", [raw]));
  }

  const node: AnvilNode = {
    url,
    port,
    chainId,
    tokenAddresses,
    devKey,
    devAddress,
    rpc,
    async blockNumber() {
      return BigInt(await rpc("eth_blockNumber"));
    },
    mint(token, to, amount) {
      const data = encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: "mint", args: [to as Hex, amount] });
      return sendFromKey(devKey, tokenAt(token), data);
    },
    transfer(token, to, amount, key = devKey) {
      const data = encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: "transfer", args: [to as Hex, amount] });
      return sendFromKey(key, tokenAt(token), data);
    },
    async tokenBalance(token, address) {
      const data = encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: "balanceOf", args: [address as Hex] });
      return BigInt(await rpc("eth_call", [{ to: tokenAt(token), data }, "latest"]));
    },
    async setBalance(address, wei) {
      await rpc("anvil_setBalance", [address, toHex(wei)]);
    },
    async mine(blocks = 1) {
      await rpc("anvil_mine", [toHex(blocks)]);
    },
    snapshot() {
      return rpc("evm_snapshot");
    },
    async revert(id) {
      const ok = await rpc("evm_revert", [id]);
      if (!ok) throw new Error(`evm_revert ${id} refused`);
    },
    async reorg(depth) {
      // Re-mined empty blocks can come out identical to the old ones: put a 0-value
      // transfer (from the second dev account, so test nonces stay untouched) in the first.
      // Signed here for the node's current chain id: anvil's own signer keeps the id it started
      // with, which a shared process (shareAnvil) has since changed.
      const filler = privateKeyToAccount(DEV_KEYS[1]);
      const forkPoint = BigInt(await rpc("eth_blockNumber")) - BigInt(depth);
      const [nonce, gasPrice] = await Promise.all([rpc("eth_getTransactionCount", [filler.address, toHex(forkPoint)]), rpc("eth_gasPrice")]);
      const raw = await filler.signTransaction({ type: "legacy", chainId, nonce: Number(nonce), gasPrice: BigInt(gasPrice) * 2n, gas: 21_000n, to: filler.address, value: 0n });
      await rpc("anvil_reorg", [depth, [[raw, 0]]]);
    },
    async setAutomine(on) {
      await rpc("evm_setAutomine", [on]);
    },
    async stop() {
      if (!live.has(proc)) return;
      live.delete(proc);
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
  procOf.set(node, proc);
  return node;
}

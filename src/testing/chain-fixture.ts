// One interface over the three test chains (anvil for BSC, the fake TRON node, LiteSVM behind
// JSON-RPC for SOL), so the watch, payout and crash suites are tables run over every chain.
// Each implementation wraps the chain's own fixture (`raw`), which chain-specific cases use.
import { PublicKey, SystemProgram } from "@solana/web3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { deriveTronKey } from "../chains/tron/address";
import type { ChainCode, TokenSymbol } from "../chains/types";
import { chainModule } from "../chains/registry";
import { stopSharedAnvils, type StartAnvilOptions } from "./anvil";
import { startBscFixture, someAddresses, type BscFixture } from "./bsc-fixture";
import { startSolFixture, someSolAddresses, type SolFixture, type SolTestToken } from "./sol-fixture";
import { startTronFixture, TRX, type TronFixture } from "./tron-fixture";
import { startTronNode, type TronNode, type TronNodeOptions } from "./tron-node";
import { SOL_MINTS, type SolanaRpcNodeOptions } from "./solana-rpc";
import type { Address } from "@ton/core";
import type { TonNode } from "./ton-node";
import { normalizeTonAddress, randomTonAddress, tonCore } from "../chains/ton/address";

const E18 = 10n ** 18n;

export interface ChainFixture {
  readonly chain: ChainCode;
  /** The token the shared suites move (USDT on BSC and TRON, USDC or USDT on SOL) and its decimals. */
  readonly token: string;
  readonly decimals: number;
  /** One whole native coin in base units (BNB wei, TRX sun, SOL lamports). */
  readonly nativeUnit: bigint;
  readonly txHashPattern: RegExp;
  readonly addressPattern: RegExp;
  /** Where an in-process gateway points its rpc_urls (through the fault proxy where there is one). */
  readonly rpcUrls: string[];
  /** The node itself, for child-process gateways. */
  readonly nodeUrl: string;
  /** `chains.<CHAIN>` of a gateway in rpc mode on this node. */
  gatewayConfig(confirmations: number): Record<string, unknown>;
  /** A real token transfer of `amount` base units to `to` from a funded payer; returns its tx hash. */
  pay(to: string, amount: bigint, token?: string): Promise<string>;
  /** A native-coin transfer to `to` (on TRON it activates a new account). */
  sendNative(to: string, amount: bigint): Promise<void>;
  /** Test cheat: sets `address`'s native balance. */
  setNative(address: string, amount: bigint): Promise<void>;
  nativeBalance(address: string): Promise<bigint>;
  tokenBalance(address: string, token?: string): Promise<bigint>;
  /** Mines `n` blocks (slots on SOL). */
  advance(n: number): Promise<void>;
  /** Transactions signed by `address` that reached the chain. */
  sentBy(address: string): Promise<number>;
  /** `n` distinct, deterministic receive-only addresses. */
  receivers(n: number, salt: string): string[];
  /** Requests the gateway made to the node(s) since the last reset. */
  calls(): number;
  resetCalls(): void;
  /** Off: sent transactions wait until advance() mines them. */
  setAutoMine(on: boolean): Promise<void>;
  /** Blocks (slots) appear on their own every `ms`, for child gateways; returns the stop. */
  autoAdvance(ms: number): () => void;
  /** Replaces the last `depth` blocks (no reorgs on the SOL fixture: LiteSVM keeps no forks). */
  reorg?(depth: number): Promise<void>;
  stop(): Promise<void>;
}

function ticker(ms: number, step: () => unknown): () => void {
  const t = setInterval(() => void Promise.resolve(step()).catch(() => {}), ms);
  return () => clearInterval(t);
}

export interface BscChainFixture extends ChainFixture {
  raw: BscFixture;
}
/** Any product EVM chain on anvil (BSC's fixture type: the same node, proxy and adapter). */
export type EvmChainFixture = BscChainFixture;

/** anvil (chain id 56) behind the fault proxy; the dev account holds USDT and USDC to pay with. */
export function startBscChain(): Promise<BscChainFixture> {
  return startEvmChain("BSC");
}

/**
 * A product EVM chain on anvil started with its chain id, its tokens at their mainnet contracts
 * with their decimals, behind the fault proxy; the dev account holds every token to pay with.
 * The shared suites move USDT, or USDC where the chain has no USDT (BASE). `shared`: on an anvil
 * process an earlier row handed back, set to this chain's id and contracts (shareAnvil), for rows
 * that need no fresh chain.
 */
export async function startEvmChain(chain: ChainCode, anvil: Omit<StartAnvilOptions, "chain"> = {}): Promise<EvmChainFixture> {
  // The `finalized` tag 2 blocks behind latest unless asked otherwise (anvil's default epoch would put it 64 behind).
  const raw = await startBscFixture({}, { slotsInAnEpoch: 1, ...anvil, chain });
  const { node, proxy } = raw;
  const tokens = chainModule(chain).defaults.tokens;
  for (const t of tokens) await node.mint(t.symbol, node.devAddress, 1_000_000_000n * 10n ** BigInt(t.decimals));
  const main = tokens.find((t) => t.symbol === "USDT") ?? tokens[0]!;
  const nativeBalance = async (a: string) => BigInt(await node.rpc<string>("eth_getBalance", [a, "latest"]));
  // Payments come from the one dev account: one at a time, so concurrent tests never share a nonce.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = turn.then(fn, fn);
    turn = run.catch(() => {});
    return run;
  };
  return {
    raw,
    chain,
    token: main.symbol,
    decimals: main.decimals,
    nativeUnit: E18,
    txHashPattern: /^0x[0-9a-f]{64}$/,
    addressPattern: /^0x[0-9a-fA-F]{40}$/,
    rpcUrls: [proxy.url],
    nodeUrl: node.url,
    // `enabled`: the chains after BSC are off unless a config turns them on.
    gatewayConfig: (confirmations) => ({ enabled: true, mode: "rpc", rpc_urls: [proxy.url], confirmations }),
    pay: (to, amount, token = main.symbol) => inTurn(async () => (await node.transfer(token as TokenSymbol, to, amount)).hash),
    sendNative: async (to, amount) => node.setBalance(to, (await nativeBalance(to)) + amount),
    setNative: (a, amount) => node.setBalance(a, amount),
    nativeBalance,
    tokenBalance: (a, token = main.symbol) => node.tokenBalance(token as TokenSymbol, a),
    advance: (n) => node.mine(n),
    sentBy: async (a) => Number(BigInt(await node.rpc<string>("eth_getTransactionCount", [a, "latest"]))),
    receivers: (n, salt) => someAddresses(n, salt),
    calls: () => proxy.totalCalls(),
    resetCalls: () => proxy.resetCounts(),
    setAutoMine: (on) => node.setAutomine(on),
    autoAdvance: (ms) => ticker(ms, () => node.mine(1)),
    reorg: (depth) => node.reorg(depth),
    stop: () => raw.stop(),
  };
}

export interface TronChainFixture extends ChainFixture {
  raw: TronFixture;
  /** With `failover`: a first endpoint that answers 403 to everything, and a mirror of the chain after the node. */
  limited?: TronNode;
  mirror?: TronNode;
}

export const TRON_API_KEY = "tron-test-key";

/** The fake TRON node; `failover` puts a rate-limited endpoint before it and a mirror after it, with an API key. */
export async function startTronChain(opts: TronNodeOptions & { failover?: boolean } = {}): Promise<TronChainFixture> {
  const { failover, ...nodeOpts } = opts;
  const raw = await startTronFixture(nodeOpts);
  const { node } = raw;
  let limited: TronNode | undefined;
  let mirror: TronNode | undefined;
  if (failover) {
    limited = await startTronNode({ faults: { rate403: 1 } });
    mirror = await startTronNode({ chain: node.chain });
  }
  const rpcUrls = failover ? [limited!.url, node.url, mirror!.url] : [node.url];
  return {
    raw,
    limited,
    mirror,
    chain: "TRON",
    token: "USDT",
    decimals: 6,
    nativeUnit: TRX,
    txHashPattern: /^[0-9a-f]{64}$/,
    addressPattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
    rpcUrls,
    nodeUrl: node.url,
    gatewayConfig: (confirmations) => ({ mode: "rpc", rpc_urls: rpcUrls, confirmations, ...(failover ? { api_key: TRON_API_KEY } : {}) }),
    pay: (to, amount) => raw.sendUsdt(to, amount),
    sendNative: async (to, amount) => void (await raw.sendTrx(to, amount)),
    setNative: async (a, amount) => node.chain.setTrx(a, amount),
    nativeBalance: async (a) => node.chain.trx(a),
    tokenBalance: async (a) => node.chain.usdt(a),
    advance: async (n) => void node.mine(n),
    sentBy: async (owner) => {
      const hex = node.tronWeb().address.toHex(owner).toLowerCase();
      return node.chain.blocks.flatMap((b) => b.txs).filter((t) => t.tx.raw_data.contract[0].parameter.value.owner_address === hex).length;
    },
    receivers: (n, salt) => Array.from({ length: n }, (_, i) => deriveTronKey(sha256(new TextEncoder().encode(`${salt}:${i}`)), 0).address),
    calls: () => node.totalCalls() + (mirror?.totalCalls() ?? 0),
    resetCalls: () => {
      node.resetCounts();
      mirror?.resetCounts();
    },
    setAutoMine: async (on) => node.setAutoMine(on),
    autoAdvance: (ms) => ticker(ms, () => node.mine(1)),
    reorg: async (depth) => node.reorg(depth),
    async stop() {
      await limited?.stop();
      await mirror?.stop();
      await raw.stop();
    },
  };
}

export interface SolChainFixture extends ChainFixture {
  raw: SolFixture;
}

/**
 * LiteSVM behind the test JSON-RPC server and the fault proxy; each payment comes from a new funded
 * payer. `token` is the SPL token the shared suites move (USDC by default; USDT for the USDT rows).
 */
export async function startSolChain(opts: SolanaRpcNodeOptions & { token?: SolTestToken } = {}): Promise<SolChainFixture> {
  const { token = "USDC", ...nodeOpts } = opts;
  const raw = await startSolFixture(nodeOpts);
  const { node, proxy } = raw;
  const tokenOf = (t?: string): SolTestToken => (t === undefined ? token : (t as SolTestToken));
  return {
    raw,
    chain: "SOL",
    token,
    decimals: 6,
    nativeUnit: 1_000_000_000n,
    txHashPattern: /^[1-9A-HJ-NP-Za-km-z]{64,88}$/,
    addressPattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
    rpcUrls: [proxy.url],
    nodeUrl: node.url,
    gatewayConfig: (confirmations) => ({ mode: "rpc", rpc_urls: [proxy.url], confirmations }),
    pay: (to, amount, t) => raw.pay(raw.payer(amount, tokenOf(t)), [[to, amount]], { token: tokenOf(t) }),
    sendNative: async (to, amount) => node.airdrop(to, amount),
    setNative: async (a, amount) => {
      const key = new PublicKey(a);
      node.svm.setAccount(key, { lamports: Number(amount), data: new Uint8Array(), owner: SystemProgram.programId, executable: false });
    },
    nativeBalance: async (a) => node.lamports(a),
    tokenBalance: async (a, t) => node.tokenBalance(a, SOL_MINTS[tokenOf(t)]),
    advance: async (n) => node.advance(n),
    sentBy: async (a) => {
      const sigs = await raw.conn.getSignaturesForAddress(new PublicKey(a), { limit: 1000 }, "confirmed");
      return sigs.filter((s) => node.landed(s.signature)?.keys.some((k) => k.pubkey === a && k.signer)).length;
    },
    receivers: (n, salt) => someSolAddresses(n, salt),
    calls: () => proxy.totalCalls(),
    resetCalls: () => proxy.resetCounts(),
    setAutoMine: async () => {
      throw new Error("the SOL fixture lands transactions at once");
    },
    autoAdvance: (ms) => node.startTicker(ms),
    stop: () => raw.stop(),
  };
}

/** A row of a per-chain suite that runs child gateways in rpc mode on the chain's test node. */
export interface ChainSuiteCase {
  chain: string;
  /** The row's name when the chain has more than one row (SOL USDT); default the chain code. */
  name?: string;
  start(): Promise<ChainFixture>;
  confirmations: number;
  pollInterval: string;
  /** Blocks (slots) appear on their own this often, as on a live chain. */
  blockMs: number;
  /**
   * The row's node is lent to it for its run only (an anvil process other rows use in turn,
   * startEvmChain `shared`): such rows wait for one another in one lane, beside the rest.
   */
  shared?: boolean;
}

/** The SOL row of a per-chain suite for one SPL token (USDC keeps the plain name "SOL"). */
export function solSuiteCase(token: SolTestToken): ChainSuiteCase {
  return {
    chain: "SOL",
    name: token === "USDC" ? undefined : `SOL ${token}`,
    start: () => startSolChain({ confirmedLag: 1, finalizedLag: 4, token }),
    confirmations: 4,
    pollInterval: "100ms",
    blockMs: 50,
  };
}

export interface TonChainFixture extends ChainFixture {
  raw: TonNode;
  /** The payer's address: it holds the USDT the payments move (minted by the USDT admin). */
  payer: Address;
}

/**
 * @ton/sandbox with Tether's USDT jetton code at the mainnet master, behind the toncenter v3 test
 * server (src/testing/ton-node.ts); each payment is a wallet app's jetton transfer with a forward
 * amount, in a masterchain block of its own (or the next mined one with auto-mining off).
 */
export async function startTonChain(opts: { apiKey?: string } = {}): Promise<TonChainFixture> {
  // @ton/sandbox (its TVM in WebAssembly) loads only for the TON rows.
  const { TonNode } = await import("./ton-node");
  const node = await TonNode.start(opts);
  const addr = (a: string) => tonCore().Address.parse(a);
  const payer = addr(randomTonAddress());
  await node.mint(payer, 10n ** 15n);
  return {
    raw: node,
    payer,
    chain: "TON",
    token: "USDT",
    decimals: 6,
    nativeUnit: 10n ** 9n,
    txHashPattern: /^[0-9a-f]{64}$/,
    addressPattern: /^UQ[A-Za-z0-9_-]{46}$/,
    rpcUrls: [node.url],
    nodeUrl: node.url,
    // `enabled`: TON is off unless a config turns it on (DESIGN 23).
    gatewayConfig: (confirmations) => ({ enabled: true, mode: "rpc", rpc_urls: [node.url], confirmations, ...(opts.apiKey ? { api_key: opts.apiKey } : {}) }),
    pay: async (to, amount) => {
      const b = await node.payJetton(payer, addr(to), amount);
      return TonNode.notificationTx(b, addr(to))!;
    },
    sendNative: async (to, amount) => void (await node.fund(addr(to), amount)),
    setNative: async (a, amount) => {
      const c = await node.chain.getContract(addr(a));
      c.balance = amount;
    },
    nativeBalance: async (a) => (await node.chain.getContract(addr(a))).balance,
    tokenBalance: async (a) => node.jettonBalance(addr(a)),
    advance: async (n) => void node.mine(n),
    sentBy: async (a) => {
      const want = BigInt("0x" + addr(a).hash.toString("hex"));
      return node.blocks.flatMap((b) => b.txs).filter((t) => t.address === want && t.outMessagesCount > 0).length;
    },
    receivers: (n, salt) => Array.from({ length: n }, (_, i) => normalizeTonAddress("0:" + Buffer.from(sha256(new TextEncoder().encode(`${salt}:${i}`))).toString("hex"))),
    calls: () => node.totalCalls(),
    resetCalls: () => node.calls.clear(),
    setAutoMine: async (on) => {
      node.autoMine = on;
    },
    autoAdvance: (ms) => ticker(ms, () => node.mine(1)),
    async stop() {
      node.stop();
    },
  };
}

/**
 * The nodes of a per-chain suite whose rows run at once (each waits mostly on child processes
 * and block times): every case's node started together, with blocks appearing on a timer.
 * `stop()` (afterAll) stops the timers, runs `before` (e.g. killing child gateways), then the nodes.
 */
export function chainFixtures(cases: ReadonlyArray<Pick<ChainSuiteCase, "chain" | "name" | "start" | "blockMs" | "shared">>, opts: { lanes?: number } = {}) {
  const fixtures = new Map<string, ChainFixture>();
  const timers: Array<() => void> = [];
  // The shared rows' lanes (two by default: two anvil processes serve them): in each, a row runs
  // once the one before it has handed its node back. A row keeps its lane by its place among the shared rows.
  const shared = cases.filter((c) => c.shared);
  const lanes: Array<Promise<unknown>> = Array.from({ length: Math.max(1, Math.min(opts.lanes ?? 2, shared.length)) }, () => Promise.resolve());
  const inLane = <T>(k: (typeof cases)[number], fn: () => Promise<T>): Promise<T> => {
    const i = shared.indexOf(k) % lanes.length;
    const run = lanes[i]!.then(fn, fn);
    lanes[i] = run.catch(() => {});
    return run;
  };
  return {
    /** The node of a row (by its name, else its chain); not for shared rows (see `use`). */
    get: (k: Pick<ChainSuiteCase, "chain" | "name">) => fixtures.get(k.name ?? k.chain)!,
    /** Runs `fn` on the row's node: started with the others, or, for a shared row, lent for `fn`'s run in the lane. */
    use<T>(k: Pick<ChainSuiteCase, "chain" | "name" | "start" | "blockMs" | "shared">, fn: (fx: ChainFixture) => Promise<T>): Promise<T> {
      if (!k.shared) return fn(fixtures.get(k.name ?? k.chain)!);
      return inLane(k, async () => {
        const fx = await k.start();
        const stopBlocks = fx.autoAdvance(k.blockMs);
        try {
          return await fn(fx);
        } finally {
          stopBlocks();
          await fx.stop();
        }
      });
    },
    /** A row's test timeout: a shared row also waits for the rows before it in its lane. */
    timeout: (k: Pick<ChainSuiteCase, "shared">, ms: number) => (k.shared ? ms * Math.ceil(shared.length / lanes.length) : ms),
    async start(): Promise<void> {
      await Promise.all(
        cases
          .filter((k) => !k.shared)
          .map(async (k) => {
            const fx = await k.start();
            fixtures.set(k.name ?? k.chain, fx);
            timers.push(fx.autoAdvance(k.blockMs));
          }),
      );
    },
    async stop(before?: () => Promise<unknown>): Promise<void> {
      for (const t of timers) t();
      await before?.();
      for (const fx of fixtures.values()) await fx.stop();
      await stopSharedAnvils();
    },
  };
}

// An EVM chain in rpc mode (BSC is one profile): detection by eth_getLogs on the token
// contracts, token and native transfers signed locally (EIP-1559 type 2 where the chain has a
// base fee, legacy type 0 elsewhere; the profile's chain id), all over raw JSON-RPC so no
// client-side cache ever serves a stale block number (the shared contract's docs/chains.md, ../shared/docs/ beside this repository).
// Fees: docs/payouts.md "Fees, EIP-1559 and L1 data fees"; replacement of a transaction that
// does not confirm: signReplacement (same nonce, raised fees, up to gas_price_cap).
import type { RpcEndpoint } from "../common/failover";
import { bytesToHex, decodeFunctionResult, encodeFunctionData, getAddress, keccak256, parseAbi, parseTransaction, serializeTransaction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type {
  BlockRef,
  BroadcastResult,
  ChainAdapter,
  ChainCode,
  ChainHead,
  DerivedKey,
  IncomingTransfer,
  ScanResult,
  SignedTransfer,
  TokenInfo,
  TokenSymbol,
  TransferRequest,
  TxState,
  WatchSet,
} from "../types";
import { deriveEvmKey, isEvmAddress, normalizeEvmAddress } from "./address";
import { evmSweep, transferOfLog } from "./sweep";
import { RpcClient, RpcError, type RpcLogger } from "../json-rpc";
import { type Clock, sleep, systemClock } from "../../lib/clock";
import { evmTxLookup } from "./lookup";
import { assertDecimals, assertKeyFor, inclusion, TransferWouldRevertError, type NativeTransferRequest } from "../common/adapter-parts";

export { TransferWouldRevertError, type NativeTransferRequest };

export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

const ERC20_ABI = parseAbi([
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address) view returns (uint256)",
  "function decimals() view returns (uint8)",
]);

/** Gas limit = estimate × 13/10: estimates are exact for the state they ran on, and state moves. */
const GAS_MARGIN_NUM = 13n;
const GAS_MARGIN_DEN = 10n;
/** Used when estimation is impossible (e.g. `from` does not hold the tokens yet). docs: ≈ 51,696 to a new holder. */
const FALLBACK_TRANSFER_GAS = 65_000n;
const NATIVE_TRANSFER_GAS = 21_000n;

/** Which block counts as final (DESIGN 17): `confirmations` only, or also the node's `safe` / `finalized` block tag. */
export type EvmFinality = "confirmations" | "safe" | "finalized";

export interface EvmAdapterOptions {
  rpcUrls: RpcEndpoint[];
  tokens: TokenInfo[];
  confirmations: number;
  /** Default "confirmations". With a tag, the final block is the lower of the tag's block and `latest - (confirmations - 1)`. */
  finality?: EvmFinality;
  /** Highest gas price (wei) a signed transaction may carry. */
  gasPriceCap?: bigint;
  requestTimeoutMs?: number;
  /** Widest eth_getLogs range tried (blocks). Default 1000; shrinks on refusals, grows back. */
  maxLogRange?: number;
  /**
   * Watch sets up to this size go into the topic-2 filter; bigger ones are filtered locally,
   * so the number of calls never depends on how many addresses are watched. Default 500.
   */
  topicFilterLimit?: number;
  /** Expected chain id, checked at start and used for signing. Default: the profile's (BSC testnet: 97). */
  chainId?: number;
  /** Backoff of a failing endpoint (first step, ms). Default 100. */
  backoffBaseMs?: number;
  /** Attempts per call across the URLs on transport failures. Default max(4, 2 × URLs). */
  rpcAttempts?: number;
  logger?: RpcLogger;
  /** Drives RPC backoff and waits (tests move a TestClock). Default: real time. */
  clock?: Clock;
}

/** What `SignedTransfer.meta` holds for an EVM chain (decimal strings, so it survives JSON). */
export interface EvmTxMeta {
  chainId: number;
  from: string;
  to: string;
  nonce: number;
  /** "legacy" (type 0) or "eip1559" (type 2); absent on transactions signed before type 2 existed here (legacy). */
  type?: "legacy" | "eip1559";
  /** Highest price per gas the transaction may pay: the legacy gas price, or maxFeePerGas of a type-2 transaction. */
  gasPrice: string;
  /** Type 2: the priority fee (tip) per gas. */
  maxPriorityFeePerGas?: string;
  gasLimit: string;
  /** OP-stack chains: the L1 data fee allowance (wei, GasPriceOracle.getL1Fee with a 30 % margin), paid on top of gas. */
  l1Fee?: string;
  [k: string]: unknown;
}

/** The fee fields of one transaction. */
export type EvmFees = { type: "legacy"; gasPrice: bigint } | { type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** The OP-stack GasPriceOracle predeploy (getL1Fee(bytes): the L1 data fee of an unsigned RLP-encoded transaction). */
export const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F";
const ORACLE_ABI = parseAbi(["function getL1Fee(bytes) view returns (uint256)"]);

/**
 * A replacement must raise its fees by what nodes require to take it over the pending one
 * (geth, erigon, anvil: 10 %; some pools 12.5 %): 12.5 %, rounded up, at least 1 wei.
 */
export function bumpFee(x: bigint): bigint {
  const up = (x * 125n + 999n) / 1000n;
  return x + (up > 0n ? up : 1n);
}
/** The least raise any node takes (10 %): a replacement capped below its 12.5 % bump still goes out when it clears this. */
const minBump = (x: bigint) => x + ((x + 9n) / 10n > 0n ? (x + 9n) / 10n : 1n);

export interface EvmAdapter extends ChainAdapter {
  readonly rpc: RpcClient;
  /** The node's next nonce of `address`, pending transactions included. */
  pendingNonce(address: string): Promise<number>;
  /** Transfers of the configured tokens sent by `address` in blocks [from, latest] (restore reconcile). */
  outgoingTokenTransfers(address: string, from: bigint): Promise<Array<{ txHash: string; blockNumber: bigint; to: string; token: TokenSymbol; amount: bigint }>>;
  /** The nonce a transaction used, null when the node does not know it. */
  transactionNonce(txHash: string): Promise<number | null>;
  nativeBalance(address: string): Promise<bigint>;
  signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer>;
  /** Wei `from` needs to pay for this token transfer (gas limit with margin × capped highest price per gas, + the L1 data fee on OP-stack chains). */
  estimateTransferFee(from: string, to: string, token: TokenSymbol, amount: bigint): Promise<bigint>;
  /** The fees a transaction signed now carries (type 2 where the chain has a base fee), capped by gasPriceCap. */
  marketFees(): Promise<EvmFees>;
  /**
   * `prev` again with the same nonce, gas, recipient and data and fees raised (at least
   * bumpFee of each, or the market's when higher), capped by gasPriceCap; null when the cap
   * leaves no raise a node would take (the transaction is stuck at the cap).
   */
  signReplacement(prev: SignedTransfer, privateKey: Uint8Array): Promise<SignedTransfer | null>;
  /**
   * What the chain says of a transaction's nonce, asked of every endpoint: "ours" (some
   * endpoint knows this transaction), "taken" (the nonce is used in a final block and no
   * endpoint knows this transaction: it can never land), "open" (not used in a final block),
   * "unsure" (an endpoint or the final block's nonce could not be read).
   */
  nonceVerdict(tx: SignedTransfer): Promise<"ours" | "taken" | "open" | "unsure">;
}

export interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
  baseFeePerGas?: string;
}

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

const hex = (n: bigint | number) => "0x" + n.toString(16);
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

/**
 * What makes one EVM chain differ from another: the code the gateway stores, the name in
 * messages, the chain id signed into transactions, and the native coin that pays gas.
 * Token contracts and confirmations come from config; BSC is src/chains/bsc's profile.
 */
export interface EvmProfile {
  chain: ChainCode;
  /** Short name in errors and logs ("BSC"). */
  name: string;
  chainId: number;
  /** Native coin symbol, in gas top-up metadata ("BNB"). */
  nativeSymbol: string;
  /**
   * The chain's BIP-44 account under coin type 60 (DESIGN 16): its addresses are
   * m/44'/60'/account'/0/i. Unique among EVM chains (src/chains/derivation.test.ts):
   * BSC 0; a new product chain takes the next unused number; test-only profiles use their chain id.
   */
  bip44Account: number;
  /**
   * Type-2 (EIP-1559) transactions: true always, false never (legacy type 0). Unset: type 2
   * when the latest block has a non-zero baseFeePerGas (BSC's base fee is 0: legacy).
   */
  eip1559?: boolean;
  /**
   * A rollup's L1 data fee: "op-stack" (Base): read from the GasPriceOracle predeploy and
   * added to fee estimates and gas top-ups; "arbitrum": eth_estimateGas already counts the L1
   * component in the gas limit (ArbOS adds it as gas), so nothing is added. Unset: an L1 chain.
   */
  l1Fee?: "op-stack" | "arbitrum";
}

export function createEvmAdapter(profile: EvmProfile, opts: EvmAdapterOptions): EvmAdapter {
  for (const t of opts.tokens) {
    if (t.chain !== profile.chain) throw new Error(`token ${t.chain} ${t.symbol} given to the ${profile.name} adapter`);
    if (!isEvmAddress(t.contract)) throw new Error(`${profile.name} ${t.symbol} contract is not an address: ${t.contract}`);
  }
  const tokens: readonly TokenInfo[] = opts.tokens.map((t) => ({ ...t, contract: getAddress(t.contract) }));
  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const byContract = new Map(tokens.map((t) => [t.contract.toLowerCase(), t]));
  const chainId = opts.chainId ?? profile.chainId;
  const maxLogRange = Math.max(1, opts.maxLogRange ?? 1000);
  const topicFilterLimit = opts.topicFilterLimit ?? 500;
  const log = opts.logger;
  const rpc = new RpcClient({
    urls: opts.rpcUrls,
    timeoutMs: opts.requestTimeoutMs,
    backoffBaseMs: opts.backoffBaseMs,
    attempts: opts.rpcAttempts ?? Math.max(4, 2 * opts.rpcUrls.length),
    logger: log,
    clock: opts.clock,
  });
  const clock = opts.clock ?? systemClock;

  // Adaptive getLogs range, kept across scans: halves on refusal, doubles after a run of successes.
  // `ceiling` is one below the smallest span refused lately, so growth stops short of it;
  // forgotten after a long run of successes in case the provider's limit was raised.
  let span = maxLogRange;
  let okStreak = 0;
  let ceiling = maxLogRange;
  let sinceCeiling = 0;
  const GROW_AFTER = 8;
  const FORGET_CEILING_AFTER = 500;
  const MAX_CHUNK_FAILURES = 12;

  function token(symbol: TokenSymbol): TokenInfo {
    const t = bySymbol.get(symbol);
    if (!t) throw new Error(`${profile.name} ${symbol} is not configured`);
    return t;
  }

  async function getBlock(tag: string): Promise<RpcBlock | null> {
    return rpc.request<RpcBlock | null>("eth_getBlockByNumber", [tag, false]);
  }

  const finality: EvmFinality = opts.finality ?? "confirmations";
  async function latestAndTagged(tag: string): Promise<[RpcBlock | null, RpcBlock | null]> {
    const answers = await rpc.batch([
      { method: "eth_getBlockByNumber", params: ["latest", false] },
      { method: "eth_getBlockByNumber", params: [tag, false] },
    ]);
    for (const a of answers) if (a instanceof RpcError) throw a;
    return [answers[0] as RpcBlock | null, answers[1] as RpcBlock | null];
  }

  function toRef(b: RpcBlock): BlockRef {
    return { number: BigInt(b.number), hash: b.hash, time: Number(BigInt(b.timestamp)) * 1000 };
  }

  async function call(to: string, data: Hex, block = "latest"): Promise<Hex> {
    return rpc.request<Hex>("eth_call", [{ to, data }, block]);
  }

  const cap = opts.gasPriceCap;
  const capped = (x: bigint) => (cap !== undefined && x > cap ? cap : x);

  async function marketFees(): Promise<EvmFees> {
    const [block, price] = await Promise.all([getBlock("latest"), rpc.request<string>("eth_gasPrice")]);
    const baseFee = block?.baseFeePerGas !== undefined ? BigInt(block.baseFeePerGas) : null;
    if (baseFee === null || !(profile.eip1559 ?? baseFee > 0n)) return { type: "legacy", gasPrice: capped(BigInt(price)) };
    let tip: bigint;
    try {
      tip = BigInt(await rpc.request<string>("eth_maxPriorityFeePerGas"));
    } catch (e) {
      if (!(e instanceof RpcError && e.kind === "rpc")) throw e;
      tip = BigInt(price) > baseFee ? BigInt(price) - baseFee : 0n; // a node without the method: its gas price over the base fee
    }
    // Twice the base fee survives six full blocks of +12.5 % each before the transaction stops being includable.
    const maxFeePerGas = capped(2n * baseFee + tip);
    return { type: "eip1559", maxFeePerGas, maxPriorityFeePerGas: tip > maxFeePerGas ? maxFeePerGas : tip };
  }

  const perGas = (f: EvmFees) => (f.type === "legacy" ? f.gasPrice : f.maxFeePerGas);

  type TxFields = { to: Hex; data?: Hex; value?: bigint; gas: bigint };
  const request = (tx: TxFields, fees: EvmFees, nonce: number) =>
    fees.type === "legacy"
      ? { type: "legacy" as const, chainId, nonce, ...tx, gasPrice: fees.gasPrice }
      : { type: "eip1559" as const, chainId, nonce, ...tx, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };

  /** OP-stack: the L1 data fee of this transaction with a 30 % margin (the L1 base fee moves until it lands); 0 elsewhere. */
  async function l1FeeOf(tx: TxFields, fees: EvmFees, nonce: number): Promise<bigint> {
    if (profile.l1Fee !== "op-stack") return 0n;
    const unsigned = serializeTransaction(request(tx, fees, nonce));
    const data = encodeFunctionData({ abi: ORACLE_ABI, functionName: "getL1Fee", args: [unsigned] });
    const answer = await call(GAS_PRICE_ORACLE, data);
    if (!answer || answer === "0x") throw new Error(`${profile.name}: no GasPriceOracle at ${GAS_PRICE_ORACLE} to price the L1 data fee`);
    const fee = BigInt(answer);
    return (fee * GAS_MARGIN_NUM + GAS_MARGIN_DEN - 1n) / GAS_MARGIN_DEN;
  }

  async function estimateTokenGas(from: string, contract: string, data: Hex): Promise<bigint> {
    const g = BigInt(await rpc.request<string>("eth_estimateGas", [{ from, to: contract, data }]));
    return (g * GAS_MARGIN_NUM + GAS_MARGIN_DEN - 1n) / GAS_MARGIN_DEN;
  }

  async function nonceFor(address: string, hint?: Record<string, unknown>): Promise<number> {
    const h = hint?.nonce;
    if (typeof h === "number" || typeof h === "bigint" || (typeof h === "string" && /^\d+$/.test(h))) return Number(h);
    return Number(BigInt(await rpc.request<string>("eth_getTransactionCount", [address, "pending"])));
  }

  function accountFor(privateKey: Uint8Array, from?: string) {
    const account = privateKeyToAccount(bytesToHex(privateKey));
    assertKeyFor(from === undefined ? undefined : getAddress(from), account.address);
    return account;
  }

  async function signWith(
    privateKey: Uint8Array,
    from: string | undefined,
    tx: TxFields,
    fees: EvmFees,
    hint: Record<string, unknown> | undefined,
    extra: Record<string, unknown>,
  ): Promise<SignedTransfer> {
    const account = accountFor(privateKey, from);
    const nonce = await nonceFor(account.address, hint);
    const raw = await account.signTransaction(request(tx, fees, nonce));
    const l1Fee = await l1FeeOf(tx, fees, nonce);
    const meta: EvmTxMeta = {
      chainId,
      from: account.address,
      to: tx.to,
      nonce,
      type: fees.type,
      gasPrice: perGas(fees).toString(),
      ...(fees.type === "eip1559" ? { maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() } : {}),
      gasLimit: tx.gas.toString(),
      ...(profile.l1Fee === "op-stack" ? { l1Fee: l1Fee.toString() } : {}),
      ...extra,
    };
    return { txHash: keccak256(raw), raw, meta };
  }

  /** Every endpoint's answer on whether it knows `hash`: true (one does), false (all answered: none), null (one could not be asked). */
  async function knownAnywhere(hash: string): Promise<boolean | null> {
    const answers = await rpc.requestEvery<unknown>("eth_getTransactionByHash", [hash]);
    if (answers.some((a) => a !== null && !(a instanceof RpcError))) return true;
    return answers.some((a) => a instanceof RpcError) ? null : false;
  }

  /** Logs of one block range, or throws. */
  function getLogs(from: bigint, to: bigint, toTopics: string[] | null, fromTopic?: string): Promise<RpcLog[]> {
    const topics: unknown[] = [TRANSFER_TOPIC];
    if (fromTopic) topics.push(fromTopic, toTopics);
    else if (toTopics) topics.push(null, toTopics);
    const filter = { fromBlock: hex(from), toBlock: hex(to), address: tokens.map((t) => t.contract), topics };
    // One attempt: the chunk loop decides between shrinking the range and retrying.
    return rpc.request<RpcLog[]>("eth_getLogs", [filter], { attempts: 1 });
  }

  async function collectLogs(from: bigint, to: bigint, toTopics: string[] | null, fromTopic?: string): Promise<RpcLog[]> {
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
  }

  const adapter: EvmAdapter = {
    chain: profile.chain,
    mode: "rpc",
    tokens,
    requiredConfirmations: opts.confirmations,
    rpc,
    sweep: evmSweep({ chain: profile.chain, name: profile.name, rpc, tokens, transferTopic: TRANSFER_TOPIC, maxLogRange, isRangeRefusal }),
    lookupTx: evmTxLookup(rpc, tokens, () => adapter.head()),

    async start() {
      const id = Number(BigInt(await rpc.request<string>("eth_chainId")));
      if (id !== chainId) throw new Error(`${profile.name} RPC answers chain id ${id}, expected ${chainId}`);
      const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "decimals" });
      for (const t of tokens) {
        const res = await call(t.contract, data);
        if (!res || res === "0x") throw new Error(`${profile.name} ${t.symbol}: no token contract at ${t.contract}`);
        assertDecimals(profile.name, t, Number(decodeFunctionResult({ abi: ERC20_ABI, functionName: "decimals", data: res })));
      }
      if (finality !== "confirmations") {
        // A node that does not know the tag would stall every pay-in: refuse to start instead.
        try {
          await getBlock(finality);
        } catch (e) {
          if (e instanceof RpcError && e.kind === "rpc") throw new Error(`${profile.name} RPC does not serve the "${finality}" block tag (chains.${profile.chain}.finality): ${e.message}`);
          throw e;
        }
      }
      log?.info({ msg: `${profile.name.toLowerCase()} adapter started`, chainId, finality, tokens: tokens.map((t) => t.symbol) });
    },

    async stop() {
      rpc.close();
    },

    deriveKey(seed: Uint8Array, index: number): DerivedKey {
      return deriveEvmKey(seed, profile.bip44Account, index);
    },
    isValidAddress: isEvmAddress,
    normalizeAddress: normalizeEvmAddress,

    async head(): Promise<ChainHead> {
      // With a finality tag: the latest block and the tag's in one request.
      const [b, tagged] = finality === "confirmations" ? [await getBlock("latest"), null] : await latestAndTagged(finality);
      if (!b) throw new Error(`${profile.name} node returned no latest block`);
      const latest = BigInt(b.number);
      const back = BigInt(Math.max(0, opts.confirmations - 1));
      const byCount = latest > back ? latest - back : 0n;
      // No block under the tag yet (a young chain): nothing is final.
      const final = tagged === null ? (finality === "confirmations" ? byCount : 0n) : BigInt(tagged.number) < byCount ? BigInt(tagged.number) : byCount;
      return { latest, final, time: Number(BigInt(b.timestamp)) * 1000 };
    },

    async blockHash(n: bigint) {
      const b = await getBlock(hex(n));
      return b ? b.hash : null;
    },

    // Filter choice (measured with scripts/bench-bsc-scan.ts on anvil): the `to` addresses go
    // into topic 2 while the set is small (<= topicFilterLimit, 500 ≈ 34 KiB of request, well
    // inside provider body limits), which keeps answers small on busy tokens. Bigger sets filter
    // by contract only and match locally, so a range always costs the same calls: eth_getLogs
    // per chunk + one batch of block headers (tip + blocks with hits), whatever the set size.
    // Splitting 100k addresses into topic groups would multiply calls by the group count.
    async scan(from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
      if (from > to) throw new RangeError(`scan range is empty: ${from} > ${to}`);
      let logs: RpcLog[] = [];
      // No tokens must mean no logs: an empty address list would match every contract.
      if (watch.size > 0 && tokens.length > 0) {
        const toTopics = watch.size <= topicFilterLimit ? [...watch.addresses()].map(padTopic) : null;
        logs = await collectLogs(from, to, toTopics);
      }

      const hits: RpcLog[] = [];
      const seen = new Set<string>();
      for (const l of logs) {
        if (l.removed || l.topics.length !== 3 || l.topics[0].toLowerCase() !== TRANSFER_TOPIC) continue;
        if (!byContract.has(l.address.toLowerCase())) continue;
        const toAddr = getAddress("0x" + l.topics[2].slice(26));
        if (!watch.has(toAddr)) continue;
        const key = `${l.transactionHash}:${l.logIndex}`;
        if (seen.has(key)) continue;
        seen.add(key);
        hits.push(l);
      }

      // Timestamps of the blocks with hits (by hash: the exact block the log came from) and the tip.
      const hashes = [...new Set(hits.map((l) => l.blockHash))];
      const answers = await rpc.batch([
        { method: "eth_getBlockByNumber", params: [hex(to), false] },
        ...hashes.map((h) => ({ method: "eth_getBlockByHash", params: [h, false] })),
      ]);
      for (const a of answers) if (a instanceof RpcError) throw a;
      const tipBlock = answers[0] as RpcBlock | null;
      if (!tipBlock) throw new Error(`${profile.name} block ${to} does not exist yet`);
      const tip = toRef(tipBlock);
      const times = new Map<string, number>();
      hashes.forEach((h, i) => {
        const b = answers[i + 1] as RpcBlock | null;
        if (!b) throw new Error(`${profile.name} block ${h} vanished during the scan (reorg); scan again`);
        times.set(h, toRef(b).time);
      });
      for (const l of hits) {
        if (BigInt(l.blockNumber) === tip.number && l.blockHash !== tip.hash) {
          throw new Error(`${profile.name} block ${to} changed during the scan (reorg); scan again`);
        }
      }

      const transfers: IncomingTransfer[] = hits.map((l) => transferOfLog(profile.chain, byContract.get(l.address.toLowerCase())!, l, times.get(l.blockHash)!));
      transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
      return { transfers, tip };
    },

    async tokenBalance(address: string, symbol: TokenSymbol) {
      const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "balanceOf", args: [getAddress(address)] });
      return BigInt(await call(token(symbol).contract, data));
    },

    pendingNonce: (address: string) => nonceFor(address),

    async outgoingTokenTransfers(address: string, from: bigint) {
      const latest = BigInt(await rpc.request<string>("eth_blockNumber"));
      if (from > latest || tokens.length === 0) return [];
      const logs = await collectLogs(from, latest, null, padTopic(getAddress(address)));
      return logs
        .filter((l) => !l.removed && l.topics.length === 3 && l.topics[0]!.toLowerCase() === TRANSFER_TOPIC && byContract.has(l.address.toLowerCase()))
        .map((l) => ({
          txHash: l.transactionHash,
          blockNumber: BigInt(l.blockNumber),
          to: getAddress("0x" + l.topics[2]!.slice(26)),
          token: byContract.get(l.address.toLowerCase())!.symbol,
          amount: BigInt(l.data),
        }));
    },

    async transactionNonce(txHash: string) {
      const t = await rpc.request<{ nonce: string } | null>("eth_getTransactionByHash", [txHash]);
      return t ? Number(BigInt(t.nonce)) : null;
    },

    async nativeBalance(address: string) {
      return BigInt(await rpc.request<string>("eth_getBalance", [getAddress(address), "latest"]));
    },

    async signTransfer(req: TransferRequest): Promise<SignedTransfer> {
      const t = token(req.token);
      const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [getAddress(req.to), req.amount] });
      const from = getAddress(req.from);
      accountFor(req.privateKey, from); // refuse a wrong key before asking the node anything
      let gas: bigint;
      const hinted = req.hint?.gasLimit;
      if (typeof hinted === "string" || typeof hinted === "number" || typeof hinted === "bigint") {
        gas = BigInt(hinted);
      } else {
        try {
          gas = await estimateTokenGas(from, t.contract, data);
        } catch (e) {
          if (e instanceof RpcError && e.kind === "rpc") {
            throw new TransferWouldRevertError(`${profile.name} ${req.token} transfer from ${from} would fail: ${e.message}`);
          }
          throw e;
        }
      }
      return signWith(req.privateKey, from, { to: t.contract as Hex, data, gas }, await marketFees(), req.hint, {
        token: req.token,
        recipient: getAddress(req.to),
        amount: req.amount.toString(),
      });
    },

    async signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer> {
      return signWith(
        req.privateKey,
        req.from,
        { to: getAddress(req.to), value: req.amount, gas: NATIVE_TRANSFER_GAS },
        await marketFees(),
        req.hint,
        { token: profile.nativeSymbol, recipient: getAddress(req.to), amount: req.amount.toString() },
      );
    },

    async estimateTransferFee(from: string, to: string, symbol: TokenSymbol, amount: bigint) {
      const t = token(symbol);
      const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [getAddress(to), amount] });
      let gas: bigint;
      try {
        gas = await estimateTokenGas(getAddress(from), t.contract, data);
      } catch (e) {
        if (!(e instanceof RpcError && e.kind === "rpc")) throw e;
        gas = (FALLBACK_TRANSFER_GAS * GAS_MARGIN_NUM) / GAS_MARGIN_DEN;
      }
      const fees = await marketFees();
      const l1 = profile.l1Fee === "op-stack" ? await l1FeeOf({ to: t.contract as Hex, data, gas }, fees, await nonceFor(getAddress(from))) : 0n;
      return gas * perGas(fees) + l1;
    },

    marketFees,

    async signReplacement(prev: SignedTransfer, privateKey: Uint8Array): Promise<SignedTransfer | null> {
      const p = parseTransaction(prev.raw as Hex);
      const meta = prev.meta as Partial<EvmTxMeta>;
      if (p.nonce === undefined || p.gas === undefined || !p.to) throw new Error(`${profile.name} stored transaction ${prev.txHash} cannot be replaced: no nonce, gas or recipient`);
      const market = await marketFees();
      /** The raised price: the bump, or the market's when higher; at the cap, the cap when it still clears the least raise; else null. */
      const raise = (old: bigint, now: bigint): bigint | null => {
        const want = bumpFee(old) > now ? bumpFee(old) : now;
        if (cap === undefined || want <= cap) return want;
        return cap >= minBump(old) ? cap : null;
      };
      let fees: EvmFees;
      if (p.type === "eip1559") {
        const maxFee = raise(p.maxFeePerGas!, perGas(market));
        if (maxFee === null) return null;
        const marketTip = market.type === "eip1559" ? market.maxPriorityFeePerGas : 0n;
        const tip = bumpFee(p.maxPriorityFeePerGas!) > marketTip ? bumpFee(p.maxPriorityFeePerGas!) : marketTip;
        if (tip > maxFee) return null;
        fees = { type: "eip1559", maxFeePerGas: maxFee, maxPriorityFeePerGas: tip };
      } else {
        const price = raise(p.gasPrice!, perGas(market));
        if (price === null) return null;
        fees = { type: "legacy", gasPrice: price };
      }
      const extra = Object.fromEntries(Object.entries(meta).filter(([k]) => !["chainId", "from", "to", "nonce", "type", "gasPrice", "maxPriorityFeePerGas", "gasLimit", "l1Fee"].includes(k)));
      return signWith(privateKey, meta.from, { to: getAddress(p.to), data: p.data, value: p.value, gas: p.gas }, fees, { nonce: p.nonce }, { ...extra, replaces: prev.txHash });
    },

    async nonceVerdict(tx: SignedTransfer) {
      const known = await knownAnywhere(tx.txHash);
      if (known) return "ours";
      const meta = tx.meta as Partial<EvmTxMeta>;
      if (known === null || typeof meta.from !== "string" || typeof meta.nonce !== "number") return "unsure";
      // Only a final block's nonce concludes: a reorg above it could still undo it.
      const h = await adapter.head();
      let used: bigint;
      try {
        used = BigInt(await rpc.request<string>("eth_getTransactionCount", [meta.from, hex(h.final)]));
      } catch (e) {
        if (!(e instanceof RpcError && e.kind === "rpc")) throw e;
        log?.warn({ msg: `${profile.name.toLowerCase()} nonce at the final block unavailable; concluding nothing`, block: h.final.toString(), error: e.message });
        return "unsure";
      }
      return used > BigInt(meta.nonce) ? "taken" : "open";
    },

    async broadcast(tx: SignedTransfer): Promise<BroadcastResult> {
      const known = async () => (await rpc.request("eth_getTransactionByHash", [tx.txHash])) !== null;
      try {
        const hash = await rpc.request<string>("eth_sendRawTransaction", [tx.raw]);
        if (hash.toLowerCase() !== tx.txHash.toLowerCase()) {
          return { ok: false, permanent: true, error: `node computed hash ${hash}, expected ${tx.txHash}` };
        }
        return { ok: true };
      } catch (e) {
        if (!(e instanceof RpcError) || e.kind !== "rpc") {
          return { ok: false, permanent: false, error: (e as Error).message };
        }
        const msg = e.message;
        try {
          if (/already known|known transaction|already imported|already exists|already in (the )?pool/i.test(msg)) {
            return { ok: true };
          }
          if (/nonce too low|nonce is too low|nonce has already been used|noncetoolow|old nonce/i.test(msg)) {
            // Our own transaction already mined (rebroadcast after a crash) is a success. One
            // endpoint's word is not enough either way: every endpoint is asked for this
            // transaction, and only a nonce used in a final block by another one is permanent.
            if (await known()) return { ok: true };
            const v = await adapter.nonceVerdict(tx);
            if (v === "ours") return { ok: true };
            if (v === "taken") return { ok: false, permanent: true, error: `${msg} (the nonce is used in a final block by another transaction)` };
            return { ok: false, permanent: false, error: msg };
          }
          if (/insufficient funds/i.test(msg)) return { ok: false, permanent: false, error: msg };
          if (/replacement transaction underpriced/i.test(msg)) {
            return (await known()) ? { ok: true } : { ok: false, permanent: false, error: msg };
          }
          if (
            /transaction underpriced|gas price too low|intrinsic gas too low|exceeds block gas limit|invalid sender|invalid signature|invalid chain ?id|chain ?id mismatch|oversized|exceeds the configured cap|rlp|invalid transaction/i.test(
              msg,
            )
          ) {
            return { ok: false, permanent: true, error: msg };
          }
          // Unknown refusal: never call it permanent unless we know the tx cannot land.
          return (await known()) ? { ok: true } : { ok: false, permanent: false, error: msg };
        } catch (inner) {
          return { ok: false, permanent: false, error: `${msg}; lookup failed: ${(inner as Error).message}` };
        }
      }
    },

    async txCost(tx: SignedTransfer) {
      const r = await rpc.request<{ gasUsed?: string; effectiveGasPrice?: string; l1Fee?: string } | null>("eth_getTransactionReceipt", [tx.txHash]);
      if (!r?.gasUsed) return null;
      // OP-stack receipts carry the L1 data fee paid on top of gas.
      return { nativeBurned: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice ?? "0x0") + BigInt(r.l1Fee ?? "0x0") };
    },

    async txState(tx: SignedTransfer): Promise<TxState> {
      const receiptState = async (): Promise<TxState | null> => {
        const r = await rpc.request<{ blockNumber: string; status: string } | null>("eth_getTransactionReceipt", [tx.txHash]);
        if (!r) return null;
        const blockNumber = BigInt(r.blockNumber);
        return { state: "included", blockNumber, success: r.status === "0x1", ...inclusion(await adapter.head(), blockNumber) };
      };
      const included = await receiptState();
      if (included) return included;
      const pending = await rpc.request<{ blockNumber: string | null } | null>("eth_getTransactionByHash", [tx.txHash]);
      if (pending) return { state: "pending" };

      // Expired only on final data: the nonce used in a final block and no endpoint knowing this
      // transaction. A final block's nonce that cannot be read concludes nothing (never the latest's).
      const v = await adapter.nonceVerdict(tx);
      if (v === "ours") return { state: "pending" };
      if (v === "taken") {
        // It may have landed between the receipt lookup and now.
        return (await receiptState()) ?? { state: "expired" };
      }
      return { state: "unknown" };
    },
  };
  return adapter;
}

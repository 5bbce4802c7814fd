// TRON in rpc mode over the full-node HTTP API (java-tron / TronGrid).
// Detection: per block, /wallet/getblockbynum (id, time, parent, tx ids) and, only for
// blocks with transactions, /wallet/gettransactioninfobyblocknum (the logs); Transfer logs
// of the configured token contracts are matched locally against the watch set, so the
// calls per block never depend on how many addresses are watched. Finality: solidified
// (/walletsolidity/getnowblock). Payouts: TRC20 `transfer` and TRX transfers built and
// signed locally (tx.ts), never a node-built transaction.
import type { RpcEndpoint } from "../common/failover";
import type {
  BlockRef,
  BroadcastResult,
  ChainAdapter,
  ChainHead,
  DerivedKey,
  IncomingTransfer,
  ScanResult,
  SignedTransfer,
  TokenInfo,
  TokenSymbol,
  TransferRequest,
  TxCost,
  TxState,
  WatchSet,
} from "../types";
import { deriveTronKey, isTronAddress, normalizeTronAddress, tronFromHex, tronToHex20 } from "./address";
import { tronTxLookup } from "./lookup";
import { TronRpc, TronRpcError, type TronRpcLogger } from "./rpc";
import { tronSweep } from "./sweep";
import { type Clock, systemClock } from "../../lib/clock";
import { assertDecimals, assertKeyFor, inclusion, TransferWouldRevertError, type NativeTransferRequest } from "../common/adapter-parts";

export { TransferWouldRevertError, type NativeTransferRequest };
import {
  addressOfKey,
  addressWord,
  signRaw,
  stakeRaw,
  toHex41,
  transferData,
  transferTrxRaw,
  TRANSFER_TOPIC,
  triggerRaw,
  type RefBlock,
  type StakeKind,
  type TronRawData,
  type TronSignedTx,
} from "./tx";

/** Energy of a USDT transfer to a new holder (the shared contract's docs/chains.md, ../shared/docs/ beside this repository), used when the node gives no estimate. */
const FALLBACK_TRANSFER_ENERGY = 130_285n;
/** Fee limit = estimated energy × 12/10 × energy price: the estimate is for the state it ran on. */
const ENERGY_MARGIN_NUM = 12n;
const ENERGY_MARGIN_DEN = 10n;
/** Signature (65 bytes + framing) and transaction framing on top of raw_data, for bandwidth. */
const BANDWIDTH_OVERHEAD = 67 + 64;
const PARAMS_TTL_MS = 60_000;

export interface TronAdapterOptions {
  rpcUrls: RpcEndpoint[];
  /** TRON-PRO-API-KEY header (TronGrid). */
  apiKey?: string;
  tokens: TokenInfo[];
  confirmations: number;
  requestTimeoutMs?: number;
  /** Backoff of a failing endpoint (first step, ms). Default 100. */
  backoffBaseMs?: number;
  /** Shortest pause of an endpoint that answered 403/429. Default 5 s. */
  rateLimitBackoffMs?: number;
  /** Attempts per call across the URLs. Default max(4, 2 × URLs). */
  rpcAttempts?: number;
  /** Blocks fetched in parallel while scanning. Default 4. */
  scanConcurrency?: number;
  /** raw_data.expiration − head block time of a signed transaction. Default 1 h (the chain allows 24 h). */
  txLifetimeMs?: number;
  logger?: TronRpcLogger;
  /** Drives RPC backoff (tests move a TestClock). Default: real time. */
  clock?: Clock;
  /** `[chains.TRON.energy]` (DESIGN 21). Default: burn. */
  energy?: TronEnergyConfig;
}

/** `[chains.TRON.energy]`: burn TRX for energy, or delegate it from the energy wallet's stake; without enough: burn or wait. */
export interface TronEnergyConfig {
  mode: "burn" | "stake";
  fallback: "burn" | "wait";
}

/** An account's energy (getaccountresource): from stakes (its own and delegated to it), and the network's totals. */
export interface TronEnergy {
  limit: bigint;
  used: bigint;
  /** limit − used (≥ 0). */
  available: bigint;
  totalLimit: bigint;
  totalWeight: bigint;
}

/** An account's Stake 2.0 ENERGY stake (getaccount), sun. */
export interface TronStake {
  balance: bigint;
  /** Staked and held (not delegated). */
  frozen: bigint;
  /** Staked and delegated to others. */
  delegated: bigint;
  /** Unstaked, waiting for the 14 days. */
  unfreezing: bigint;
}

/** What a mined transaction cost (gettransactioninfobyid's receipt). */
export interface TronReceipt {
  /** Sun burned in all (energy + bandwidth + activation). */
  fee: bigint;
  /** Energy from stakes (own or delegated). */
  energyFromStake: bigint;
  /** Sun burned for energy. */
  energyFee: bigint;
  energyTotal: bigint;
  /** Bandwidth bytes (free or burned). */
  bandwidth: bigint;
  netFee: bigint;
}

/** What `SignedTransfer.meta` holds for TRON (decimal strings, so it survives JSON). */
export interface TronTxMeta {
  kind: "TRC20" | "TRX" | "STAKE";
  /** STAKE: which Stake 2.0 contract. */
  op?: StakeKind;
  from: string;
  to: string;
  amount: string;
  token?: TokenSymbol;
  /** Sun the transaction may burn for energy (TRC20), "0" for TRX transfers. */
  feeLimit: string;
  energy?: string;
  /** Bandwidth bytes it takes (burned at getTransactionFee sun each without free bandwidth). */
  bandwidth: number;
  /** raw_data.expiration, ms: after it the transaction can never be included. */
  expiration: number;
  refBlock: number;
  [k: string]: unknown;
}

export interface TronChainParams {
  energyFee: bigint;
  transactionFee: bigint;
  createAccountFee: bigint;
  maxFeeLimit: bigint;
}

export interface TronAccount {
  activated: boolean;
  /** Sun. */
  balance: bigint;
}

export interface TronAdapter extends ChainAdapter {
  readonly rpc: TronRpc;
  readonly energy: TronEnergyConfig;
  energyOf(address: string): Promise<TronEnergy>;
  stakeOf(address: string): Promise<TronStake>;
  /** Sun of its stake `owner` may delegate now (getcandelegatedmaxsize). */
  canDelegate(owner: string): Promise<bigint>;
  /** Sun `owner` delegates to `receiver` now (getdelegatedresourcev2). */
  delegatedTo(owner: string, receiver: string): Promise<bigint>;
  /** A Stake 2.0 transaction for ENERGY signed by `from` (stake, unstake, delegate or reclaim `amount` sun). */
  signStake(req: { op: StakeKind; from: string; to?: string; amount: bigint; privateKey: Uint8Array }): Promise<SignedTransfer>;
  /** The cost of a mined transaction; null while it is not in a block. */
  receipt(txHash: string): Promise<TronReceipt | null>;
  txCost(tx: SignedTransfer): Promise<TxCost | null>;
  account(address: string): Promise<TronAccount>;
  chainParams(): Promise<TronChainParams>;
  signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer>;
  /** Sun the sender of a stored transaction must hold to send it: fee limit + bandwidth burn. */
  trxNeeded(tx: SignedTransfer): Promise<bigint>;
  /** Transactions any of `owners` signed in blocks [from, latest], and that latest: one block read each (restore reconcile only). */
  transactionsFrom(owners: ReadonlySet<string>, from: bigint): Promise<{ txs: TronSentTx[]; to: bigint }>;
}

/**
 * What the payout steps, the energy steps and the staking control use of a TRON chain: the
 * rpc adapter, or the sandbox TRON chain's resource model (sandbox.ts), which has no node.
 */
export type TronChainApi = Omit<TronAdapter, "rpc" | "transactionsFrom">;

const asBase58 = (a: unknown) => {
  if (typeof a !== "string") return undefined;
  try {
    return /^(0x)?(41)?[0-9a-fA-F]{40}$/.test(a) ? tronFromHex(a) : normalizeTronAddress(a);
  } catch {
    return undefined;
  }
};

interface NodeBlock {
  blockID?: string;
  block_header?: { raw_data: { number?: number; timestamp: number; parentHash: string } };
  transactions?: Array<{ txID: string; raw_data?: { contract?: Array<{ type?: string; parameter?: { value?: Record<string, unknown> } }> } }>;
}

/** A transaction an address signed, as a block lists it (restore reconcile). */
export interface TronSentTx {
  /** The signer (base58). */
  owner: string;
  txHash: string;
  blockNumber: bigint;
  to?: string;
  /** Token symbol, "TRX", or undefined for another contract call. */
  asset?: string;
  amount?: bigint;
}

interface NodeTxInfo {
  id: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  fee?: number;
  result?: string;
  receipt?: { result?: string; energy_usage?: number; energy_fee?: number; energy_usage_total?: number; net_usage?: number; net_fee?: number };
  log?: Array<{ address: string; topics?: string[]; data?: string }>;
}

interface ConstantAnswer {
  result?: { result?: boolean; code?: string; message?: string };
  energy_used?: number;
  constant_result?: string[];
  Error?: string;
}

const hexText = (h: unknown) => {
  if (typeof h !== "string" || !/^[0-9a-fA-F]*$/.test(h)) return String(h ?? "");
  try {
    return Buffer.from(h, "hex").toString("utf8");
  } catch {
    return h;
  }
};

export function createTronAdapter(opts: TronAdapterOptions): TronAdapter {
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
  const log = opts.logger;
  const clock = opts.clock ?? systemClock;
  const tokens = opts.tokens;
  const byContract20 = new Map(tokens.map((t) => [tronToHex20(t.contract).slice(2).toLowerCase(), t]));
  const concurrency = Math.max(1, opts.scanConcurrency ?? 4);
  const lifetime = opts.txLifetimeMs ?? 3_600_000;
  let params: { at: number; value: TronChainParams } | null = null;

  const token = (symbol: TokenSymbol) => {
    const t = tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`TRON token ${symbol} is not configured`);
    return t;
  };

  const getBlock = async (num: bigint, solid = false): Promise<NodeBlock | null> => {
    const b = await rpc.post<NodeBlock>(solid ? "walletsolidity/getblockbynum" : "wallet/getblockbynum", { num: Number(num) });
    return b && b.blockID && b.block_header ? b : null;
  };
  const nowBlock = async (solid: boolean): Promise<NodeBlock> => {
    const b = await rpc.post<NodeBlock>(solid ? "walletsolidity/getnowblock" : "wallet/getnowblock");
    if (!b?.blockID || !b.block_header) throw new TronRpcError(`${solid ? "solidified" : "latest"} block missing in node answer`, "answer");
    return b;
  };
  const numberOf = (b: NodeBlock) => BigInt(b.block_header!.raw_data.number ?? 0);
  const toRef = (b: NodeBlock): BlockRef => ({ number: numberOf(b), hash: b.blockID!, time: Number(b.block_header!.raw_data.timestamp) });

  async function constant(contract: string, owner: string, selector: string, parameter: string): Promise<ConstantAnswer> {
    return rpc.post<ConstantAnswer>("wallet/triggerconstantcontract", {
      owner_address: toHex41(owner),
      contract_address: toHex41(contract),
      function_selector: selector,
      parameter,
    });
  }

  const constantFailure = (r: ConstantAnswer) => (r.Error ? r.Error : r.result?.result ? null : `${r.result?.code ?? "error"}: ${hexText(r.result?.message)}`);

  async function refAndTime(): Promise<{ ref: RefBlock; headTime: number }> {
    // The reference block is a solidified one: a reorg can never invalidate it (TAPOS).
    const [solid, head] = await Promise.all([nowBlock(true), nowBlock(false)]);
    return { ref: { number: Number(numberOf(solid)), blockID: solid.blockID! }, headTime: Number(head.block_header!.raw_data.timestamp) };
  }

  function checkKey(privateKey: Uint8Array, from?: string): string {
    const own = addressOfKey(privateKey);
    assertKeyFor(from === undefined ? undefined : normalizeTronAddress(from), own);
    return own;
  }

  function signed(raw: TronRawData, privateKey: Uint8Array, meta: Pick<TronTxMeta, "kind" | "op" | "from" | "to" | "amount" | "feeLimit" | "token" | "energy">): SignedTransfer {
    const tx: TronSignedTx = signRaw(raw, privateKey);
    const full: TronTxMeta = {
      ...meta,
      bandwidth: tx.raw_data_hex.length / 2 + BANDWIDTH_OVERHEAD,
      expiration: raw.expiration,
      refBlock: parseInt(raw.ref_block_bytes, 16),
    };
    return { txHash: tx.txID, raw: JSON.stringify(tx), meta: full };
  }

  async function known(txHash: string): Promise<boolean> {
    const t = await rpc.post<{ txID?: string }>("wallet/gettransactionbyid", { value: txHash });
    return !!t?.txID;
  }

  async function infoOf(txHash: string): Promise<NodeTxInfo | null> {
    const info = await rpc.post<NodeTxInfo>("wallet/gettransactioninfobyid", { value: txHash });
    return info && typeof info.blockNumber === "number" ? info : null;
  }

  /** Blocks [from, to], `concurrency` at a time, each mapped by `fn`; results in block order. */
  async function eachBlock<T>(from: bigint, to: bigint, fn: (block: NodeBlock, n: bigint) => Promise<T>): Promise<T[]> {
    const out: T[] = [];
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
  }

  /** Blocks [from, to] with their infos, `concurrency` at a time, in order. */
  function fetchBlocks(from: bigint, to: bigint): Promise<Array<{ block: NodeBlock; infos: NodeTxInfo[] }>> {
    return eachBlock(from, to, async (block, n) => {
      let infos: NodeTxInfo[] = [];
      const txs = block.transactions ?? [];
      if (txs.length > 0) {
        const got = await rpc.post<NodeTxInfo[] | Record<string, unknown>>("wallet/gettransactioninfobyblocknum", { num: Number(n) });
        infos = Array.isArray(got) ? got : [];
        const ids = new Set(txs.map((t) => t.txID));
        // Infos of another fork's block (a reorg between the two calls) would not match.
        if (infos.length !== txs.length || infos.some((x) => !ids.has(x.id))) {
          throw new Error(`TRON block ${n} changed during the scan (reorg); scan again`);
        }
      }
      return { block, infos };
    });
  }

  const adapter: TronAdapter = {
    chain: "TRON",
    mode: "rpc",
    tokens,
    requiredConfirmations: opts.confirmations,
    rpc,
    lookupTx: tronTxLookup(rpc, tokens, () => adapter.head(), (n) => adapter.blockHash(n)),
    energy: opts.energy ?? { mode: "burn", fallback: "burn" },
    sweep: tronSweep({ rpc, tokens }),

    async start() {
      for (const t of tokens) {
        const r = await constant(t.contract, t.contract, "decimals()", "");
        const failure = constantFailure(r);
        const out = r.constant_result?.[0];
        if (failure || !out) throw new Error(`TRON ${t.symbol}: no token contract at ${t.contract} (${failure ?? "empty answer"})`);
        assertDecimals("TRON", t, Number(BigInt("0x" + out)));
      }
      const [head, solid] = await Promise.all([nowBlock(false), nowBlock(true)]);
      log?.info({ msg: "tron adapter started", head: Number(numberOf(head)), solidified: Number(numberOf(solid)), tokens: tokens.map((t) => t.symbol) });
    },

    async stop() {
      rpc.close();
    },

    deriveKey(seed: Uint8Array, index: number): DerivedKey {
      return deriveTronKey(seed, index);
    },
    isValidAddress: isTronAddress,
    normalizeAddress: normalizeTronAddress,

    async head(): Promise<ChainHead> {
      const [latest, solid] = await Promise.all([nowBlock(false), nowBlock(true)]);
      const l = numberOf(latest);
      const s = numberOf(solid);
      return { latest: l, final: s < l ? s : l, time: Number(latest.block_header!.raw_data.timestamp) };
    },

    async transactionsFrom(owners: ReadonlySet<string>, from: bigint): Promise<{ txs: TronSentTx[]; to: bigint }> {
      const latest = numberOf(await nowBlock(false));
      const found = await eachBlock(from, latest, async (b, n) => {
        const sent: TronSentTx[] = [];
        for (const t of b.transactions ?? []) {
          const c = t.raw_data?.contract?.[0];
          const v = c?.parameter?.value ?? {};
          const owner = asBase58(v.owner_address);
          if (!owner || !owners.has(owner)) continue;
          const one: TronSentTx = { owner, txHash: t.txID, blockNumber: n };
          if (c?.type === "TransferContract") Object.assign(one, { to: asBase58(v.to_address), asset: "TRX", amount: BigInt(String(v.amount ?? 0)) });
          const data = typeof v.data === "string" ? v.data : "";
          const tok = tokens.find((k) => asBase58(v.contract_address) === k.contract);
          if (c?.type === "TriggerSmartContract" && tok && data.startsWith("a9059cbb") && data.length >= 136) {
            Object.assign(one, { to: tronFromHex(data.slice(32, 72)), asset: tok.symbol, amount: BigInt("0x" + data.slice(72, 136)) });
          }
          sent.push(one);
        }
        return sent;
      });
      return { txs: found.flat(), to: latest };
    },

    async blockHash(n: bigint) {
      const b = await getBlock(n);
      return b ? b.blockID! : null;
    },

    async scan(from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
      if (from > to) throw new RangeError(`scan range is empty: ${from} > ${to}`);
      if (watch.size === 0 || tokens.length === 0) {
        const tip = await getBlock(to);
        if (!tip) throw new Error(`TRON block ${to} does not exist yet`);
        return { transfers: [], tip: toRef(tip) };
      }
      const blocks = await fetchBlocks(from, to);
      for (let i = 1; i < blocks.length; i++) {
        if (blocks[i].block.block_header!.raw_data.parentHash !== blocks[i - 1].block.blockID) {
          throw new Error(`TRON block ${from + BigInt(i)} does not follow block ${from + BigInt(i - 1)} (reorg during the scan); scan again`);
        }
      }
      const transfers: IncomingTransfer[] = [];
      for (const { block, infos } of blocks) {
        const ref = toRef(block);
        // Infos in the block's transaction order, so positions are stable.
        const order = new Map((block.transactions ?? []).map((t, i) => [t.txID, i]));
        const sorted = [...infos].sort((a, b) => order.get(a.id)! - order.get(b.id)!);
        for (const info of sorted) {
          if (info.result === "FAILED") continue;
          (info.log ?? []).forEach((l, logIndex) => {
            const t = byContract20.get(String(l.address ?? "").toLowerCase().replace(/^(0x|41(?=[0-9a-f]{40}$))/, ""));
            const topics = l.topics ?? [];
            if (!t || topics.length !== 3 || topics[0].toLowerCase().replace(/^0x/, "") !== TRANSFER_TOPIC) return;
            const toAddr = tronFromHex(topics[2].slice(-40));
            if (!watch.has(toAddr)) return;
            const data = String(l.data ?? "").replace(/^0x/, "");
            transfers.push({
              chain: "TRON",
              token: t.symbol,
              txHash: info.id,
              logIndex,
              blockNumber: ref.number,
              blockHash: ref.hash,
              blockTime: ref.time,
              from: tronFromHex(topics[1].slice(-40)),
              to: toAddr,
              amount: data ? BigInt("0x" + data) : 0n,
            });
          });
        }
      }
      return { transfers, tip: toRef(blocks[blocks.length - 1].block) };
    },

    async tokenBalance(address: string, symbol: TokenSymbol) {
      const t = token(symbol);
      const r = await constant(t.contract, address, "balanceOf(address)", addressWord(address));
      const failure = constantFailure(r);
      if (failure) throw new Error(`TRON ${symbol} balanceOf failed: ${failure}`);
      const out = r.constant_result?.[0];
      return out ? BigInt("0x" + out) : 0n;
    },

    async account(address: string): Promise<TronAccount> {
      const a = await rpc.post<{ address?: string; balance?: number }>("wallet/getaccount", { address: toHex41(address) });
      if (!a?.address) return { activated: false, balance: 0n };
      return { activated: true, balance: BigInt(a.balance ?? 0) };
    },

    async chainParams(): Promise<TronChainParams> {
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

    async signTransfer(req: TransferRequest): Promise<SignedTransfer> {
      const t = token(req.token);
      const from = normalizeTronAddress(req.from);
      const to = normalizeTronAddress(req.to);
      checkKey(req.privateKey, from); // refuse a wrong key before asking the node anything
      const data = transferData(to, req.amount);
      const sim = await constant(t.contract, from, "transfer(address,uint256)", data.slice(8));
      if (sim.Error) throw new Error(`TRON ${req.token} transfer simulation failed: ${sim.Error}`);
      if (!sim.result?.result) {
        const msg = `${sim.result?.code ?? "error"}: ${hexText(sim.result?.message)}`;
        if (sim.result?.code === "CONTRACT_EXE_ERROR" || /revert/i.test(msg)) {
          throw new TransferWouldRevertError(`TRON ${req.token} transfer from ${from} would fail: ${msg}`);
        }
        throw new Error(`TRON ${req.token} transfer simulation failed: ${msg}`);
      }
      const used = sim.energy_used !== undefined && sim.energy_used > 0 ? BigInt(sim.energy_used) : FALLBACK_TRANSFER_ENERGY;
      const energy = (used * ENERGY_MARGIN_NUM + ENERGY_MARGIN_DEN - 1n) / ENERGY_MARGIN_DEN;
      const p = await adapter.chainParams();
      let feeLimit = energy * p.energyFee;
      if (feeLimit > p.maxFeeLimit) feeLimit = p.maxFeeLimit;
      const { ref, headTime } = await refAndTime();
      const raw = triggerRaw({ owner: from, contract: t.contract, data, feeLimit: Number(feeLimit), ref, expiration: headTime + lifetime, timestamp: headTime });
      return signed(raw, req.privateKey, {
        kind: "TRC20",
        from,
        to,
        amount: req.amount.toString(),
        token: req.token,
        feeLimit: feeLimit.toString(),
        energy: energy.toString(),
      });
    },

    async energyOf(address: string): Promise<TronEnergy> {
      const r = await rpc.post<{ EnergyLimit?: number; EnergyUsed?: number; TotalEnergyLimit?: number; TotalEnergyWeight?: number }>("wallet/getaccountresource", { address: toHex41(address) });
      const limit = BigInt(r?.EnergyLimit ?? 0);
      const used = BigInt(r?.EnergyUsed ?? 0);
      return { limit, used, available: limit > used ? limit - used : 0n, totalLimit: BigInt(r?.TotalEnergyLimit ?? 0), totalWeight: BigInt(r?.TotalEnergyWeight ?? 0) };
    },

    async stakeOf(address: string): Promise<TronStake> {
      type Acc = {
        balance?: number;
        frozenV2?: Array<{ type?: string; amount?: number }>;
        unfrozenV2?: Array<{ type?: string; unfreeze_amount?: number }>;
        account_resource?: { delegated_frozenV2_balance_for_energy?: number };
      };
      const a = await rpc.post<Acc>("wallet/getaccount", { address: toHex41(address) });
      const energy = (x: { type?: string }) => x.type === "ENERGY";
      return {
        balance: BigInt(a?.balance ?? 0),
        frozen: BigInt(a?.frozenV2?.find(energy)?.amount ?? 0),
        delegated: BigInt(a?.account_resource?.delegated_frozenV2_balance_for_energy ?? 0),
        unfreezing: (a?.unfrozenV2 ?? []).filter(energy).reduce((s, u) => s + BigInt(u.unfreeze_amount ?? 0), 0n),
      };
    },

    async canDelegate(owner: string): Promise<bigint> {
      const r = await rpc.post<{ max_size?: number }>("wallet/getcandelegatedmaxsize", { owner_address: toHex41(owner), type: 1 });
      return BigInt(r?.max_size ?? 0);
    },

    async delegatedTo(owner: string, receiver: string): Promise<bigint> {
      const r = await rpc.post<{ delegatedResource?: Array<{ frozen_balance_for_energy?: number }> }>("wallet/getdelegatedresourcev2", { fromAddress: toHex41(owner), toAddress: toHex41(receiver) });
      return (r?.delegatedResource ?? []).reduce((s, d) => s + BigInt(d.frozen_balance_for_energy ?? 0), 0n);
    },

    async signStake(req): Promise<SignedTransfer> {
      const from = checkKey(req.privateKey, req.from);
      const to = req.to === undefined ? undefined : normalizeTronAddress(req.to);
      const { ref, headTime } = await refAndTime();
      const raw = stakeRaw({ kind: req.op, owner: from, receiver: to, amount: req.amount, ref, expiration: headTime + lifetime, timestamp: headTime });
      return signed(raw, req.privateKey, { kind: "STAKE", op: req.op, from, to: to ?? from, amount: req.amount.toString(), feeLimit: "0" });
    },

    async txCost(tx: SignedTransfer) {
      const r = await adapter.receipt(tx.txHash);
      if (!r) return null;
      return { nativeBurned: r.fee, energyDelegated: r.energyFromStake, energyBurned: r.energyTotal - r.energyFromStake, bandwidth: r.bandwidth };
    },

    async receipt(txHash: string): Promise<TronReceipt | null> {
      const info = await infoOf(txHash);
      if (!info) return null;
      const r = info.receipt ?? {};
      const n = (v: number | undefined) => BigInt(v ?? 0);
      return {
        fee: n(info.fee),
        energyFromStake: n(r.energy_usage),
        energyFee: n(r.energy_fee),
        energyTotal: n(r.energy_usage_total),
        bandwidth: n(r.net_usage) + (r.net_fee ? n(r.net_fee) / (await adapter.chainParams()).transactionFee : 0n),
        netFee: n(r.net_fee),
      };
    },

    async signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer> {
      const from = checkKey(req.privateKey, req.from);
      const to = normalizeTronAddress(req.to);
      const { ref, headTime } = await refAndTime();
      const raw = transferTrxRaw({ owner: from, to, amount: req.amount, ref, expiration: headTime + lifetime, timestamp: headTime });
      return signed(raw, req.privateKey, { kind: "TRX", from, to, amount: req.amount.toString(), feeLimit: "0" });
    },

    async trxNeeded(tx: SignedTransfer): Promise<bigint> {
      const m = tx.meta as Partial<TronTxMeta>;
      const p = await adapter.chainParams();
      return BigInt(m.feeLimit ?? "0") + BigInt(m.bandwidth ?? 0) * p.transactionFee + (m.kind === "TRX" ? BigInt(m.amount ?? "0") : 0n);
    },

    async broadcast(tx: SignedTransfer): Promise<BroadcastResult> {
      let r: { result?: boolean; txid?: string; code?: string; message?: string; Error?: string };
      try {
        r = await rpc.post("wallet/broadcasttransaction", JSON.parse(tx.raw) as Record<string, unknown>);
      } catch (e) {
        return { ok: false, permanent: false, error: (e as Error).message };
      }
      if (r.result === true) {
        if (r.txid && r.txid.toLowerCase() !== tx.txHash.toLowerCase()) {
          return { ok: false, permanent: true, error: `node computed txid ${r.txid}, expected ${tx.txHash}` };
        }
        return { ok: true };
      }
      if (r.Error) return { ok: false, permanent: true, error: `node could not read the transaction: ${r.Error}` };
      const code = r.code ?? "OTHER_ERROR";
      const error = `${code}: ${hexText(r.message)}`;
      if (code === "DUP_TRANSACTION_ERROR") return { ok: true };
      try {
        // A refusal of a transaction the chain already has (a rebroadcast after a crash) is a success.
        if (await known(tx.txHash)) return { ok: true };
      } catch (e) {
        return { ok: false, permanent: false, error: `${error}; lookup failed: ${(e as Error).message}` };
      }
      switch (code) {
        case "SIGERROR":
        case "TOO_BIG_TRANSACTION_ERROR":
        case "TRANSACTION_EXPIRATION_ERROR":
          return { ok: false, permanent: true, error };
        case "CONTRACT_VALIDATE_ERROR":
          // Funds or activation can still arrive (gas top-up); anything else about the contract cannot change.
          if (/balance is not sufficient|no OwnerAccount|does not exist|not exist|insufficient/i.test(error)) return { ok: false, permanent: false, error };
          return { ok: false, permanent: true, error };
        default:
          // BANDWITH_ERROR, SERVER_BUSY, NOT_ENOUGH_EFFECTIVE_CONNECTION, TAPOS_ERROR (a node behind
          // the reference block), OTHER_ERROR...: not known to be final.
          return { ok: false, permanent: false, error };
      }
    },

    async txState(tx: SignedTransfer): Promise<TxState> {
      const included = async (): Promise<TxState | null> => {
        const info = await infoOf(tx.txHash);
        if (!info) return null;
        const blockNumber = BigInt(info.blockNumber!);
        const success = info.result !== "FAILED" && (info.receipt?.result === undefined || info.receipt.result === "SUCCESS");
        return { state: "included", blockNumber, success, ...inclusion(await adapter.head(), blockNumber) };
      };
      const inc = await included();
      if (inc) return inc;
      if (await known(tx.txHash)) return { state: "pending" };
      const m = tx.meta as Partial<TronTxMeta>;
      let expiration = typeof m.expiration === "number" ? m.expiration : undefined;
      if (expiration === undefined) {
        try {
          expiration = Number((JSON.parse(tx.raw) as TronSignedTx).raw_data.expiration);
        } catch {}
      }
      if (expiration === undefined || !Number.isFinite(expiration)) return { state: "unknown" };
      // Past its expiration at a solidified block: no block from here on may include it.
      const solid = await nowBlock(true);
      if (Number(solid.block_header!.raw_data.timestamp) > expiration) return (await included()) ?? { state: "expired" };
      return { state: "unknown" };
    },
  };
  return adapter;
}

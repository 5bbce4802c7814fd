// The chain behind the fake TRON node (tron-node.ts): blocks with java-tron's JSON
// shapes, a TRX and TRC20-USDT ledger per block (so solidified reads see solidified
// state and reorgs restore it), a pending pool, and execution with TRON's resource
// rules as the gateway meets them: bandwidth (free allowance, else burned), energy
// (staked, else TRX burned up to fee_limit; short → OUT_OF_ENERGY with the fee still
// burned), account activation (1 TRX paid by the sender of the first TRX transfer),
// and Stake 2.0: FreezeBalanceV2 / UnfreezeBalanceV2 / WithdrawExpireUnfreeze and
// DelegateResource / UnDelegateResource for ENERGY, with java-tron's arithmetic: an
// account's energy limit is its staked plus acquired-delegated TRX × TotalEnergyLimit /
// TotalEnergyWeight, usage recovers linearly over a 24 h window, fee_limit caps the
// energy a call may use (staked or burned), and undelegating moves the receiver's
// share of usage back to the owner.
// Transaction ids and signatures are checked with tronweb's own code.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { tronFromHex, tronToHex20 } from "../chains/tron/address";
import { delegableOf, energyLimitOf, ENERGY_EXISTING_HOLDER, ENERGY_NEW_HOLDER, ENERGY_WINDOW_MS, usageAt } from "../chains/tron/resources";

// tronweb's ESM entry is flaky under Bun (the shared contract's docs/chains.md, ../shared/docs/ beside this repository): require it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tronweb = require("tronweb") as { utils: any; TronWeb: any };

export const USDT_MAINNET = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
/** Energy of a USDT transfer to an address that holds USDT / that does not (mainnet figures). */
export { ENERGY_EXISTING_HOLDER, ENERGY_NEW_HOLDER, ENERGY_WINDOW_MS };
const ENERGY_REVERT = 2_000n;
const ENERGY_READ = 500n;
const DAY_MS = 86_400_000;
/** An unstaked amount can be withdrawn this long after UnfreezeBalanceV2 (mainnet: 14 days). */
export const UNFREEZE_DELAY_MS = 14 * DAY_MS;
const TRX = 1_000_000n;

export const hex41 = (addr: string) => "41" + tronToHex20(addr).slice(2);
const hexToUtf8Hex = (s: string) => Buffer.from(s, "utf8").toString("hex");

export interface ChainParams {
  /** Sun per energy unit (getEnergyFee). */
  energyFee: bigint;
  /** Sun per bandwidth byte (getTransactionFee). */
  transactionFee: bigint;
  /** Paid by the sender when a TRX transfer creates an account (getCreateNewAccountFeeInSystemContract). */
  createAccountFee: bigint;
  /** Free bandwidth per activated account and day. */
  freeBandwidth: number;
  maxFeeLimit: bigint;
  /** Energy the network hands out per day to all stakes (TotalEnergyLimit). */
  totalEnergyLimit: bigint;
  /** TRX staked for energy by the whole network (TotalEnergyWeight; this chain's own stakes do not move it). */
  totalEnergyWeight: bigint;
}

export interface Account {
  balance: bigint;
  createTime: number;
  /** Extra energy left, set by tests (setEnergy; no regeneration). */
  energy: bigint;
  freeNetDay: number;
  freeNetUsed: number;
  /** Sun this account staked for ENERGY and still holds (frozenV2 ENERGY; delegated sun not included). */
  frozenEnergy: bigint;
  /** Sun of its stake delegated to others (delegated_frozenV2_balance_for_energy). */
  delegatedOut: bigint;
  /** Sun others delegated to it (acquired_delegated_frozenV2_balance_for_energy). */
  acquired: bigint;
  /** Energy used as of latestConsumeTime (recovers linearly over ENERGY_WINDOW_MS). */
  energyUsage: bigint;
  latestConsumeTime: number;
  /** Unstaked sun waiting for its withdrawal time (unfrozenV2). */
  unfrozen: Array<{ amount: bigint; expire: number }>;
}

const newAccount = (balance: bigint, createTime: number): Account => ({
  balance,
  createTime,
  energy: 0n,
  freeNetDay: 0,
  freeNetUsed: 0,
  frozenEnergy: 0n,
  delegatedOut: 0n,
  acquired: 0n,
  energyUsage: 0n,
  latestConsumeTime: 0,
  unfrozen: [],
});

/** Ledger of one block; cloned when a block changes it, shared otherwise. */
export interface ChainState {
  accounts: Map<string, Account>;
  /** USDT balances by 41-hex owner. */
  usdt: Map<string, bigint>;
  /** ENERGY delegations, sun, by "owner:receiver" (41-hex). */
  delegations: Map<string, bigint>;
}

export interface TxJson {
  txID: string;
  raw_data: {
    contract: Array<{ type: string; parameter: { value: Record<string, any>; type_url: string } }>;
    ref_block_bytes: string;
    ref_block_hash: string;
    expiration: number;
    fee_limit?: number;
    timestamp?: number;
    [k: string]: unknown;
  };
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
}

export interface TronLog {
  address: string;
  topics: string[];
  data: string;
}

export interface TxInfo {
  id: string;
  fee?: number;
  blockNumber: number;
  blockTimeStamp: number;
  contractResult?: string[];
  contract_address?: string;
  receipt: Record<string, unknown>;
  log?: TronLog[];
  result?: "FAILED";
  resMessage?: string;
}

export interface Included {
  tx: TxJson;
  info: TxInfo;
  contractRet: string;
}

export interface Block {
  number: number;
  blockID: string;
  parentHash: string;
  timestamp: number;
  txs: Included[];
  state: ChainState;
}

/** Stake 2.0 system contracts this chain runs (type name → java-tron's ContractType number). */
export const STAKE_CONTRACTS: Record<string, number> = {
  FreezeBalanceV2Contract: 54,
  UnfreezeBalanceV2Contract: 55,
  WithdrawExpireUnfreezeContract: 56,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
};

export class TxRejected extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

function cloneState(s: ChainState): ChainState {
  return { accounts: new Map([...s.accounts].map(([k, a]) => [k, { ...a, unfrozen: [...a.unfrozen] }])), usdt: new Map(s.usdt), delegations: new Map(s.delegations) };
}

const word = (v: bigint) => v.toString(16).padStart(64, "0");

export interface TronChainOptions {
  contract?: string;
  decimals?: number;
  params?: Partial<ChainParams>;
  /** Blocks behind the head that are solidified. Default 19. */
  solidLag?: number;
  now?: () => number;
  /** Accounts and balances in the genesis block (41-hex keys or base58). */
  genesis?: Array<{ address: string; trx?: bigint; usdt?: bigint }>;
}

export class TronChain {
  readonly blocks: Block[] = [];
  readonly pending: TxJson[] = [];
  readonly contractHex: string;
  readonly contract: string;
  decimals: number;
  readonly params: ChainParams;
  solidLag: number;
  private readonly clock: () => number;
  private timeOffset = 0;
  private fork = 0;

  constructor(opts: TronChainOptions = {}) {
    this.contract = opts.contract ?? USDT_MAINNET;
    this.contractHex = hex41(this.contract);
    this.decimals = opts.decimals ?? 6;
    this.params = {
      energyFee: 100n,
      transactionFee: 1000n,
      createAccountFee: 1_000_000n,
      freeBandwidth: 600,
      maxFeeLimit: 15_000_000_000n,
      totalEnergyLimit: 180_000_000_000n,
      totalEnergyWeight: 18_000_000_000n,
      ...opts.params,
    };
    this.solidLag = opts.solidLag ?? 19;
    this.clock = opts.now ?? Date.now;
    const state: ChainState = { accounts: new Map(), usdt: new Map(), delegations: new Map() };
    const t0 = this.now();
    for (const g of opts.genesis ?? []) {
      const k = g.address.startsWith("T") ? hex41(g.address) : g.address.toLowerCase();
      state.accounts.set(k, newAccount(g.trx ?? 0n, t0));
      if (g.usdt) state.usdt.set(k, g.usdt);
    }
    this.blocks.push(this.makeBlock(0, "0".repeat(64), t0, [], state));
  }

  now(): number {
    return this.clock() + this.timeOffset;
  }
  /** Moves the node's clock (block timestamps) forward, e.g. past a transaction's expiration. */
  advanceTime(ms: number): void {
    this.timeOffset += ms;
  }

  get head(): Block {
    return this.blocks[this.blocks.length - 1];
  }
  get solidNumber(): number {
    return Math.max(0, this.head.number - this.solidLag);
  }
  get solid(): Block {
    return this.blocks[this.solidNumber];
  }
  block(n: number, solidOnly = false): Block | undefined {
    if (!Number.isInteger(n) || n < 0) return undefined;
    if (solidOnly && n > this.solidNumber) return undefined;
    return this.blocks[n];
  }

  private makeBlock(number: number, parentHash: string, timestamp: number, txs: Included[], state: ChainState): Block {
    const root = bytesToHex(sha256(new TextEncoder().encode(txs.map((t) => t.tx.txID).join(","))));
    const h = bytesToHex(sha256(new TextEncoder().encode(`${parentHash}:${number}:${timestamp}:${root}:${this.fork}`)));
    const blockID = number.toString(16).padStart(16, "0") + h.slice(16);
    for (const t of txs) {
      t.info.blockNumber = number;
      t.info.blockTimeStamp = timestamp;
    }
    return { number, blockID, parentHash, timestamp, txs, state };
  }

  /** Where a transaction is: its block on the current chain, pending, or nowhere. */
  find(txID: string): { block: Block; included: Included } | { pending: TxJson } | null {
    const id = txID.toLowerCase();
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const inc = this.blocks[i].txs.find((t) => t.tx.txID === id);
      if (inc) return { block: this.blocks[i], included: inc };
    }
    const p = this.pending.find((t) => t.txID === id);
    return p ? { pending: p } : null;
  }

  /** txID as java-tron computes it: sha256 of the protobuf of raw_data (tronweb's encoder). */
  static txIdOf(tx: TxJson): { txID: string; rawHex: string } {
    const pb = tronweb.utils.transaction.txJsonToPb(tx);
    return {
      txID: String(tronweb.utils.transaction.txPbToTxID(pb)).replace(/^0x/, "").toLowerCase(),
      rawHex: String(tronweb.utils.transaction.txPbToRawDataHex(pb)).toLowerCase(),
    };
  }

  /** Bandwidth bytes a transaction takes (raw data + signatures + protobuf framing). */
  static bytesOf(tx: TxJson): number {
    return tx.raw_data_hex.length / 2 + 67 * (tx.signature?.length ?? 0) + 64;
  }

  /** Checks at broadcast, as java-tron does them; throws TxRejected. Returns the txID. */
  admit(tx: TxJson): string {
    if (!tx?.raw_data?.contract?.[0]) throw new TxRejected("OTHER_ERROR", "invalid transaction: no contract");
    let ids: { txID: string; rawHex: string };
    try {
      ids = TronChain.txIdOf(tx);
    } catch (e) {
      throw new TronRejectedParse(String((e as Error).message ?? e));
    }
    const txID = ids.txID;
    tx = { ...tx, txID, raw_data_hex: ids.rawHex };
    if (this.find(txID)) throw new TxRejected("DUP_TRANSACTION_ERROR", "Dup transaction.");
    const owner = String(tx.raw_data.contract[0].parameter.value.owner_address ?? "").toLowerCase();
    const sig = tx.signature?.[0];
    if (!sig) throw new TxRejected("SIGERROR", "Validate signature error: miss sig or contract");
    let signer: string;
    try {
      signer = String(tronweb.utils.crypto.ecRecover(txID, sig)).toLowerCase();
    } catch (e) {
      throw new TxRejected("SIGERROR", `Validate signature error: ${(e as Error).message}`);
    }
    if (signer !== owner) {
      throw new TxRejected("SIGERROR", `Validate signature error: ${txID} is signed by ${tronFromHex(signer)} but it is not contained of permission.`);
    }
    const headTs = this.head.timestamp;
    if (tx.raw_data.expiration <= headTs) throw new TxRejected("TRANSACTION_EXPIRATION_ERROR", "Transaction expired");
    if (tx.raw_data.expiration > headTs + DAY_MS) throw new TxRejected("TRANSACTION_EXPIRATION_ERROR", "Transaction expiration time is more than 24 hours in the future");
    if (!this.taposOk(tx)) throw new TxRejected("TAPOS_ERROR", "Tapos check error");
    // Validation against the head state (the real node uses its pending state; close enough here).
    const state = cloneState(this.head.state);
    this.execute(tx, state, this.head.number + 1, this.now());
    this.pending.push(tx);
    return txID;
  }

  private taposOk(tx: TxJson): boolean {
    const low = parseInt(tx.raw_data.ref_block_bytes, 16);
    const hash = String(tx.raw_data.ref_block_hash).toLowerCase();
    for (let n = this.head.number; n >= 0 && n > this.head.number - 65536; n--) {
      const b = this.blocks[n];
      if ((b.number & 0xffff) === low && b.blockID.slice(16, 32) === hash) return true;
    }
    return false;
  }

  private account(state: ChainState, hex: string): Account | undefined {
    return state.accounts.get(hex);
  }

  /** Burns bandwidth: the free daily allowance first, else TRX. Returns sun burned. */
  private chargeBandwidth(acc: Account, bytes: number, ts: number): bigint {
    const day = Math.floor(ts / DAY_MS);
    if (acc.freeNetDay !== day) {
      acc.freeNetDay = day;
      acc.freeNetUsed = 0;
    }
    if (acc.freeNetUsed + bytes <= this.params.freeBandwidth) {
      acc.freeNetUsed += bytes;
      return 0n;
    }
    const fee = BigInt(bytes) * this.params.transactionFee;
    if (acc.balance < fee) throw new TxRejected("BANDWITH_ERROR", "Account resource insufficient error.");
    acc.balance -= fee;
    return fee;
  }

  /**
   * Runs `tx` on `state` (mutating it). Throws TxRejected when it cannot be included at all;
   * otherwise returns its TransactionInfo (failed executions are included, fee burned).
   */
  execute(tx: TxJson, state: ChainState, blockNumber: number, ts: number): Included {
    const c = tx.raw_data.contract[0];
    const v = c.parameter.value;
    const owner = String(v.owner_address ?? "").toLowerCase();
    const acc = this.account(state, owner);
    if (!acc) throw new TxRejected("CONTRACT_VALIDATE_ERROR", `Validate ${c.type} error, no OwnerAccount.`);
    const bytes = TronChain.bytesOf(tx);
    const info: TxInfo = { id: tx.txID, blockNumber, blockTimeStamp: ts, receipt: {} };

    if (c.type === "TransferContract") {
      const to = String(v.to_address ?? "").toLowerCase();
      const amount = BigInt(v.amount ?? 0);
      if (amount <= 0n) throw new TxRejected("CONTRACT_VALIDATE_ERROR", "Validate TransferContract error, Amount must be greater than 0.");
      if (to === owner) throw new TxRejected("CONTRACT_VALIDATE_ERROR", "Validate TransferContract error, Cannot transfer TRX to yourself.");
      const creating = !state.accounts.has(to);
      const createFee = creating ? this.params.createAccountFee : 0n;
      if (acc.balance < amount + createFee) throw new TxRejected("CONTRACT_VALIDATE_ERROR", "Validate TransferContract error, balance is not sufficient.");
      const netFee = this.chargeBandwidth(acc, bytes, ts);
      if (acc.balance < amount + createFee) throw new TxRejected("CONTRACT_VALIDATE_ERROR", "Validate TransferContract error, balance is not sufficient.");
      acc.balance -= amount + createFee;
      if (creating) state.accounts.set(to, newAccount(0n, ts));
      state.accounts.get(to)!.balance += amount;
      const fee = netFee + createFee;
      if (fee > 0n) info.fee = Number(fee);
      info.receipt = netFee > 0n ? { net_fee: Number(netFee) } : { net_usage: bytes };
      return { tx, info, contractRet: "SUCCESS" };
    }

    if (c.type in STAKE_CONTRACTS) {
      const apply = this.validateStake(c.type, v, owner, acc, state, ts);
      const netFee = this.chargeBandwidth(acc, bytes, ts);
      apply();
      if (netFee > 0n) info.fee = Number(netFee);
      info.receipt = netFee > 0n ? { net_fee: Number(netFee) } : { net_usage: bytes };
      return { tx, info, contractRet: "SUCCESS" };
    }

    if (c.type !== "TriggerSmartContract") throw new TxRejected("CONTRACT_VALIDATE_ERROR", `contract type ${c.type} is not supported by this node`);
    const contract = String(v.contract_address ?? "").toLowerCase();
    if (contract !== this.contractHex) throw new TxRejected("CONTRACT_VALIDATE_ERROR", "No contract or not a smart contract");
    const feeLimit = BigInt(tx.raw_data.fee_limit ?? 0);
    if (feeLimit <= 0n || feeLimit > this.params.maxFeeLimit) throw new TxRejected("CONTRACT_VALIDATE_ERROR", `feeLimit must be >= 0 and <= ${this.params.maxFeeLimit}`);
    const netFee = this.chargeBandwidth(acc, bytes, ts);

    const call = this.call(state, owner, String(v.data ?? ""));
    const price = this.params.energyFee;
    // java-tron: min(energy left from stakes + what the balance can burn, fee_limit / price).
    const staked = this.availableEnergy(acc, ts);
    const stakeLeft = acc.energy + staked;
    const byBalance = stakeLeft + acc.balance / price;
    const byFeeLimit = feeLimit / price;
    const limit = byBalance < byFeeLimit ? byBalance : byFeeLimit;
    let used = call.energy;
    let result: string = call.revert ? "REVERT" : "SUCCESS";
    if (used > limit) {
      used = limit;
      result = "OUT_OF_ENERGY";
    }
    const fromStake = used < stakeLeft ? used : stakeLeft;
    const fromTest = fromStake < acc.energy ? fromStake : acc.energy;
    acc.energy -= fromTest;
    if (fromStake > fromTest) this.consumeEnergy(acc, fromStake - fromTest, ts);
    const energyFee = (used - fromStake) * price;
    acc.balance -= energyFee;
    if (result === "SUCCESS") call.apply();
    info.fee = Number(energyFee + netFee) || undefined;
    if (info.fee === undefined) delete info.fee;
    info.contract_address = this.contractHex;
    info.contractResult = [result === "SUCCESS" ? call.output : ""];
    info.receipt = {
      ...(fromStake > 0n ? { energy_usage: Number(fromStake) } : {}),
      ...(energyFee > 0n ? { energy_fee: Number(energyFee) } : {}),
      energy_usage_total: Number(used),
      ...(netFee > 0n ? { net_fee: Number(netFee) } : { net_usage: bytes }),
      result,
    };
    if (result === "SUCCESS") {
      if (call.log) info.log = [call.log];
    } else {
      info.result = "FAILED";
      info.resMessage = hexToUtf8Hex(result === "REVERT" ? "REVERT opcode executed" : "Not enough energy for 'SSTORE' executing");
    }
    return { tx, info, contractRet: result };
  }

  /** Energy an account's stakes give per window: (own + acquired) TRX × TotalEnergyLimit / TotalEnergyWeight. */
  energyLimit(a: Account): bigint {
    return energyLimitOf(a.frozenEnergy + a.acquired, this.params);
  }
  /** Energy usage at `ts`: what was used, recovered linearly over the window since the last use (in 3 s slots, as java-tron counts). */
  usageAt(a: Account, ts: number): bigint {
    return usageAt(a.energyUsage, a.latestConsumeTime, ts);
  }
  availableEnergy(a: Account, ts: number): bigint {
    const left = this.energyLimit(a) - this.usageAt(a, ts);
    return left > 0n ? left : 0n;
  }
  private consumeEnergy(a: Account, energy: bigint, ts: number): void {
    a.energyUsage = this.usageAt(a, ts) + energy;
    a.latestConsumeTime = ts;
  }
  /** Sun of `a`'s own stake it may delegate now: the share whose energy is in use stays (getcandelegatedmaxsize). */
  delegable(a: Account, ts: number): bigint {
    return delegableOf(a.frozenEnergy, a.acquired, this.usageAt(a, ts), this.params);
  }

  /** Validates a Stake 2.0 contract (java-tron's messages) and returns what applies it. */
  private validateStake(type: string, v: Record<string, any>, owner: string, acc: Account, state: ChainState, ts: number): () => void {
    const fail = (m: string): never => {
      throw new TxRejected("CONTRACT_VALIDATE_ERROR", m);
    };
    const resource = String(v.resource ?? "BANDWIDTH");
    if (type !== "WithdrawExpireUnfreezeContract" && resource !== "ENERGY") fail(`ResourceCode error, this node supports only ENERGY, got ${resource}`);
    const amountOf = (k: string) => {
      const raw = v[k];
      if (raw === undefined || raw === null || !/^-?\d+$/.test(String(raw))) return 0n;
      return BigInt(String(raw));
    };
    const withdrawExpired = () => {
      let sum = 0n;
      acc.unfrozen = acc.unfrozen.filter((u) => (u.expire <= ts ? ((sum += u.amount), false) : true));
      acc.balance += sum;
      return sum;
    };
    switch (type) {
      case "FreezeBalanceV2Contract": {
        const amount = amountOf("frozen_balance");
        if (amount <= 0n) fail("frozenBalance must be positive");
        if (amount < TRX) fail("frozenBalance must be greater than or equal to 1 TRX");
        if (amount > acc.balance) fail("frozenBalance must be less than or equal to accountBalance");
        return () => {
          acc.balance -= amount;
          acc.frozenEnergy += amount;
        };
      }
      case "UnfreezeBalanceV2Contract": {
        const amount = amountOf("unfreeze_balance");
        if (acc.frozenEnergy <= 0n) fail("no frozenBalance(Energy)");
        if (amount <= 0n || amount > acc.frozenEnergy) fail(`Invalid unfreeze_balance, [${amount}] is invalid`);
        if (acc.unfrozen.length >= 32) fail("Invalid unfreeze operation, unfreezing times is over limit");
        return () => {
          withdrawExpired();
          // The share of usage that goes with the unstaked TRX (java-tron keeps usage proportional).
          const total = acc.frozenEnergy + acc.acquired;
          acc.energyUsage = this.usageAt(acc, ts) - (this.usageAt(acc, ts) * amount) / total;
          acc.latestConsumeTime = ts;
          acc.frozenEnergy -= amount;
          acc.unfrozen.push({ amount, expire: ts + UNFREEZE_DELAY_MS });
        };
      }
      case "WithdrawExpireUnfreezeContract": {
        if (!acc.unfrozen.some((u) => u.expire <= ts)) fail("no unFreeze balance to withdraw ");
        return () => void withdrawExpired();
      }
      case "DelegateResourceContract": {
        const amount = amountOf("balance");
        const to = String(v.receiver_address ?? "").toLowerCase();
        if (amount < TRX) fail("delegateBalance must be greater than or equal to 1 TRX");
        if (to === owner) fail("receiverAddress must not be the same as ownerAddress");
        const recv = state.accounts.get(to);
        if (!recv) fail(`Account[${to}] not exists`);
        if (amount > this.delegable(acc, ts)) fail("delegateBalance must be less than or equal to available FreezeEnergyV2 balance");
        return () => {
          acc.frozenEnergy -= amount;
          acc.delegatedOut += amount;
          recv!.acquired += amount;
          const k = `${owner}:${to}`;
          state.delegations.set(k, (state.delegations.get(k) ?? 0n) + amount);
        };
      }
      case "UnDelegateResourceContract": {
        const amount = amountOf("balance");
        const to = String(v.receiver_address ?? "").toLowerCase();
        const k = `${owner}:${to}`;
        const have = state.delegations.get(k) ?? 0n;
        if (have === 0n) fail("delegated Resource does not exist");
        if (amount <= 0n) fail("unDelegateBalance must be more than 0 TRX");
        if (amount > have) fail(`insufficient delegatedFrozenBalance(Energy), request=${amount}, unfreezable=${have}`);
        return () => {
          const recv = state.accounts.get(to);
          if (recv) {
            // The receiver's usage of the returned share goes back to the owner (java-tron 4.7).
            const total = recv.frozenEnergy + recv.acquired;
            const usage = this.usageAt(recv, ts);
            const moved = total > 0n ? (usage * amount) / total : 0n;
            recv.energyUsage = usage - moved;
            recv.latestConsumeTime = ts;
            recv.acquired -= amount;
            if (moved > 0n) this.consumeEnergy(acc, moved, ts);
          }
          acc.delegatedOut -= amount;
          acc.frozenEnergy += amount;
          if (have === amount) state.delegations.delete(k);
          else state.delegations.set(k, have - amount);
        };
      }
    }
    return fail(`contract type ${type} is not supported by this node`);
  }

  /** The token contract: transfer, balanceOf, decimals. `apply` commits a transfer's effect. */
  call(state: ChainState, caller: string, data: string): { energy: bigint; revert: boolean; output: string; log?: TronLog; apply: () => void } {
    const d = data.replace(/^0x/, "").toLowerCase();
    const sel = d.slice(0, 8);
    const noop = () => {};
    if (sel === "313ce567") return { energy: ENERGY_READ, revert: false, output: word(BigInt(this.decimals)), apply: noop };
    if (sel === "70a08231") {
      const who = "41" + d.slice(8 + 24, 8 + 64);
      return { energy: ENERGY_READ, revert: false, output: word(state.usdt.get(who) ?? 0n), apply: noop };
    }
    if (sel === "a9059cbb" && d.length >= 8 + 128) {
      const to = "41" + d.slice(8 + 24, 8 + 64);
      const amount = BigInt("0x" + d.slice(8 + 64, 8 + 128));
      const have = state.usdt.get(caller) ?? 0n;
      if (have < amount) return { energy: ENERGY_REVERT, revert: true, output: "", apply: noop };
      const energy = (state.usdt.get(to) ?? 0n) > 0n ? ENERGY_EXISTING_HOLDER : ENERGY_NEW_HOLDER;
      return {
        energy,
        revert: false,
        output: word(1n),
        log: { address: this.contractHex.slice(2), topics: ["ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", word(BigInt("0x" + caller.slice(2))), word(BigInt("0x" + to.slice(2)))], data: word(amount) },
        apply: () => {
          state.usdt.set(caller, (state.usdt.get(caller) ?? 0n) - amount);
          state.usdt.set(to, (state.usdt.get(to) ?? 0n) + amount);
        },
      };
    }
    return { energy: ENERGY_REVERT, revert: true, output: "", apply: noop };
  }

  /** Mines `n` blocks; the first takes the pending transactions that are still valid. */
  mine(n = 1): Block {
    for (let i = 0; i < n; i++) {
      const parent = this.head;
      const ts = Math.max(parent.timestamp + 1, this.now());
      const number = parent.number + 1;
      let state = parent.state;
      const txs: Included[] = [];
      if (this.pending.length) {
        state = cloneState(parent.state);
        for (const tx of this.pending.splice(0)) {
          if (tx.raw_data.expiration <= ts || !this.taposOk(tx)) continue; // dropped
          const trial = cloneState(state);
          try {
            txs.push(this.execute(tx, trial, number, ts));
            state = trial;
          } catch {
            // No longer valid (e.g. the balance went to an earlier transaction): dropped.
          }
        }
      }
      this.blocks.push(this.makeBlock(number, parent.blockID, ts, txs, state));
    }
    return this.head;
  }

  /**
   * Replaces the last `depth` blocks with as many new ones (new ids). Their transactions are
   * dropped, or back in the pending pool with keepTxs. Solidified blocks cannot be reorganised.
   */
  reorg(depth: number, opts: { keepTxs?: boolean } = {}): void {
    if (depth < 1) return;
    if (this.head.number - depth + 1 <= this.solidNumber) throw new Error(`cannot reorganise solidified blocks (solid ${this.solidNumber}, head ${this.head.number})`);
    const cut = this.blocks.splice(this.blocks.length - depth, depth);
    const again = opts.keepTxs ? cut.flatMap((b) => b.txs.map((t) => t.tx)) : [];
    this.pending.splice(0, this.pending.length, ...again, ...this.pending);
    this.fork++;
    this.mine(depth);
  }

  /** Test set-up outside transactions (like anvil_setBalance): changes the head state. */
  setTrx(address: string, sun: bigint): void {
    const state = cloneState(this.head.state);
    const k = hex41(address);
    const a = state.accounts.get(k);
    if (a) a.balance = sun;
    else state.accounts.set(k, newAccount(sun, this.now()));
    this.head.state = state;
  }
  setEnergy(address: string, energy: bigint): void {
    const state = cloneState(this.head.state);
    const a = state.accounts.get(hex41(address));
    if (!a) throw new Error(`${address} is not activated`);
    a.energy = energy;
    this.head.state = state;
  }
  /** The head state's account of `address` (tests read stakes and delegations). */
  accountOf(address: string): Readonly<Account> | undefined {
    return this.head.state.accounts.get(hex41(address));
  }
  /** Sun `owner` delegates to `receiver` (head state). */
  delegated(owner: string, receiver: string): bigint {
    return this.head.state.delegations.get(`${hex41(owner)}:${hex41(receiver)}`) ?? 0n;
  }
  trx(address: string, solid = false): bigint {
    return (solid ? this.solid : this.head).state.accounts.get(hex41(address))?.balance ?? 0n;
  }
  activated(address: string): boolean {
    return this.head.state.accounts.has(hex41(address));
  }
  usdt(address: string, solid = false): bigint {
    return (solid ? this.solid : this.head).state.usdt.get(hex41(address)) ?? 0n;
  }
  /** Direct ledger change without a transfer log (for tests that fake state corruption). */
  setUsdt(address: string, amount: bigint): void {
    const state = cloneState(this.head.state);
    state.usdt.set(hex41(address), amount);
    this.head.state = state;
  }
}

/** The broadcast body could not be parsed into a transaction (java-tron answers {"Error": ...}). */
export class TronRejectedParse extends Error {}

// The sandbox TRON chain's resource model (DESIGN 21), so `make run` rehearses what mainnet
// costs and every `[chains.TRON.energy]` setting: TRX balances, activation (1 TRX paid by the
// sender of the first TRX to a new address), bandwidth (600 bytes free a day, else 1,000 sun a
// byte), energy for a TRC20 transfer (64,285 to a holder, 130,285 to a new one) taken from the
// sender's stake (own or delegated) and the rest burned at 100 sun each up to the fee limit
// (short: included, failed, fee burned), and Stake 2.0 for ENERGY (freeze, unfreeze, delegate,
// undelegate) with java-tron's arithmetic (resources.ts). The figures are mainnet's; the network
// totals give 10 energy per staked TRX, as the TRON test node does.
// Simplified: unstaked TRX comes back at once (mainnet: after 14 days); a sandbox reorg takes
// transfers back, not fees or stake changes.
import type { SandboxChain } from "../sandbox/chain";
import { SandboxRefusal, type SandboxLedger, type SandboxRules, type SandboxTx, type SandboxView } from "../sandbox/rules";
import type { TronChainApi, TronChainParams, TronEnergyConfig, TronTxMeta } from "./adapter";
import type { StakeKind } from "./tx";
import type { SignedTransfer, TxCost } from "../types";
import { delegableOf, ENERGY_EXISTING_HOLDER, ENERGY_NEW_HOLDER, energyLimitOf, usageAt, type EnergyTotals } from "./resources";

const TRX = 1_000_000n;
const DAY_MS = 86_400_000;
/** Mainnet chain parameters (getchainparameters). */
export const SANDBOX_TRON_PARAMS: TronChainParams & EnergyTotals & { freeBandwidth: number } = {
  energyFee: 100n,
  transactionFee: 1_000n,
  createAccountFee: 1_000_000n,
  maxFeeLimit: 15_000_000_000n,
  freeBandwidth: 600,
  totalEnergyLimit: 180_000_000_000n,
  totalEnergyWeight: 18_000_000_000n,
};
const P = SANDBOX_TRON_PARAMS;
/** Bytes a transaction takes (signature included), as the rpc adapter's signer counts them. */
const BANDWIDTH = { TRC20: 345, TRX: 268, STAKE: 280 } as const;
/** The fee limit's margin over the estimated energy, as the rpc adapter signs (12/10). */
const margin = (e: bigint) => (e * 12n + 9n) / 10n;
const LIFETIME_MS = 3_600_000;

/** What the sandbox keeps of a TRON account beyond its TRX balance (decimal strings, sun). */
interface Account {
  frozen: string;
  delegatedOut: string;
  acquired: string;
  usage: string;
  usageTime: number;
  netDay: number;
  netUsed: number;
  /** Sun delegated to each receiver. */
  delegations: Record<string, string>;
}
const fresh = (): Account => ({ frozen: "0", delegatedOut: "0", acquired: "0", usage: "0", usageTime: 0, netDay: 0, netUsed: 0, delegations: {} });
const n = (s: string | undefined) => BigInt(s ?? "0");

/** An address is activated once it received TRX (or acted): it has state or a balance. */
const activated = async (v: SandboxView, a: string) => await v.account<Account>(a) !== undefined || await v.balance(a, v.native) > 0n;
const energyLeft = (a: Account, ts: number) => {
  const left = energyLimitOf(n(a.frozen) + n(a.acquired), P) - usageAt(n(a.usage), a.usageTime, ts);
  return left > 0n ? left : 0n;
};
const consume = (a: Account, energy: bigint, ts: number) => {
  a.usage = (usageAt(n(a.usage), a.usageTime, ts) + energy).toString();
  a.usageTime = ts;
};
const transferEnergy = async (v: SandboxView, tx: SandboxTx) => (await v.balance(tx.to, tx.asset) > 0n ? ENERGY_EXISTING_HOLDER : ENERGY_NEW_HOLDER);

export const tronSandboxRules: SandboxRules = {
  async sign(v, tx) {
    const base = { from: tx.from, to: tx.to, amount: tx.amount.toString(), expiration: v.now + LIFETIME_MS, refBlock: 0 };
    if (tx.op) return { kind: "STAKE", op: tx.op, ...base, feeLimit: "0", bandwidth: BANDWIDTH.STAKE };
    if (tx.asset === v.native) return { kind: "TRX", ...base, feeLimit: "0", bandwidth: BANDWIDTH.TRX };
    const energy = margin(await transferEnergy(v, tx));
    const feeLimit = energy * P.energyFee < P.maxFeeLimit ? energy * P.energyFee : P.maxFeeLimit;
    return { kind: "TRC20", ...base, token: tx.asset, feeLimit: feeLimit.toString(), energy: energy.toString(), bandwidth: BANDWIDTH.TRC20 };
  },

  async execute(l, tx, fields) {
    const ts = l.now;
    if (!await activated(l, tx.from)) throw new SandboxRefusal(`CONTRACT_VALIDATE_ERROR: Validate contract error, no OwnerAccount ${tx.from}`, false);
    const acc = await l.account<Account>(tx.from) ?? fresh();
    const bytes = Number(fields.bandwidth ?? BANDWIDTH.TRC20);
    // Bandwidth: the day's free allowance first, else burned (charged once the transaction is valid).
    const day = Math.floor(ts / DAY_MS);
    if (acc.netDay !== day) Object.assign(acc, { netDay: day, netUsed: 0 });
    const free = acc.netUsed + bytes <= P.freeBandwidth;
    const netFee = free ? 0n : BigInt(bytes) * P.transactionFee;
    const balance = await l.balance(tx.from, l.native);
    const payNet = async () => {
      if (free) acc.netUsed += bytes;
      await l.adjust(tx.from, l.native, -netFee);
    };
    const done = async (success: boolean, cost: Omit<TxCost, "bandwidth">) => {
      await l.setAccount(tx.from, acc);
      return { success, cost: { ...cost, bandwidth: BigInt(bytes) } };
    };

    if (tx.op) {
      if (balance < netFee) throw new SandboxRefusal("BANDWITH_ERROR: Account resource insufficient error.", false);
      await stake(l, tx, acc, ts);
      await payNet();
      return await done(true, { nativeBurned: netFee });
    }

    if (tx.asset === l.native) {
      const creating = !await activated(l, tx.to);
      const createFee = creating ? P.createAccountFee : 0n;
      if (tx.to === tx.from) throw new SandboxRefusal("CONTRACT_VALIDATE_ERROR: Validate TransferContract error, Cannot transfer TRX to yourself.");
      if (balance < tx.amount + createFee + netFee) throw new SandboxRefusal("CONTRACT_VALIDATE_ERROR: Validate TransferContract error, balance is not sufficient.", false);
      await payNet();
      await l.adjust(tx.from, l.native, -createFee);
      if (creating) await l.setAccount(tx.to, fresh());
      return await done(true, { nativeBurned: netFee + createFee });
    }

    // A TRC20 transfer: java-tron's limit is min(stake left + what the balance can burn, fee_limit / price).
    const feeLimit = n(fields.feeLimit as string | undefined);
    if (feeLimit <= 0n || feeLimit > P.maxFeeLimit) throw new SandboxRefusal(`CONTRACT_VALIDATE_ERROR: feeLimit must be >= 0 and <= ${P.maxFeeLimit}`);
    if (balance < netFee) throw new SandboxRefusal("BANDWITH_ERROR: Account resource insufficient error.", false);
    await payNet();
    const stakeLeft = energyLeft(acc, ts);
    const byBalance = stakeLeft + (balance - netFee) / P.energyFee;
    const byFeeLimit = feeLimit / P.energyFee;
    const limit = byBalance < byFeeLimit ? byBalance : byFeeLimit;
    const need = await transferEnergy(l, tx);
    const used = need > limit ? limit : need;
    const fromStake = used < stakeLeft ? used : stakeLeft;
    if (fromStake > 0n) consume(acc, fromStake, ts);
    const energyFee = (used - fromStake) * P.energyFee;
    await l.adjust(tx.from, l.native, -energyFee);
    // Short of energy: OUT_OF_ENERGY, included and failed, its fee burned.
    return await done(need <= limit, { nativeBurned: energyFee + netFee, energyDelegated: fromStake, energyBurned: used - fromStake });
  },
};

/** Stake 2.0 for ENERGY, java-tron's checks and messages (CONTRACT_VALIDATE_ERROR: permanent). */
async function stake(l: SandboxLedger, tx: SandboxTx, acc: Account, ts: number): Promise<void> {
  const fail = (m: string): never => {
    throw new SandboxRefusal(`CONTRACT_VALIDATE_ERROR: ${m}`);
  };
  const amount = tx.amount;
  const op = tx.op as StakeKind;
  switch (op) {
    case "freeze":
      if (amount < TRX) fail("frozenBalance must be greater than or equal to 1 TRX");
      if (amount > await l.balance(tx.from, l.native)) fail("frozenBalance must be less than or equal to accountBalance");
      await l.adjust(tx.from, l.native, -amount);
      acc.frozen = (n(acc.frozen) + amount).toString();
      return;
    case "unfreeze": {
      const frozen = n(acc.frozen);
      if (frozen <= 0n) fail("no frozenBalance(Energy)");
      if (amount <= 0n || amount > frozen) fail(`Invalid unfreeze_balance, [${amount}] is invalid`);
      // The share of usage that goes with the unstaked TRX (java-tron keeps usage proportional).
      const usage = usageAt(n(acc.usage), acc.usageTime, ts);
      acc.usage = (usage - (usage * amount) / (frozen + n(acc.acquired))).toString();
      acc.usageTime = ts;
      acc.frozen = (frozen - amount).toString();
      await l.adjust(tx.from, l.native, amount); // at once in the sandbox (mainnet: withdrawable after 14 days)
      return;
    }
    case "delegate": {
      if (amount < TRX) fail("delegateBalance must be greater than or equal to 1 TRX");
      if (tx.to === tx.from) fail("receiverAddress must not be the same as ownerAddress");
      if (!await activated(l, tx.to)) fail(`Account[${tx.to}] not exists`);
      if (amount > delegable(acc, ts)) fail("delegateBalance must be less than or equal to available FreezeEnergyV2 balance");
      const recv = await l.account<Account>(tx.to) ?? fresh();
      acc.frozen = (n(acc.frozen) - amount).toString();
      acc.delegatedOut = (n(acc.delegatedOut) + amount).toString();
      acc.delegations[tx.to] = (n(acc.delegations[tx.to]) + amount).toString();
      recv.acquired = (n(recv.acquired) + amount).toString();
      await l.setAccount(tx.to, recv);
      return;
    }
    case "undelegate": {
      const have = n(acc.delegations[tx.to]);
      if (have === 0n) fail("delegated Resource does not exist");
      if (amount <= 0n) fail("unDelegateBalance must be more than 0 TRX");
      if (amount > have) fail(`insufficient delegatedFrozenBalance(Energy), request=${amount}, unfreezable=${have}`);
      const recv = await l.account<Account>(tx.to);
      if (recv) {
        // The receiver's usage of the returned share goes back to the owner (java-tron 4.7).
        const total = n(recv.frozen) + n(recv.acquired);
        const usage = usageAt(n(recv.usage), recv.usageTime, ts);
        const moved = total > 0n ? (usage * amount) / total : 0n;
        recv.usage = (usage - moved).toString();
        recv.usageTime = ts;
        recv.acquired = (n(recv.acquired) - amount).toString();
        if (moved > 0n) consume(acc, moved, ts);
        await l.setAccount(tx.to, recv);
      }
      acc.delegatedOut = (n(acc.delegatedOut) - amount).toString();
      acc.frozen = (n(acc.frozen) + amount).toString();
      if (have === amount) delete acc.delegations[tx.to];
      else acc.delegations[tx.to] = (have - amount).toString();
      return;
    }
    default:
      fail(`contract ${String(op)} is not supported by the sandbox`);
  }
}
const delegable = (a: Account, ts: number) => delegableOf(n(a.frozen), n(a.acquired), usageAt(n(a.usage), a.usageTime, ts), P);

/**
 * The sandbox TRON chain as the payout steps, energy steps and staking control see a TRON chain
 * (TronChainApi): the sandbox chain's transfers and state, and its resources read from the ledger.
 * Its prototype is the sandbox chain, so every ChainAdapter method is the chain's own.
 */
export function tronSandboxApi(chain: SandboxChain, energy: TronEnergyConfig | undefined): TronChainApi {
  const read = async <T>(fn: (v: SandboxView) => T) => await chain.read(fn);
  const accountOf = async (v: SandboxView, a: string) => await v.account<Account>(a) ?? fresh();
  const api: Omit<TronChainApi, keyof SandboxChain> & Pick<TronChainApi, "signNativeTransfer" | "txCost"> = {
    energy: energy ?? { mode: "burn", fallback: "burn" },
    async energyOf(address) {
      return await read(async (v) => {
        if (!await activated(v, address)) return { limit: 0n, used: 0n, available: 0n, totalLimit: 0n, totalWeight: 0n };
        const a = await accountOf(v, address);
        const limit = energyLimitOf(n(a.frozen) + n(a.acquired), P);
        const used = usageAt(n(a.usage), a.usageTime, v.now);
        return { limit, used, available: limit > used ? limit - used : 0n, totalLimit: P.totalEnergyLimit, totalWeight: P.totalEnergyWeight };
      });
    },
    async stakeOf(address) {
      return await read(async (v) => {
        const a = await accountOf(v, address);
        return { balance: await v.balance(address, v.native), frozen: n(a.frozen), delegated: n(a.delegatedOut), unfreezing: 0n };
      });
    },
    canDelegate: async (owner) => await read(async (v) => delegable(await accountOf(v, owner), v.now)),
    delegatedTo: async (owner, receiver) => await read(async (v) => n((await accountOf(v, owner)).delegations[receiver])),
    async signStake(req) {
      return await chain.sign({ asset: chain.native, from: req.from, to: req.to ?? req.from, amount: req.amount, op: req.op }, req.privateKey);
    },
    async receipt(txHash) {
      const c = await chain.costOf(txHash);
      if (!c) return null;
      const netFee = c.nativeBurned - (c.energyBurned ?? 0n) * P.energyFee;
      return {
        fee: c.nativeBurned,
        energyFromStake: c.energyDelegated ?? 0n,
        energyFee: (c.energyBurned ?? 0n) * P.energyFee,
        energyTotal: (c.energyDelegated ?? 0n) + (c.energyBurned ?? 0n),
        bandwidth: c.bandwidth ?? 0n,
        netFee,
      };
    },
    txCost: async (tx: SignedTransfer) => await chain.costOf(tx.txHash),
    account: async (address) => await read(async (v) => ({ activated: await activated(v, address), balance: await v.balance(address, v.native) })),
    chainParams: async () => P,
    signNativeTransfer: (req) => chain.signNativeTransfer(req),
    async trxNeeded(tx) {
      const m = tx.meta as Partial<TronTxMeta>;
      return n(m.feeLimit) + BigInt(m.bandwidth ?? 0) * P.transactionFee + (m.kind === "TRX" ? n(m.amount) : 0n);
    },
  };
  return Object.assign(Object.create(chain) as SandboxChain, api) as unknown as TronChainApi;
}

// TRON's resources and costs: token and TRX balances, energy and Stake 2.0 figures of an account,
// the energy a TRC20 transfer needs and its fee limit, the TRX a stored transaction needs, and
// what a mined one cost (fee, energy from stake or burned, bandwidth).
import type { SignedTransfer, TokenSymbol, TxCost } from "../types";
import { addressWord, toHex41 } from "./tx";
import { constantFailure, type TronNode } from "./node";
import type { TronAccount, TronEnergy, TronReceipt, TronStake, TronTxMeta } from "./types";

/** Energy of a USDT transfer to a new holder (the shared contract's docs/chains.md, ../shared/docs/ beside this repository), used when the node gives no estimate. */
const FALLBACK_TRANSFER_ENERGY = 130_285n;
/** Fee limit = estimated energy × 12/10 × energy price: the estimate is for the state it ran on. */
const ENERGY_MARGIN_NUM = 12n;
const ENERGY_MARGIN_DEN = 10n;

/** The energy a transfer is signed for (the simulation's, else the fallback, with the margin) and its fee limit in sun (capped by the chain's maximum). */
export async function energyAndFeeLimit(node: TronNode, energyUsed: number | undefined): Promise<{ energy: bigint; feeLimit: bigint }> {
  const used = energyUsed !== undefined && energyUsed > 0 ? BigInt(energyUsed) : FALLBACK_TRANSFER_ENERGY;
  const energy = (used * ENERGY_MARGIN_NUM + ENERGY_MARGIN_DEN - 1n) / ENERGY_MARGIN_DEN;
  const p = await node.chainParams();
  let feeLimit = energy * p.energyFee;
  if (feeLimit > p.maxFeeLimit) feeLimit = p.maxFeeLimit;
  return { energy, feeLimit };
}

export async function tokenBalance(node: TronNode, address: string, symbol: TokenSymbol): Promise<bigint> {
  const t = node.token(symbol);
  const r = await node.constant(t.contract, address, "balanceOf(address)", addressWord(address));
  const failure = constantFailure(r);
  if (failure) throw new Error(`TRON ${symbol} balanceOf failed: ${failure}`);
  const out = r.constant_result?.[0];
  return out ? BigInt("0x" + out) : 0n;
}

export async function accountOf(node: TronNode, address: string): Promise<TronAccount> {
  const a = await node.rpc.post<{ address?: string; balance?: number }>("wallet/getaccount", { address: toHex41(address) });
  if (!a?.address) return { activated: false, balance: 0n };
  return { activated: true, balance: BigInt(a.balance ?? 0) };
}

export async function energyOf(node: TronNode, address: string): Promise<TronEnergy> {
  const r = await node.rpc.post<{ EnergyLimit?: number; EnergyUsed?: number; TotalEnergyLimit?: number; TotalEnergyWeight?: number }>("wallet/getaccountresource", { address: toHex41(address) });
  const limit = BigInt(r?.EnergyLimit ?? 0);
  const used = BigInt(r?.EnergyUsed ?? 0);
  return { limit, used, available: limit > used ? limit - used : 0n, totalLimit: BigInt(r?.TotalEnergyLimit ?? 0), totalWeight: BigInt(r?.TotalEnergyWeight ?? 0) };
}

export async function stakeOf(node: TronNode, address: string): Promise<TronStake> {
  type Acc = {
    balance?: number;
    frozenV2?: Array<{ type?: string; amount?: number }>;
    unfrozenV2?: Array<{ type?: string; unfreeze_amount?: number }>;
    account_resource?: { delegated_frozenV2_balance_for_energy?: number };
  };
  const a = await node.rpc.post<Acc>("wallet/getaccount", { address: toHex41(address) });
  const energy = (x: { type?: string }) => x.type === "ENERGY";
  return {
    balance: BigInt(a?.balance ?? 0),
    frozen: BigInt(a?.frozenV2?.find(energy)?.amount ?? 0),
    delegated: BigInt(a?.account_resource?.delegated_frozenV2_balance_for_energy ?? 0),
    unfreezing: (a?.unfrozenV2 ?? []).filter(energy).reduce((s, u) => s + BigInt(u.unfreeze_amount ?? 0), 0n),
  };
}

/** Sun of its stake `owner` may delegate now (getcandelegatedmaxsize). */
export async function canDelegate(node: TronNode, owner: string): Promise<bigint> {
  const r = await node.rpc.post<{ max_size?: number }>("wallet/getcandelegatedmaxsize", { owner_address: toHex41(owner), type: 1 });
  return BigInt(r?.max_size ?? 0);
}

/** Sun `owner` delegates to `receiver` now (getdelegatedresourcev2). */
export async function delegatedTo(node: TronNode, owner: string, receiver: string): Promise<bigint> {
  const r = await node.rpc.post<{ delegatedResource?: Array<{ frozen_balance_for_energy?: number }> }>("wallet/getdelegatedresourcev2", { fromAddress: toHex41(owner), toAddress: toHex41(receiver) });
  return (r?.delegatedResource ?? []).reduce((s, d) => s + BigInt(d.frozen_balance_for_energy ?? 0), 0n);
}

/** The cost of a mined transaction; null while it is not in a block. */
export async function receiptOf(node: TronNode, txHash: string): Promise<TronReceipt | null> {
  const info = await node.infoOf(txHash);
  if (!info) return null;
  const r = info.receipt ?? {};
  const n = (v: number | undefined) => BigInt(v ?? 0);
  return {
    fee: n(info.fee),
    energyFromStake: n(r.energy_usage),
    energyFee: n(r.energy_fee),
    energyTotal: n(r.energy_usage_total),
    bandwidth: n(r.net_usage) + (r.net_fee ? n(r.net_fee) / (await node.chainParams()).transactionFee : 0n),
    netFee: n(r.net_fee),
  };
}

export async function txCost(node: TronNode, tx: SignedTransfer): Promise<TxCost | null> {
  const r = await receiptOf(node, tx.txHash);
  if (!r) return null;
  return { nativeBurned: r.fee, energyDelegated: r.energyFromStake, energyBurned: r.energyTotal - r.energyFromStake, bandwidth: r.bandwidth };
}

/** Sun the sender of a stored transaction must hold to send it: fee limit + bandwidth burn. */
export async function trxNeeded(node: TronNode, tx: SignedTransfer): Promise<bigint> {
  const m = tx.meta as Partial<TronTxMeta>;
  const p = await node.chainParams();
  return BigInt(m.feeLimit ?? "0") + BigInt(m.bandwidth ?? 0) * p.transactionFee + (m.kind === "TRX" ? BigInt(m.amount ?? "0") : 0n);
}

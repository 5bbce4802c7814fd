// Estimated network fee of a token transfer, for previews (batch payouts,
// collection). An estimate only: the payout engine computes the real fee limit
// when it signs, and gas top-ups follow that. Each chain module says how its
// fee is estimated (`ChainBundle.estimateTransferFee`, chains/factory.ts).
import { chainModule } from "../chains/registry";
import { chainBundle } from "../chains/factory";
import type { ChainAdapter, TokenSymbol } from "../chains/types";
import { fromBaseUnits } from "../lib/money";

export interface GasEstimate {
  chain: string;
  /** The chain's native coin (BNB, TRX, SOL). */
  native: string;
  transfers: number;
  /** Native base units per transfer and in all. */
  perTransfer: string;
  total: string;
  /** Human-readable total, e.g. "0.0042 BNB". */
  display: string;
  /** Why it is rough or zero (sandbox, node unavailable). */
  note?: string;
}

async function perTransfer(adapter: ChainAdapter, sample: { from: string; to: string; token: TokenSymbol; amount: bigint }): Promise<{ fee: bigint; note?: string }> {
  if (adapter.mode === "sandbox") return { fee: 0n, note: "sandbox chain: no gas" };
  try {
    const e = await chainBundle(adapter).estimateTransferFee?.(sample);
    if (e) return e;
  } catch (e) {
    return { fee: 0n, note: `no estimate: ${String((e as Error).message ?? e).slice(0, 120)}` };
  }
  return { fee: 0n, note: "no estimate for this chain" };
}

/** One estimate per chain (a sample transfer), times the number of transfers. */
export async function estimateGas(adapter: ChainAdapter, transfers: number, sample: { from: string; to: string; token: TokenSymbol; amount: bigint }): Promise<GasEstimate> {
  const n = chainModule(adapter.chain).native;
  const { fee, note } = await perTransfer(adapter, sample);
  const total = fee * BigInt(transfers);
  return {
    chain: adapter.chain,
    native: n.symbol,
    transfers,
    perTransfer: fee.toString(),
    total: total.toString(),
    display: `${fromBaseUnits(total, n.decimals, 0)} ${n.symbol}`,
    ...(note ? { note } : {}),
  };
}

// Estimated network fee of a token transfer, for previews (batch payouts,
// collection). An estimate only: the payout engine computes the real fee limit
// when it signs, and gas top-ups follow that.
import type { ChainAdapter, TokenSymbol } from "../chains/types";
import { fromBaseUnits } from "../lib/money";

export interface GasEstimate {
  chain: string;
  /** BNB, TRX or SOL. */
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

const NATIVE: Record<string, { symbol: string; decimals: number }> = {
  BSC: { symbol: "BNB", decimals: 18 },
  TRON: { symbol: "TRX", decimals: 6 },
  SOL: { symbol: "SOL", decimals: 9 },
};

/** TRC20 transfer energy to an existing holder, with the 20 % margin the signer adds (docs/chains.md). */
const TRON_TRANSFER_ENERGY = 65_000n * 12n / 10n;
const TRON_TRANSFER_BANDWIDTH = 345n;
/** Solana: one signature (fee payer); rent for a new token account is extra and paid by the gas wallet. */
const SOL_SIGNATURE_FEE = 5_000n;

type BscLike = { estimateTransferFee(from: string, to: string, token: TokenSymbol, amount: bigint): Promise<bigint> };
type TronLike = { chainParams(): Promise<{ energyFee: bigint; transactionFee: bigint }> };

async function perTransfer(adapter: ChainAdapter, sample: { from: string; to: string; token: TokenSymbol; amount: bigint }): Promise<{ fee: bigint; note?: string }> {
  if (adapter.mode === "sandbox") return { fee: 0n, note: "sandbox chain: no gas" };
  try {
    if (adapter.chain === "BSC" && "estimateTransferFee" in adapter) return { fee: await (adapter as unknown as BscLike).estimateTransferFee(sample.from, sample.to, sample.token, sample.amount) };
    if (adapter.chain === "TRON" && "chainParams" in adapter) {
      const p = await (adapter as unknown as TronLike).chainParams();
      return { fee: TRON_TRANSFER_ENERGY * p.energyFee + TRON_TRANSFER_BANDWIDTH * p.transactionFee };
    }
    if (adapter.chain === "SOL") return { fee: SOL_SIGNATURE_FEE, note: "plus rent when a recipient has no USDC account yet" };
  } catch (e) {
    return { fee: 0n, note: `no estimate: ${String((e as Error).message ?? e).slice(0, 120)}` };
  }
  return { fee: 0n, note: "no estimate for this chain" };
}

/** One estimate per chain (a sample transfer), times the number of transfers. */
export async function estimateGas(adapter: ChainAdapter, transfers: number, sample: { from: string; to: string; token: TokenSymbol; amount: bigint }): Promise<GasEstimate> {
  const n = NATIVE[adapter.chain]!;
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

// TRON's resource arithmetic (Stake 2.0 energy), as java-tron computes it: shared by the
// sandbox TRON chain (sandbox.ts) and the TRON test node (src/testing/tron-chain.ts), so both
// charge a transfer the same. An account's energy limit is its staked plus acquired-delegated
// TRX × TotalEnergyLimit / TotalEnergyWeight; usage recovers linearly over a 24 h window
// counted in 3 s slots; a stake may delegate only the share whose energy is not in use.

/** Energy usage recovers over this window (28,800 blocks of 3 s). */
export const ENERGY_WINDOW_MS = 86_400_000;
const SLOT_MS = 3_000;
const TRX = 1_000_000n;

/** Energy of a USDT transfer to an address that holds USDT / that does not (mainnet figures: the shared contract's docs/chains.md, ../shared/docs/ beside this repository). */
export const ENERGY_EXISTING_HOLDER = 64_285n;
export const ENERGY_NEW_HOLDER = 130_285n;

/** The network's energy totals (getaccountresource's TotalEnergyLimit / TotalEnergyWeight). */
export interface EnergyTotals {
  totalEnergyLimit: bigint;
  totalEnergyWeight: bigint;
}

/** Energy per window of `stakedSun` (own stake held plus acquired delegations). */
export function energyLimitOf(stakedSun: bigint, n: EnergyTotals): bigint {
  return ((stakedSun / TRX) * n.totalEnergyLimit) / n.totalEnergyWeight;
}

/** Energy usage at `ts` of `usage` last consumed at `since`, recovered linearly over the window. */
export function usageAt(usage: bigint, since: number, ts: number): bigint {
  if (usage === 0n) return 0n;
  const window = ENERGY_WINDOW_MS / SLOT_MS;
  const dt = Math.floor(ts / SLOT_MS) - Math.floor(since / SLOT_MS);
  if (dt >= window) return 0n;
  if (dt <= 0) return usage;
  return (usage * BigInt(window - dt)) / BigInt(window);
}

/** Sun of its own stake an account may delegate now: the share whose energy is in use stays (getcandelegatedmaxsize). */
export function delegableOf(own: bigint, acquired: bigint, usageNow: bigint, n: EnergyTotals): bigint {
  if (own <= 0n) return 0n;
  const ownUsage = (usageNow * own) / (own + acquired);
  const usedSun = (ownUsage * TRX * n.totalEnergyWeight + n.totalEnergyLimit - 1n) / n.totalEnergyLimit;
  return own > usedSun ? own - usedSun : 0n;
}

// Balances kept by triggers as exact sums of TEXT base-unit amounts (which exceed
// 64 bits at 18 decimals): balance = hi * 10^12 + lo, 0 <= lo < 10^12
// (migrations/0150_growth.sql). Read the columns with safeIntegers.
const LO = 10n ** 12n;

export function fromHiLo(hi: bigint | number, lo: bigint | number): bigint {
  return BigInt(hi) * LO + BigInt(lo);
}

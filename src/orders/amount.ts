// Amounts as merchants see them: base units (stored as text) to a decimal string.
import { fromBaseUnits } from "../lib/money";

export function amountOf(row: { decimals: number }, units: string | null): string | null {
  return units === null ? null : fromBaseUnits(BigInt(units), row.decimals, 6);
}

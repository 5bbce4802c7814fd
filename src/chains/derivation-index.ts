/**
 * Address indices are stored per merchant and must map to one key forever.
 * Limit them to non-hardened BIP-32 range (0 .. 2^31-1): TRON/BSC use i as a
 * normal child and SOL as i' (adds 2^31), so anything larger has no meaning.
 */
export const MAX_DERIVATION_INDEX = 0x7fffffff;

export function assertDerivationIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index > MAX_DERIVATION_INDEX) {
    throw new Error(`derivation index must be an integer in 0..${MAX_DERIVATION_INDEX}, got ${index}`);
  }
}

/** Each chain's gas wallet (fees, top-ups) is HD index 0; merchant addresses count up from 1. */
export const GAS_WALLET_INDEX = 0;

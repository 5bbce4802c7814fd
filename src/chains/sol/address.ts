import { HDKey } from "micro-ed25519-hdkey";
import { base58 } from "@scure/base";
import { ed25519 } from "@noble/curves/ed25519.js";
import { concatBytes, randomBytes } from "@noble/hashes/utils.js";
import type { DerivedKey } from "../types";
import { assertDerivationIndex } from "../derivation-index";

/**
 * Solana HD path m/44'/501'/i'/0' (SLIP-0010 ed25519, hardened only; Phantom /
 * Solflare / `solana-keygen --derivation-path` layout).
 *
 * `privateKey` is the 32-byte ed25519 seed (what SLIP-0010 yields), not the
 * 64-byte "secret key" web3.js uses; turn it into that with solKeypairBytes().
 */
export function deriveSolKey(seed: Uint8Array, index: number): DerivedKey {
  assertDerivationIndex(index);
  const node = HDKey.fromMasterSeed(seed).derive(`m/44'/501'/${index}'/0'`);
  const privateKey = Uint8Array.from(node.privateKey);
  return { address: base58.encode(ed25519.getPublicKey(privateKey)), privateKey };
}

/** 64-byte secret key (seed || public key) as Keypair.fromSecretKey accepts it. */
export function solKeypairBytes(privateKey: Uint8Array): Uint8Array {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new Error("Solana private key must be the 32-byte ed25519 seed");
  }
  return concatBytes(privateKey, ed25519.getPublicKey(privateKey));
}

function decode32(s: string): Uint8Array | null {
  if (typeof s !== "string" || s.length === 0) return null;
  try {
    const bytes = base58.decode(s);
    return bytes.length === 32 ? bytes : null;
  } catch {
    return null; // non-base58 characters (0, O, I, l, whitespace...)
  }
}

/**
 * Base58 that decodes to exactly 32 bytes. Not required to be on the curve:
 * program-derived addresses (token accounts owned by PDAs) are valid recipients.
 */
export function isSolAddress(s: string): boolean {
  return decode32(s) !== null;
}

/** Throws on invalid input; base58 is canonical, so this returns the input re-encoded. */
export function normalizeSolAddress(s: string): string {
  const bytes = decode32(s);
  if (!bytes) throw new Error(`invalid Solana address: ${JSON.stringify(s)}`);
  return base58.encode(bytes);
}

/** A valid address whose key is discarded (sandbox payer): a real ed25519 point, like a wallet address. */
export function randomSolAddress(): string {
  return base58.encode(ed25519.getPublicKey(randomBytes(32)));
}

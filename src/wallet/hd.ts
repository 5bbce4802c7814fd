// Chain-dispatching HD wallet: one BIP-39 mnemonic, per-chain paths (DESIGN 9).
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { createBase58check, base58 } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex, concatBytes, randomBytes } from "@noble/hashes/utils.js";
import { getAddress } from "viem";
import type { ChainCode, DerivedKey } from "../chains/types";
import { deriveBscKey, isBscAddress, normalizeBscAddress } from "../chains/bsc/address";
import { deriveTronKey, isTronAddress, normalizeTronAddress } from "../chains/tron/address";
import { deriveSolKey, isSolAddress, normalizeSolAddress } from "../chains/sol/address";
import { assertDerivationIndex } from "../chains/derivation-index";

/** 24 English words (256 bits of entropy). */
export function generateMnemonic(): string {
  return bip39Generate(wordlist, 256);
}

// Pasted phrases often carry stray spaces or newlines; the seed is defined on
// the single-space form, which is what every wallet derives from.
function canonicalMnemonic(m: string): string {
  return typeof m === "string" ? m.trim().split(/\s+/).join(" ") : "";
}

export function isValidMnemonic(m: string): boolean {
  return validateMnemonic(canonicalMnemonic(m), wordlist);
}

/** BIP-39 seed (64 bytes, empty passphrase). Throws on an invalid mnemonic rather than deriving from a typo. */
export function mnemonicToSeed(m: string): Uint8Array {
  const c = canonicalMnemonic(m);
  if (!validateMnemonic(c, wordlist)) throw new Error("invalid BIP-39 mnemonic");
  return mnemonicToSeedSync(c);
}

export function deriveKey(chain: ChainCode, seed: Uint8Array, index: number): DerivedKey {
  assertDerivationIndex(index);
  switch (chain) {
    case "TRON":
      return deriveTronKey(seed, index);
    case "BSC":
      return deriveBscKey(seed, index);
    case "SOL":
      return deriveSolKey(seed, index);
    default:
      throw new Error(`unknown chain: ${String(chain)}`);
  }
}

export function isValidAddress(chain: ChainCode, s: string): boolean {
  switch (chain) {
    case "TRON":
      return isTronAddress(s);
    case "BSC":
      return isBscAddress(s);
    case "SOL":
      return isSolAddress(s);
    default:
      return false;
  }
}

/** Canonical stored/compared form; throws on invalid (a bad EIP-55 checksum is invalid, not "fixed"). */
export function normalizeAddress(chain: ChainCode, s: string): string {
  if (!isValidAddress(chain, s)) throw new Error(`invalid ${String(chain)} address: ${JSON.stringify(s)}`);
  switch (chain) {
    case "TRON":
      return normalizeTronAddress(s);
    case "BSC":
      return normalizeBscAddress(s);
    case "SOL":
      return normalizeSolAddress(s);
  }
  throw new Error(`unknown chain: ${String(chain)}`);
}

const tronB58c = createBase58check(sha256);

/** A valid address whose key is discarded (sandbox payer). SOL is a real ed25519 point, like a wallet address. */
export function randomAddress(chain: ChainCode): string {
  switch (chain) {
    case "TRON":
      return tronB58c.encode(concatBytes(new Uint8Array([0x41]), randomBytes(20)));
    case "BSC":
      return getAddress("0x" + bytesToHex(randomBytes(20)));
    case "SOL":
      return base58.encode(ed25519.getPublicKey(randomBytes(32)));
    default:
      throw new Error(`unknown chain: ${String(chain)}`);
  }
}

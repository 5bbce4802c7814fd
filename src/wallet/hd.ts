// HD wallet: one BIP-39 mnemonic; each chain module owns its path and address codec (DESIGN 9).
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import type { ChainCode, DerivedKey } from "../chains/types";
import { chainModule, hasChainModule } from "../chains/registry";
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
  return chainModule(chain).deriveKey(seed, index);
}

export function isValidAddress(chain: ChainCode, s: string): boolean {
  return hasChainModule(chain) && chainModule(chain).address.isValid(s);
}

/** Canonical stored/compared form; throws on invalid (a bad EIP-55 checksum is invalid, not "fixed"). */
export function normalizeAddress(chain: ChainCode, s: string): string {
  if (!isValidAddress(chain, s)) throw new Error(`invalid ${String(chain)} address: ${JSON.stringify(s)}`);
  return chainModule(chain).address.normalize(s);
}

/** A valid address whose key is discarded (sandbox payer). SOL is a real ed25519 point, like a wallet address. */
export function randomAddress(chain: ChainCode): string {
  return chainModule(chain).address.random();
}

import { HDKey } from "@scure/bip32";
import { createBase58check } from "@scure/base";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from "@noble/hashes/utils.js";
import type { DerivedKey } from "../types";
import { assertDerivationIndex } from "../derivation-index";

// TRON address = base58check(0x41 || last 20 bytes of keccak256(uncompressed pubkey without 0x04)).
const TRON_PREFIX = 0x41;
const b58c = createBase58check(sha256);

/** TRON HD path m/44'/195'/0'/0/i (secp256k1), same as TronWeb.fromMnemonic. */
export function deriveTronKey(seed: Uint8Array, index: number): DerivedKey {
  assertDerivationIndex(index);
  const node = HDKey.fromMasterSeed(seed).derive(`m/44'/195'/0'/0/${index}`);
  if (!node.privateKey) throw new Error("derivation produced no private key");
  const pub = secp256k1.getPublicKey(node.privateKey, false);
  const hash20 = keccak_256(pub.subarray(1)).subarray(12);
  return { address: encode21(hash20), privateKey: node.privateKey };
}

function encode21(hash20: Uint8Array): string {
  return b58c.encode(concatBytes(new Uint8Array([TRON_PREFIX]), hash20));
}

/** The 21 payload bytes of a base58check TRON address, or null. */
function decode21(s: string): Uint8Array | null {
  if (typeof s !== "string" || s.length === 0) return null;
  let bytes: Uint8Array;
  try {
    bytes = b58c.decode(s); // throws on non-base58 characters and bad checksum
  } catch {
    return null;
  }
  return bytes.length === 21 && bytes[0] === TRON_PREFIX ? bytes : null;
}

/** Base58check 'T...' form only (21 bytes, 0x41 prefix); hex forms are not accepted here. */
export function isTronAddress(s: string): boolean {
  return decode21(s) !== null;
}

/** Re-encodes from the decoded bytes; throws on invalid input. */
export function normalizeTronAddress(s: string): string {
  const bytes = decode21(s);
  if (!bytes) throw new Error(`invalid TRON address: ${JSON.stringify(s)}`);
  return b58c.encode(bytes);
}

/** The 20-byte form used in ABI data and log topics: "0x" + 40 lowercase hex. */
export function tronToHex20(addr: string): string {
  const bytes = decode21(addr);
  if (!bytes) throw new Error(`invalid TRON address: ${JSON.stringify(addr)}`);
  return "0x" + bytesToHex(bytes.subarray(1));
}

/** From 20-byte hex (optional 0x) or 21-byte 41-prefixed hex (optional 0x) to base58check. */
export function tronFromHex(hex: string): string {
  const h = typeof hex === "string" ? hex.replace(/^0x/i, "") : "";
  if (/^[0-9a-fA-F]{40}$/.test(h)) return encode21(hexToBytes(h));
  if (/^41[0-9a-fA-F]{40}$/.test(h)) return encode21(hexToBytes(h.slice(2)));
  throw new Error(`invalid TRON hex address: ${JSON.stringify(hex)}`);
}

/** A valid address whose key is discarded (sandbox payer). */
export function randomTronAddress(): string {
  return b58c.encode(concatBytes(new Uint8Array([TRON_PREFIX]), randomBytes(20)));
}

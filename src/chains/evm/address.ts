// EVM addresses with the primitives viem itself uses (@noble/curves, @noble/hashes):
// importing viem for these three functions cost ~20 MB of RSS in every process, also
// sandbox-only gateways that never talk to an EVM node (docs/performance.md, "memory").
// address.test.ts checks them against viem.
import { HDKey } from "@scure/bip32";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import type { DerivedKey } from "../types";

/** EVM HD path of one EVM chain: m/44'/60'/account'/0/i, its profile's own BIP-44 account (BSC: 0). */
export function evmPath(account: number, index: number): string {
  return `m/44'/60'/${account}'/0/${index}`;
}

/** The key at m/44'/60'/account'/0/i (viem's mnemonicToAccount with accountIndex, addressIndex). */
export function deriveEvmKey(seed: Uint8Array, account: number, index: number): DerivedKey {
  const node = HDKey.fromMasterSeed(seed).derive(evmPath(account, index));
  if (!node.privateKey) throw new Error("derivation produced no private key");
  // Address = last 20 bytes of keccak256(uncompressed public key without its 0x04 prefix).
  const pub = secp256k1.getPublicKey(node.privateKey, false);
  return { address: checksummed(bytesToHex(keccak_256(pub.subarray(1)).subarray(12))), privateKey: node.privateKey };
}

/** EIP-55: a hex letter is upper case when its nibble in keccak256(lower-case hex) is >= 8. */
function checksummed(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = "0x";
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out;
}

const HEX40 = /^0x[0-9a-fA-F]{40}$/;

/** 0x + 40 hex; all lower case, or exactly its EIP-55 checksum form (viem's isAddress, strict). */
export function isEvmAddress(s: string): boolean {
  if (typeof s !== "string" || !HEX40.test(s)) return false;
  return s.toLowerCase() === s || checksummed(s.slice(2)) === s;
}

/** The EIP-55 form of any 0x + 40 hex (like viem's getAddress, the input's case is not checked); throws otherwise. */
export function normalizeEvmAddress(s: string): string {
  if (typeof s !== "string" || !HEX40.test(s)) throw new Error(`Address "${s}" is invalid.`);
  return checksummed(s.slice(2));
}

/** A valid address whose key is discarded (sandbox payer). */
export function randomEvmAddress(): string {
  return checksummed(bytesToHex(randomBytes(20)));
}

import { HDKey } from "@scure/bip32";
import { getAddress, isAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { bytesToHex } from "viem";
import { randomBytes } from "@noble/hashes/utils.js";
import type { DerivedKey } from "../types";

/** EVM (BSC) HD path m/44'/60'/0'/0/i (same as viem's mnemonicToAccount addressIndex). */
export function deriveEvmKey(seed: Uint8Array, index: number): DerivedKey {
  const node = HDKey.fromMasterSeed(seed).derive(`m/44'/60'/0'/0/${index}`);
  if (!node.privateKey) throw new Error("derivation produced no private key");
  return { address: privateKeyToAddress(bytesToHex(node.privateKey)), privateKey: node.privateKey };
}

/** 0x + 40 hex; mixed case must carry a valid EIP-55 checksum. */
export function isEvmAddress(s: string): boolean {
  return typeof s === "string" && /^0x[0-9a-fA-F]{40}$/.test(s) && isAddress(s, { strict: true });
}

export function normalizeEvmAddress(s: string): string {
  return getAddress(s);
}

/** A valid address whose key is discarded (sandbox payer). */
export function randomEvmAddress(): string {
  return getAddress(bytesToHex(randomBytes(20)));
}

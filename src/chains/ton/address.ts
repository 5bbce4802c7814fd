// TON addresses and keys: a receiving address is a wallet v5r1 contract (docs/networks.md, "TON")
// whose key comes from the seed at m/44'/607'/0'/0'/i'/0' (SLIP-0010 ed25519, the ton-ledger
// layout: network 0 = mainnet, workchain 0 = basechain, account i). Shown user-friendly,
// non-bounceable and URL-safe (`UQ…`); the raw (`0:<hex>`), bounceable (`EQ…`), test-only
// (`kQ…`/`0Q…`) and standard-base64 (`+` `/`) forms of the same account are accepted and
// normalised to it.
import { HDKey } from "micro-ed25519-hdkey";
import { ed25519 } from "@noble/curves/ed25519.js";
import { randomBytes } from "@noble/hashes/utils.js";
import type { Address } from "@ton/core";
import type { WalletContractV5R1 } from "@ton/ton";
import type { DerivedKey } from "../types";
import { assertDerivationIndex } from "../derivation-index";

// @ton/core and @ton/ton (~40 MB of RSS) load on first use, so a gateway without TON never pays for them.
export const tonCore = (): typeof import("@ton/core") => require("@ton/core");
const tonWallets = (): typeof import("@ton/ton") => require("@ton/ton");

/** The basechain: every wallet app's accounts and the USDT jetton wallets live there. */
export const TON_WORKCHAIN = 0;

export const tonPath = (index: number): string => `m/44'/607'/0'/0'/${index}'/0'`;

/** The wallet v5r1 contract of `publicKey` on the basechain, mainnet wallet id (what Tonkeeper and Wallet create). */
export function tonWallet(publicKey: Uint8Array): WalletContractV5R1 {
  return tonWallets().WalletContractV5R1.create({ workchain: TON_WORKCHAIN, publicKey: Buffer.from(publicKey) });
}

/** The display form: user-friendly, non-bounceable, URL-safe, mainnet (`UQ…`). */
export function tonFriendly(a: Address): string {
  return a.toString({ urlSafe: true, bounceable: false, testOnly: false });
}

/** `privateKey` is the 32-byte ed25519 seed SLIP-0010 yields; sign with tonSecretKey(). */
export function deriveTonKey(seed: Uint8Array, index: number): DerivedKey {
  assertDerivationIndex(index);
  const node = HDKey.fromMasterSeed(seed).derive(tonPath(index));
  const privateKey = Uint8Array.from(node.privateKey);
  return { address: tonFriendly(tonWallet(ed25519.getPublicKey(privateKey)).address), privateKey };
}

/** The 64-byte secret key (seed ‖ public key) @ton/crypto's sign() takes. */
export function tonSecretKey(privateKey: Uint8Array): Buffer {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) throw new Error("TON private key must be the 32-byte ed25519 seed");
  return Buffer.concat([privateKey, ed25519.getPublicKey(privateKey)]);
}

/** The account `s` names in any accepted form, or null (other workchains, bad checksum, junk). */
export function parseTonAddress(s: string): Address | null {
  if (typeof s !== "string" || s.length === 0 || s.trim() !== s) return null;
  const { Address } = tonCore();
  try {
    let a: Address;
    if (Address.isRaw(s)) a = Address.parseRaw(s);
    else if (Address.isFriendly(s)) a = Address.parseFriendly(s).address;
    else return null;
    return a.workChain === TON_WORKCHAIN ? a : null;
  } catch {
    return null;
  }
}

export function isTonAddress(s: string): boolean {
  return parseTonAddress(s) !== null;
}

/** Throws on invalid input; returns the `UQ…` form. */
export function normalizeTonAddress(s: string): string {
  const a = parseTonAddress(s);
  if (!a) throw new Error(`invalid TON address: ${JSON.stringify(s)}`);
  return tonFriendly(a);
}

/** A valid address whose key is discarded (sandbox payer): a wallet of a random key, like a payer's. */
export function randomTonAddress(): string {
  return tonFriendly(tonWallet(ed25519.getPublicKey(randomBytes(32))).address);
}

import { describe, expect, test } from "bun:test";
import { mnemonicToAccount } from "viem/accounts";
import { Keypair, PublicKey } from "@solana/web3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ChainCode } from "../chains/types";
import { chainCodes } from "../chains/registry";
const CHAIN_CODES = chainCodes();
import {
  deriveKey,
  generateMnemonic,
  isValidAddress,
  isValidMnemonic,
  mnemonicToSeed,
  normalizeAddress,
  randomAddress,
} from "./hd";

const { TronWeb } = require("tronweb");

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ABANDON24 = "abandon ".repeat(23) + "art";
// BIP-39 reference (Trezor vectors), empty passphrase.
const ABANDON_SEED =
  "5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4";

const EVM = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"; // abandon…about, m/44'/60'/0'/0/0
const TRON = "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH";
const SOL = "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk";

describe("mnemonic", () => {
  test("generateMnemonic gives 24 valid English words, different each time", () => {
    const a = generateMnemonic();
    const b = generateMnemonic();
    expect(a.split(" ")).toHaveLength(24);
    expect(isValidMnemonic(a)).toBe(true);
    expect(a).not.toBe(b);
    expect(mnemonicToSeed(a)).toHaveLength(64);
  });

  test.each([
    ["12 words", ABANDON, true],
    ["24 words", ABANDON24, true],
    ["bad checksum", "abandon ".repeat(11) + "abandon", false],
    ["unknown word", ABANDON.replace(/about$/, "abouts"), false],
    ["11 words", ABANDON.split(" ").slice(1).join(" "), false],
    ["uppercase word", ABANDON.replace(/^abandon/, "Abandon"), false],
    ["empty", "", false],
    ["whitespace", "   ", false],
    ["extra spaces and newlines", `  ${ABANDON.replaceAll(" ", "  \n")}\n`, true],
  ])("isValidMnemonic: %s", (_n, m, want) => {
    expect(isValidMnemonic(m)).toBe(want);
  });

  test("mnemonicToSeed matches the BIP-39 reference seed", () => {
    expect(bytesToHex(mnemonicToSeed(ABANDON))).toBe(ABANDON_SEED);
  });

  test("stray whitespace does not change the seed", () => {
    expect(bytesToHex(mnemonicToSeed(`\n ${ABANDON.replaceAll(" ", "\t ")} `))).toBe(ABANDON_SEED);
  });

  test("mnemonicToSeed refuses an invalid phrase rather than deriving from a typo", () => {
    expect(() => mnemonicToSeed("abandon ".repeat(11) + "abandon")).toThrow();
    expect(() => mnemonicToSeed("")).toThrow();
  });
});

describe("deriveKey", () => {
  test("published index-0 addresses of abandon…about", () => {
    const seed = mnemonicToSeed(ABANDON);
    expect(deriveKey("TRON", seed, 0).address).toBe(TRON);
    expect(deriveKey("BSC", seed, 0).address).toBe(EVM);
    expect(deriveKey("SOL", seed, 0).address).toBe(SOL);
  });

  for (const m of [ABANDON, ABANDON24]) {
    test(`indices 0..4 equal tronweb, viem and web3.js (${m.split(" ").length} words)`, () => {
      const seed = mnemonicToSeed(m);
      for (let i = 0; i < 5; i++) {
        const tron = deriveKey("TRON", seed, i);
        expect(tron.address).toBe(TronWeb.fromMnemonic(m, `m/44'/195'/0'/0/${i}`).address);

        const bsc = deriveKey("BSC", seed, i);
        const acct = mnemonicToAccount(m, { addressIndex: i });
        expect(bsc.address).toBe(acct.address);
        expect(bytesToHex(bsc.privateKey)).toBe(bytesToHex(acct.getHdKey().privateKey!));

        const sol = deriveKey("SOL", seed, i);
        expect(Keypair.fromSeed(sol.privateKey).publicKey.toBase58()).toBe(sol.address);

        for (const k of [tron, bsc, sol]) expect(k.privateKey).toHaveLength(32);
      }
    });
  }

  test("every chain uses a distinct key (the EVM chains each have their own derivation space)", () => {
    const seed = mnemonicToSeed(ABANDON);
    const keys = CHAIN_CODES.map((c) => bytesToHex(deriveKey(c, seed, 0).privateKey));
    expect(CHAIN_CODES.length).toBeGreaterThanOrEqual(7);
    expect(new Set(keys).size).toBe(CHAIN_CODES.length);
  });

  test.each(CHAIN_CODES)("%s rejects negative, fractional and hardened-range indices", (c) => {
    const seed = mnemonicToSeed(ABANDON);
    for (const i of [-1, 1.5, 2 ** 31]) expect(() => deriveKey(c, seed, i)).toThrow();
  });

  test("unknown chain throws", () => {
    expect(() => deriveKey("DOGE" as ChainCode, mnemonicToSeed(ABANDON), 0)).toThrow();
  });
});

describe("isValidAddress / normalizeAddress", () => {
  const lower = EVM.toLowerCase();
  const badEip55 = EVM.replace("EfFD", "efFD"); // one letter's case flipped
  const cases: [ChainCode, string, string, boolean][] = [
    ["BSC", "EIP-55 checksummed", EVM, true],
    ["BSC", "all lowercase", lower, true],
    ["BSC", "mixed case, bad checksum", badEip55, false],
    ["BSC", "no 0x", lower.slice(2), false],
    ["BSC", "19 bytes", lower.slice(0, -2), false],
    ["BSC", "21 bytes", lower + "00", false],
    ["BSC", "non-hex", lower.slice(0, -1) + "g", false],
    ["BSC", "empty", "", false],
    ["BSC", "whitespace", " ", false],
    ["BSC", "leading space", " " + EVM, false],
    ["BSC", "TRON address", TRON, false],
    ["TRON", "base58check", TRON, true],
    ["TRON", "EVM address", EVM, false],
    ["TRON", "41-hex form", "41" + lower.slice(2), false],
    ["TRON", "empty", "", false],
    ["TRON", "Solana address", SOL, false],
    ["SOL", "base58 32 bytes", SOL, true],
    ["SOL", "TRON address", TRON, false],
    ["SOL", "EVM address", EVM, false],
    ["SOL", "empty", "", false],
  ];
  test.each(cases)("%s %s", (chain, _n, s, want) => {
    expect(isValidAddress(chain, s)).toBe(want);
    if (want) expect(isValidAddress(chain, normalizeAddress(chain, s))).toBe(true);
    else expect(() => normalizeAddress(chain, s)).toThrow();
  });

  test("BSC lowercase normalizes to the EIP-55 form; TRON and SOL are already canonical", () => {
    expect(normalizeAddress("BSC", lower)).toBe(EVM);
    expect(normalizeAddress("BSC", EVM)).toBe(EVM);
    expect(normalizeAddress("TRON", TRON)).toBe(TRON);
    expect(normalizeAddress("SOL", SOL)).toBe(SOL);
  });

  test("a bad EIP-55 checksum is rejected, not silently repaired", () => {
    expect(() => normalizeAddress("BSC", badEip55)).toThrow();
  });

  test("unknown chain is invalid", () => {
    expect(isValidAddress("DOGE" as ChainCode, EVM)).toBe(false);
    expect(() => normalizeAddress("DOGE" as ChainCode, EVM)).toThrow();
  });
});

describe("randomAddress", () => {
  test.each(CHAIN_CODES)("%s: valid, canonical and distinct", (c) => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const a = randomAddress(c);
      expect(isValidAddress(c, a)).toBe(true);
      expect(normalizeAddress(c, a)).toBe(a);
      seen.add(a);
    }
    expect(seen.size).toBe(50);
  });

  test("reference libraries accept them", () => {
    expect(TronWeb.isAddress(randomAddress("TRON"))).toBe(true);
    expect(PublicKey.isOnCurve(new PublicKey(randomAddress("SOL")).toBytes())).toBe(true);
  });
});

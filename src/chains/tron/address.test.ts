import { describe, expect, test } from "bun:test";
import { base58, createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { bytesToHex } from "@noble/hashes/utils.js";
import { deriveTronKey, isTronAddress, normalizeTronAddress, tronFromHex, tronToHex20 } from "./address";

// tronweb is the reference only; its ESM entry is unreliable under Bun.
const { TronWeb } = require("tronweb");

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ABANDON24 = "abandon ".repeat(23) + "art";
const b58c = createBase58check(sha256);

const VALID = "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH"; // abandon…about at m/44'/195'/0'/0/0
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

function withPayload(first: number, len: number): string {
  const b = new Uint8Array(len).fill(0x5a);
  b[0] = first;
  return b58c.encode(b);
}
function badChecksum(addr: string): string {
  const raw = base58.decode(addr);
  raw[raw.length - 1] ^= 0x01;
  return base58.encode(raw);
}

describe("deriveTronKey", () => {
  test("published vector: abandon…about index 0", () => {
    expect(deriveTronKey(mnemonicToSeedSync(ABANDON), 0).address).toBe(VALID);
  });

  for (const m of [ABANDON, ABANDON24]) {
    test(`indices 0..4 equal TronWeb.fromMnemonic (${m.split(" ").length} words)`, () => {
      const seed = mnemonicToSeedSync(m);
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const ours = deriveTronKey(seed, i);
        const ref = TronWeb.fromMnemonic(m, `m/44'/195'/0'/0/${i}`);
        expect(ours.address).toBe(ref.address);
        expect("0x" + bytesToHex(ours.privateKey)).toBe(ref.privateKey);
        expect(ours.privateKey.length).toBe(32);
        // TronWeb derives the address from the private key by its own code path too.
        expect(TronWeb.address.fromPrivateKey(bytesToHex(ours.privateKey))).toBe(ours.address);
        seen.add(ours.address);
      }
      expect(seen.size).toBe(5);
    });
  }

  test.each([-1, 1.5, Number.NaN, 2 ** 31, Number.MAX_SAFE_INTEGER + 1])("rejects index %p", (i) => {
    expect(() => deriveTronKey(mnemonicToSeedSync(ABANDON), i)).toThrow();
  });
  test("accepts the largest non-hardened index", () => {
    expect(isTronAddress(deriveTronKey(mnemonicToSeedSync(ABANDON), 2 ** 31 - 1).address)).toBe(true);
  });
});

describe("isTronAddress", () => {
  const cases: [string, string, boolean][] = [
    ["derived address", VALID, true],
    ["USDT contract", USDT, true],
    ["all-zero payload", b58c.encode(Uint8Array.of(0x41, ...new Uint8Array(20))), true],
    ["wrong checksum", badChecksum(VALID), false],
    ["one character changed (case)", VALID.slice(0, -1) + "h", false],
    ["wrong prefix 0x42", withPayload(0x42, 21), false],
    ["wrong prefix 0x00 (bitcoin P2PKH)", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", false],
    ["20 bytes", withPayload(0x41, 20), false],
    ["22 bytes", withPayload(0x41, 22), false],
    ["non-base58 char 0", VALID.slice(0, 5) + "0" + VALID.slice(6), false],
    ["non-base58 char O", VALID.slice(0, 5) + "O" + VALID.slice(6), false],
    ["non-base58 char l", VALID.slice(0, 5) + "l" + VALID.slice(6), false],
    ["truncated", VALID.slice(0, -1), false],
    ["empty", "", false],
    ["whitespace", "   ", false],
    ["leading space", " " + VALID, false],
    ["trailing newline", VALID + "\n", false],
    ["EVM address", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", false],
    ["Solana address", "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk", false],
  ];
  test.each(cases)("%s", (_name, s, want) => {
    expect(isTronAddress(s)).toBe(want);
    // tronweb agrees on every base58-form input.
    expect(TronWeb.isAddress(s)).toBe(want);
  });

  test("hex forms: tronweb accepts 41-hex, we accept only base58 (the stored form)", () => {
    const hex41 = TronWeb.address.toHex(VALID);
    expect(TronWeb.isAddress(hex41)).toBe(true);
    expect(isTronAddress(hex41)).toBe(false);
  });

  test("non-strings are invalid", () => {
    expect(isTronAddress(undefined as unknown as string)).toBe(false);
    expect(isTronAddress(42 as unknown as string)).toBe(false);
  });
});

describe("normalizeTronAddress", () => {
  test("returns a valid address unchanged", () => {
    expect(normalizeTronAddress(VALID)).toBe(VALID);
    expect(normalizeTronAddress(USDT)).toBe(USDT);
  });
  test.each(["", " " + VALID, badChecksum(VALID), withPayload(0x42, 21), "0x9858EfFD232B4033E47d90003D41EC34EcaEda94"])(
    "throws on %p",
    (s) => {
      expect(() => normalizeTronAddress(s)).toThrow();
    },
  );
});

describe("hex conversions agree with tronweb", () => {
  const addrs = [VALID, USDT, ...[0, 1, 2].map((i) => deriveTronKey(mnemonicToSeedSync(ABANDON24), i).address)];

  test.each(addrs)("tronToHex20(%s) is TronWeb's hex without 41", (a) => {
    const h = tronToHex20(a);
    expect(h).toMatch(/^0x[0-9a-f]{40}$/);
    expect("41" + h.slice(2)).toBe(TronWeb.address.toHex(a));
  });

  test("USDT contract's 20-byte form (used as log address)", () => {
    expect(tronToHex20(USDT)).toBe("0xa614f803b6fd780986a42c78ec9c7f77e6ded13c");
  });

  test.each(addrs)("tronFromHex round-trips %s in every accepted form", (a) => {
    const h20 = tronToHex20(a).slice(2);
    for (const form of [h20, "0x" + h20, h20.toUpperCase(), "41" + h20, "0x41" + h20]) {
      expect(tronFromHex(form)).toBe(a);
    }
    expect(TronWeb.address.fromHex("41" + h20)).toBe(a);
  });

  test.each(["", "0x", "41", "0x" + "ab".repeat(19), "42" + "ab".repeat(20), "ab".repeat(21), "zz".repeat(20), VALID])(
    "tronFromHex throws on %p",
    (s) => {
      expect(() => tronFromHex(s)).toThrow();
    },
  );

  test("tronToHex20 throws on invalid", () => {
    expect(() => tronToHex20(badChecksum(VALID))).toThrow();
    expect(() => tronToHex20("41" + "ab".repeat(20))).toThrow();
  });
});

import { describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { HDKey } from "micro-ed25519-hdkey";
import { base58 } from "@scure/base";
import { hmac } from "@noble/hashes/hmac.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { deriveSolKey, isSolAddress, normalizeSolAddress, solKeypairBytes } from "./address";

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ABANDON24 = "abandon ".repeat(23) + "art";
// Phantom / solana-keygen / many wallets publish this for abandon…about at m/44'/501'/0'/0'.
const ABANDON_SOL_0 = "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk";

// A second, independent SLIP-0010 ed25519 derivation written from the spec:
// master = HMAC-SHA512("ed25519 seed", seed); child = HMAC-SHA512(c, 0x00 || k || ser32(i + 2^31)).
function slip10(seed: Uint8Array, hardenedPath: number[]): { key: Uint8Array; chainCode: Uint8Array } {
  let I = hmac(sha512, utf8ToBytes("ed25519 seed"), seed);
  for (const i of hardenedPath) {
    const ser = new Uint8Array(4);
    new DataView(ser.buffer).setUint32(0, (i | 0x80000000) >>> 0, false);
    I = hmac(sha512, I.slice(32), concatBytes(new Uint8Array([0]), I.slice(0, 32), ser));
  }
  return { key: I.slice(0, 32), chainCode: I.slice(32) };
}

// SLIP-0010 test vector 1 for ed25519 (seed 000102…0f), from the specification.
const SLIP10_SEED = hexToBytes("000102030405060708090a0b0c0d0e0f");
const SLIP10_VECTORS: { path: number[]; key: string; chainCode?: string; pub?: string }[] = [
  {
    path: [],
    key: "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7",
    chainCode: "90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb",
    pub: "a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed",
  },
  {
    path: [0],
    key: "68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3",
    chainCode: "8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69",
    pub: "8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c",
  },
  {
    path: [0, 1],
    key: "b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2",
    chainCode: "a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14",
    pub: "1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187",
  },
  { path: [0, 1, 2], key: "92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9" },
  { path: [0, 1, 2, 2], key: "30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662" },
  { path: [0, 1, 2, 2, 1000000000], key: "8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793" },
];

describe("SLIP-0010 ed25519 specification vector 1", () => {
  test.each(SLIP10_VECTORS)("m/$path (hardened)", (v) => {
    const path = "m" + v.path.map((i) => `/${i}'`).join("");
    const lib = HDKey.fromMasterSeed(SLIP10_SEED).derive(path);
    const mine = slip10(SLIP10_SEED, v.path);
    expect(bytesToHex(lib.privateKey)).toBe(v.key);
    expect(bytesToHex(mine.key)).toBe(v.key);
    if (v.chainCode) {
      expect(bytesToHex(lib.chainCode)).toBe(v.chainCode);
      expect(bytesToHex(mine.chainCode)).toBe(v.chainCode);
    }
    if (v.pub) expect(Keypair.fromSeed(mine.key).publicKey.toBuffer().toString("hex")).toBe(v.pub);
  });
});

describe("deriveSolKey", () => {
  test("published vector: abandon…about index 0", () => {
    expect(deriveSolKey(mnemonicToSeedSync(ABANDON), 0).address).toBe(ABANDON_SOL_0);
  });

  for (const m of [ABANDON, ABANDON24]) {
    test(`indices 0..4 at m/44'/501'/i'/0' agree with the independent SLIP-0010 and web3.js (${m.split(" ").length} words)`, () => {
      const seed = mnemonicToSeedSync(m);
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const k = deriveSolKey(seed, i);
        expect(k.privateKey.length).toBe(32);
        expect(bytesToHex(k.privateKey)).toBe(bytesToHex(slip10(seed, [44, 501, i, 0]).key));
        expect(Keypair.fromSeed(k.privateKey).publicKey.toBase58()).toBe(k.address);
        // fromSecretKey checks by default that the 64 bytes hold a matching pair.
        const kp = Keypair.fromSecretKey(solKeypairBytes(k.privateKey));
        expect(kp.publicKey.toBase58()).toBe(k.address);
        expect(bytesToHex(kp.secretKey)).toBe(bytesToHex(solKeypairBytes(k.privateKey)));
        seen.add(k.address);
      }
      expect(seen.size).toBe(5);
    });
  }

  test.each([-1, 0.5, Number.NaN, 2 ** 31])("rejects index %p", (i) => {
    expect(() => deriveSolKey(mnemonicToSeedSync(ABANDON), i)).toThrow();
  });

  test("solKeypairBytes rejects anything but a 32-byte seed", () => {
    expect(() => solKeypairBytes(new Uint8Array(31))).toThrow();
    expect(() => solKeypairBytes(new Uint8Array(64))).toThrow();
  });
});

describe("isSolAddress", () => {
  const bytes = (n: number, fill = 7) => base58.encode(new Uint8Array(n).fill(fill));
  const cases: [string, string, boolean][] = [
    ["derived address", ABANDON_SOL_0, true],
    ["USDC mint", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", true],
    ["system program (all zero, off curve)", "11111111111111111111111111111111", true],
    ["token program", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", true],
    ["off-curve 32 bytes", bytes(32, 0xff), true],
    ["31 bytes", bytes(31), false],
    ["33 bytes", bytes(33), false],
    ["64-byte secret key", base58.encode(new Uint8Array(64).fill(9)), false],
    ["non-base58 char 0", "0" + ABANDON_SOL_0.slice(1), false],
    ["non-base58 char I", ABANDON_SOL_0.slice(0, -1) + "I", false],
    ["empty", "", false],
    ["whitespace", "  ", false],
    ["trailing space", ABANDON_SOL_0 + " ", false],
    ["TRON address (25 bytes)", "TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH", false],
    ["EVM address", "0x9858EfFD232B4033E47d90003D41EC34EcaEda94", false],
  ];
  test.each(cases)("%s", (_name, s, want) => {
    expect(isSolAddress(s)).toBe(want);
    // web3.js PublicKey accepts exactly the base58 strings of 32 bytes.
    let web3ok = true;
    try {
      new PublicKey(s);
    } catch {
      web3ok = false;
    }
    expect(web3ok).toBe(want);
  });

  test("normalizeSolAddress keeps valid input and throws on invalid", () => {
    expect(normalizeSolAddress(ABANDON_SOL_0)).toBe(ABANDON_SOL_0);
    expect(normalizeSolAddress("11111111111111111111111111111111")).toBe("11111111111111111111111111111111");
    for (const s of ["", bytes(31), bytes(33), " " + ABANDON_SOL_0]) expect(() => normalizeSolAddress(s)).toThrow();
  });
});

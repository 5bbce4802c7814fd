// The hand-rolled EVM address rules (address.ts avoids loading viem) agree with viem's.
import { describe, expect, test } from "bun:test";
import { getAddress, isAddress } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { mnemonicToSeedSync } from "@scure/bip39";
import { randomBytes } from "node:crypto";
import { deriveEvmKey, isEvmAddress, normalizeEvmAddress, randomEvmAddress } from "./address";

const MNEMONIC = "test test test test test test test test test test test junk";

describe("EVM addresses without viem", () => {
  test("derivation m/44'/60'/account'/0/i gives viem's mnemonicToAccount address", () => {
    const seed = mnemonicToSeedSync(MNEMONIC);
    for (const i of [0, 1, 2, 7, 1000]) expect(deriveEvmKey(seed, 0, i).address).toBe(mnemonicToAccount(MNEMONIC, { addressIndex: i }).address);
    for (const [account, i] of [[1, 0], [7, 3], [31337, 2]] as const) {
      expect(deriveEvmKey(seed, account, i).address).toBe(mnemonicToAccount(MNEMONIC, { accountIndex: account, addressIndex: i }).address);
    }
    // anvil's well-known first account
    expect(deriveEvmKey(seed, 0, 0).address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  });

  test("checksum form and validity match viem for 2,000 random addresses in every case form", () => {
    for (let i = 0; i < 500; i++) {
      const lower = "0x" + randomBytes(20).toString("hex");
      const sum = getAddress(lower);
      const flipped = sum.replace(/[a-fA-F]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
      for (const s of [lower, "0x" + lower.slice(2).toUpperCase(), sum, flipped]) {
        expect(isEvmAddress(s)).toBe(isAddress(s, { strict: true }));
        expect(normalizeEvmAddress(s)).toBe(getAddress(s));
      }
    }
  });

  test.each([
    ["", false],
    ["0x", false],
    ["0x123", false],
    ["f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", false],
    ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226", false],
    ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb922666", false],
    ["0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266", false],
    ["0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266", false], // one letter's case wrong
    ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", true],
    ["0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", false], // upper case carries no checksum
    ["0X f39fd6e51aad88f6f4ce6ab8827279cfffb92266".replace(" ", ""), false],
    ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", true],
  ])("isEvmAddress(%p) = %p", (s, ok) => {
    expect(isEvmAddress(s)).toBe(ok);
    expect(isAddress(s, { strict: true })).toBe(ok);
  });

  test("normalize refuses what is not 0x + 40 hex, like viem", () => {
    for (const s of ["", "0x123", "hello", "0xg39Fd6e51aad88F6F4ce6aB8827279cffFb92266"]) {
      expect(() => normalizeEvmAddress(s)).toThrow();
      expect(() => getAddress(s)).toThrow();
    }
  });

  test("random addresses are valid and checksummed", () => {
    for (let i = 0; i < 50; i++) {
      const a = randomEvmAddress();
      expect(isEvmAddress(a)).toBe(true);
      expect(a).toBe(getAddress(a));
    }
  });
});

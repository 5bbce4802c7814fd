import { describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { chainModule, chainModules, hasChainModule } from "./registry";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");

describe("chain registry", () => {
  test("every product chain code has exactly one module, under its own code", () => {
    expect(chainModules().map((m) => m.code).sort()).toEqual(["BSC", "SOL", "TRON"]);
    for (const c of ["TRON", "BSC", "SOL"] as const) expect(chainModule(c).code).toBe(c);
    expect(hasChainModule("ETH")).toBe(false);
    expect(() => chainModule("ETH" as never)).toThrow("unknown chain: ETH");
  });

  test.each(["TRON", "BSC", "SOL"] as const)("%s: derived and random addresses are valid and canonical; the payment URI names the address and token", (c) => {
    const m = chainModule(c);
    const derived = m.deriveKey(SEED, 7).address;
    const random = m.address.random();
    for (const a of [derived, random]) {
      expect(m.address.isValid(a)).toBe(true);
      expect(m.address.normalize(a)).toBe(a);
    }
    expect(m.address.isValid("not-an-address")).toBe(false);
    const token = chainModule(c).defaults.tokens[0]!;
    const uri = m.paymentUri(token, derived, 10n ** BigInt(token.decimals), "PI1");
    expect(uri).toContain(derived);
    expect(uri).toContain(token.contract);
    expect(m.explorer.tx).toContain("{tx}");
  });

  test.each([
    ["BSC", /^0x[0-9a-f]{64}$/, /^0x[0-9a-f]{64}$/],
    ["TRON", /^[0-9a-f]{64}$/, /^[0-9a-f]{64}$/],
    // A Solana transaction id is a 64-byte signature in base58; a block hash 32 bytes.
    ["SOL", /^[1-9A-HJ-NP-Za-km-z]{43,44}$/, /^[1-9A-HJ-NP-Za-km-z]{86,88}$/],
  ] as const)("%s writes block and transaction ids the way its explorers do", (c, block, tx) => {
    const h = new Uint8Array(32).fill(7);
    expect(chainModule(c).ids.block(h)).toMatch(block);
    expect(chainModule(c).ids.tx(h)).toMatch(tx);
  });
});

// Derivation spaces (DESIGN 16): no address is handed out twice, not to two
// merchants (one index per address per chain, src/wallet/addresses.ts) and not
// on two chains: each chain module owns its BIP-44 space, EVM chains share coin
// type 60 but each has its own account, and BSC keeps account 0 so the addresses
// it has handed out do not change. Includes the test-only EVM profile (chain id
// 31337), registered here as a second EVM chain would be.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { bytesToHex } from "@noble/hashes/utils.js";
import { mnemonicToAccount } from "viem/accounts";
import { chainModules, registerChainModule } from "./registry";
import { evmChainModule } from "./evm/module";
import { DEVNET_PROFILE } from "../testing/devnet-profile";

const ABANDON = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ANVIL = "test test test test test test test test test test test junk";
/** Indices derived per chain (the gas wallet is index 0, merchant addresses follow). */
const N = 64;

let unregister: () => void;
beforeAll(() => {
  unregister = registerChainModule(evmChainModule(DEVNET_PROFILE));
});
afterAll(() => unregister?.());

describe("derivation spaces", () => {
  test("the registered chains, the test-only EVM profile included, declare distinct spaces", () => {
    const modules = chainModules();
    expect(modules.map((m) => m.code)).toContain(DEVNET_PROFILE.chain);
    const spaces = modules.map((m) => ({ code: m.code, coinType: m.derivation.coinType, account: m.derivation.account }));
    // Two chains on one (coin type, account) would derive the same keys: refused.
    const keys = spaces.map((s) => `${s.coinType}/${s.account}`);
    expect(new Set(keys).size, JSON.stringify(spaces)).toBe(keys.length);
    // A chain whose index is the account (SOL) owns its whole coin type.
    for (const s of spaces.filter((x) => x.account === null)) expect(spaces.filter((x) => x.coinType === s.coinType).map((x) => x.code)).toEqual([s.code]);
    // Each module's path is the one its keys come from, inside its space.
    for (const m of modules) {
      const p = m.derivation.path(7);
      expect(p.startsWith(`m/44'/${m.derivation.coinType}'/`), p).toBe(true);
      if (m.derivation.account !== null) expect(p.startsWith(`m/44'/${m.derivation.coinType}'/${m.derivation.account}'/`), p).toBe(true);
    }
  });

  test(`the first ${N} keys of every registered chain never collide (private keys and addresses)`, () => {
    for (const mnemonic of [ABANDON, ANVIL]) {
      const seed = mnemonicToSeedSync(mnemonic);
      const seenKey = new Map<string, string>();
      const seenAddress = new Map<string, string>();
      for (const m of chainModules()) {
        for (let i = 0; i < N; i++) {
          const k = m.deriveKey(seed, i);
          const where = `${m.code}#${i}`;
          const key = bytesToHex(k.privateKey);
          const addr = k.address.toLowerCase();
          expect(seenKey.get(key), `${where} has the key of ${seenKey.get(key)}`).toBeUndefined();
          expect(seenAddress.get(addr), `${where} has the address of ${seenAddress.get(addr)}`).toBeUndefined();
          seenKey.set(key, where);
          seenAddress.set(addr, where);
        }
      }
      expect(seenKey.size).toBe(chainModules().length * N);
    }
  });

  test("the test-only EVM chain derives at its own account (checked against viem)", () => {
    const dev = chainModules().find((m) => m.code === DEVNET_PROFILE.chain)!;
    for (const i of [0, 1, 5]) expect(dev.deriveKey(mnemonicToSeedSync(ANVIL), i).address).toBe(mnemonicToAccount(ANVIL, { accountIndex: 31337, addressIndex: i }).address);
    expect(dev.derivation.path(3)).toBe("m/44'/60'/31337'/0/3");
  });

  test("ETH, POLYGON, ARBITRUM, BASE, OPTIMISM, AVALANCHE, XLAYER, PLASMA derive at accounts 1-8 (DESIGN 17, 23; checked against viem)", () => {
    const seed = mnemonicToSeedSync(ANVIL);
    const accounts = [["ETH", 1], ["POLYGON", 2], ["ARBITRUM", 3], ["BASE", 4], ["OPTIMISM", 5], ["AVALANCHE", 6], ["XLAYER", 7], ["PLASMA", 8]] as const;
    for (const [code, account] of accounts) {
      const m = chainModules().find((x) => x.code === code)!;
      expect(m.derivation).toMatchObject({ coinType: 60, account });
      expect(m.derivation.path(2)).toBe(`m/44'/60'/${account}'/0/2`);
      for (const i of [0, 2]) expect(m.deriveKey(seed, i).address).toBe(mnemonicToAccount(ANVIL, { accountIndex: account, addressIndex: i }).address);
    }
  });

  test("BSC keeps account 0: the addresses it has handed out are unchanged", () => {
    const bsc = chainModules().find((m) => m.code === "BSC")!;
    expect(bsc.derivation).toMatchObject({ coinType: 60, account: 0 });
    expect(bsc.derivation.path(4)).toBe("m/44'/60'/0'/0/4");
    // Pinned: anvil's well-known accounts and the published abandon…about address, all m/44'/60'/0'/0/i.
    const anvil = mnemonicToSeedSync(ANVIL);
    expect([0, 1, 2].map((i) => bsc.deriveKey(anvil, i).address)).toEqual([
      "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    ]);
    expect(bsc.deriveKey(mnemonicToSeedSync(ABANDON), 0).address).toBe("0x9858EfFD232B4033E47d90003D41EC34EcaEda94");
  });
});

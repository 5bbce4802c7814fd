import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BSC_TOKENS, startBscFixture, type BscFixture } from "../../testing/bsc-fixture";

let fx: BscFixture;
beforeAll(async () => {
  fx = await startBscFixture();
});
afterAll(() => fx?.stop());

describe("BSC adapter start-up checks", () => {
  test("starts when the configured decimals match the chain", async () => {
    await fx.adapter().start();
  });

  test.each([
    ["USDT", 6],
    ["USDC", 8],
  ])("a %s decimals mismatch (config %d, chain 18) stops start-up and names the token", async (symbol, decimals) => {
    const tokens = BSC_TOKENS.map((t) => (t.symbol === symbol ? { ...t, decimals } : t));
    await expect(fx.adapter({ tokens }).start()).rejects.toThrow(new RegExp(`BSC ${symbol} .*18 decimals on chain, config says ${decimals}`));
  });

  test("a contract address without code stops start-up", async () => {
    const tokens = BSC_TOKENS.map((t) => (t.symbol === "USDC" ? { ...t, contract: "0x000000000000000000000000000000000000bEEF" } : t));
    await expect(fx.adapter({ tokens }).start()).rejects.toThrow(/BSC USDC: no token contract/);
  });

  test("a node on another chain id stops start-up", async () => {
    await expect(fx.adapter({ chainId: 97 }).start()).rejects.toThrow(/chain id 56, expected 97/);
  });

  test("addresses are validated and normalised to EIP-55", () => {
    const a = fx.adapter();
    const lower = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    expect(a.isValidAddress(lower)).toBe(true);
    expect(a.normalizeAddress(lower)).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(a.isValidAddress("0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266")).toBe(false);
  });
});

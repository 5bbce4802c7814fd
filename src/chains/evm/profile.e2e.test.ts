// "Another EVM chain is a profile, not a copy": a test-only profile (chain id 31337, its
// own code, labels, explorer, config defaults and token) registered in this test alone, run
// on anvil through the same module, adapter and product entry points BSC uses: a pay-in is
// seen, a payout lands; and through HTTP, a gateway configured with a `chains.DEVNET` section
// takes a pay-in on it, sees it paid on anvil and calls the merchant back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { startAnvil, TOKEN_ADDRESSES, type AnvilNode } from "../../testing/anvil";
import { watchSetOf } from "../../testing/watch-set";
import { startTestGateway } from "../../testing/harness";
import { startReceiver } from "../../testing/receiver";
import { parseConfig } from "../../config/load";
import { verifyCallback } from "../../sdk/callback";
import { toBaseUnits } from "../../lib/money";
import type { ChainConfig } from "../../config/schema";
import { chainModule, registerChainModule } from "../registry";
import { deriveKey, isValidAddress, normalizeAddress } from "../../wallet/hd";
import { paymentUri } from "../../payin/payment-uri";
import { pageLinks } from "../../checkout/wallet-links";
import { explorerTxUrl } from "../../checkout/explorer";
import { networkName } from "../../checkout/i18n";
import { BSC_PROFILE } from "../bsc";
import { createEvmAdapter, type EvmAdapter, type EvmTxMeta } from "./adapter";
import { evmChainModule } from "./module";
import { DEVNET_CODE, DEVNET_PROFILE, DEVNET_TOKENS } from "../../testing/devnet-profile";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");
const CODE = DEVNET_CODE;
const TOKENS = DEVNET_TOKENS;
const PROFILE = DEVNET_PROFILE;

let node: AnvilNode;
let unregister: () => void;
let adapter: EvmAdapter;

beforeAll(async () => {
  node = await startAnvil({ chainId: 31337 });
  unregister = registerChainModule(evmChainModule(PROFILE));
  const cfg = { rpc_urls: [node.url], confirmations: 2, tokens: {} } as unknown as ChainConfig;
  adapter = chainModule(CODE).createAdapter({ cfg, tokens: TOKENS, logger: { info() {}, warn() {}, error() {} } }).adapter as EvmAdapter;
  await adapter.start();
});
afterAll(async () => {
  unregister?.();
  await node?.stop();
});

describe("a test-only EVM profile (chain id 31337) on anvil", () => {
  test("the product's chain-generic entry points answer from the profile", () => {
    const { address } = deriveKey(CODE, SEED, 1);
    // Its own BIP-44 account (DESIGN 16): never one of BSC's addresses, though both are EVM addresses.
    expect(address).not.toBe(chainModule("BSC").deriveKey(SEED, 1).address);
    expect(isValidAddress("BSC", address)).toBe(true);
    expect(isValidAddress(CODE, address.toLowerCase())).toBe(true);
    expect(normalizeAddress(CODE, address.toLowerCase())).toBe(address);
    expect(paymentUri(CODE, TOKENS[0]!, address, 5n)).toBe(`ethereum:${TOKEN_ADDRESSES.USDT}@31337/transfer?address=${address}&uint256=5`);
    expect(pageLinks("deposit", CODE, address, "ethereum:x")).toEqual({ qr: address, addressQr: null, walletHref: "ethereum:x" });
    expect(explorerTxUrl(CODE, "0xab")).toBe("https://devscan.example/tx/0xab");
    expect(networkName("en", CODE, "USDT")).toContain("Devnet");
  });

  test("the BSC profile refuses this node: the chain id comes from the profile", async () => {
    const bsc = createEvmAdapter(BSC_PROFILE, { rpcUrls: [node.url], tokens: [], confirmations: 2 });
    await expect(bsc.start()).rejects.toThrow("BSC RPC answers chain id 31337, expected 56");
  });

  test("pay-in: a token transfer to a derived address is found by scan, final after the profile's confirmations", async () => {
    const deposit = deriveKey(CODE, SEED, 2).address;
    const amount = toBaseUnits("12.5", 18);
    const mined = await node.mint("USDT", deposit, amount);
    const { transfers } = await adapter.scan(mined.blockNumber, mined.blockNumber, watchSetOf([deposit]));
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ chain: CODE, token: "USDT", to: deposit, amount, txHash: mined.hash });
    expect(await adapter.head()).toMatchObject({ latest: mined.blockNumber, final: mined.blockNumber - 1n });
    await node.mine(1);
    expect(await adapter.head()).toMatchObject({ latest: mined.blockNumber + 1n, final: mined.blockNumber });
  });

  test("payout: signed with chain id 31337, broadcast, included once, balances move", async () => {
    const src = deriveKey(CODE, SEED, 3);
    const dest = deriveKey(CODE, SEED, 4).address;
    await node.mint("USDT", src.address, toBaseUnits("100", 18));
    await node.setBalance(src.address, 10n ** 16n);
    const tx = await adapter.signTransfer({ token: "USDT", from: src.address, to: dest, amount: toBaseUnits("40", 18), privateKey: src.privateKey });
    expect((tx.meta as EvmTxMeta).chainId).toBe(31337);
    expect(await adapter.broadcast(tx)).toEqual({ ok: true });
    let state = await adapter.txState(tx);
    for (let i = 0; i < 100 && state.state !== "included"; i++) {
      await Bun.sleep(20); // anvil mines right after answering; the receipt follows
      state = await adapter.txState(tx);
    }
    expect(state).toMatchObject({ state: "included", success: true });
    expect(await adapter.tokenBalance(dest, "USDT")).toBe(toBaseUnits("40", 18));
    expect(await adapter.tokenBalance(src.address, "USDT")).toBe(toBaseUnits("60", 18));
  });

  test("through HTTP: a gateway with a chains.DEVNET section takes a pay-in on it, sees it paid on anvil, calls back", async () => {
    const receiver = startReceiver();
    const gw = await startTestGateway({
      config: {
        chains: {
          TRON: { enabled: false },
          BSC: { enabled: false },
          SOL: { enabled: false },
          [CODE]: { mode: "rpc", rpc_urls: [node.url], poll_interval: "100ms" },
        },
      },
    });
    try {
      // The section took the profile's defaults; the API and its OpenAPI document know the chain.
      expect(gw.ctx.config.chains[CODE]).toMatchObject({ enabled: true, mode: "rpc", confirmations: 2 });
      const doc = (await (await fetch(gw.url + "/openapi.json")).json()) as { components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } };
      expect(doc.components.schemas.PayinOrder!.properties.chainCode!.enum).toEqual(["TRON", "BSC", "SOL", "ETH", "POLYGON", "ARBITRUM", "BASE", "OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA", "TON", CODE]);

      const o = await gw.client.request<Record<string, any>>("POST", "/openapi/payin/orders", {
        body: { chainCode: CODE, tokenSymbol: "USDT", merchantOrderNo: "DEV-1", amount: "3.5", notifyUrl: receiver.url + "/cb" },
      });
      expect(o).toMatchObject({ chainCode: CODE, tokenSymbol: "USDT", status: "waiting_payment" });
      expect(isValidAddress(CODE, o.address)).toBe(true);
      expect(o.paymentUri).toBe(`ethereum:${TOKEN_ADDRESSES.USDT}@31337/transfer?address=${o.address}&uint256=3500000000000000000`);
      // A token this chain does not carry is refused as on any chain.
      await expect(
        gw.client.request("POST", "/openapi/payin/orders", { body: { chainCode: CODE, tokenSymbol: "USDC", merchantOrderNo: "DEV-2", amount: "1", notifyUrl: receiver.url + "/cb" } }),
      ).rejects.toMatchObject({ code: 31003 });

      await node.mint("USDT", o.address, toBaseUnits("3.5", 18));
      await node.mine(1); // the second confirmation
      const got = await receiver.waitFor((r) => r.some((x) => (JSON.parse(x.text) as { status: string }).status === "completed"), 30_000);
      const done = got.find((x) => (JSON.parse(x.text) as { status: string }).status === "completed")!;
      expect(verifyCallback(done.raw, done.headers, gw.merchant.apiKey)).toBe(true);
      expect(JSON.parse(done.text)).toMatchObject({ orderNo: o.orderNo, chainCode: CODE, tokenSymbol: "USDT", paidAmount: "3.500000", confirmations: 2, status: "completed" });
      expect(await gw.client.request<Record<string, any>>("GET", `/openapi/payin/orders/${o.orderNo}`)).toMatchObject({ status: "completed", paidAmount: "3.500000" });
    } finally {
      await gw.stop();
      await receiver.stop();
    }
  });

  test("the profile is registered in this test only", () => {
    unregister();
    expect(() => chainModule(CODE)).toThrow("unknown chain");
    expect(isValidAddress(CODE, deriveKey("BSC", SEED, 0).address)).toBe(false);
    // Without the module, its config section is an unknown key again.
    expect(() => parseConfig({ chains: { [CODE]: { mode: "rpc" } } })).toThrow(`chains.${CODE}: unknown key`);
    unregister = registerChainModule(evmChainModule(PROFILE));
  });
});

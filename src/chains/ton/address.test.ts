// TON addresses (DESIGN 23): wallet v5r1 from m/44'/607'/0'/0'/i'/0', shown as UQ…, every form of one account accepted.
import { describe, expect, test } from "bun:test";
import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey } from "micro-ed25519-hdkey";
import { Address } from "@ton/core";
import { WalletContractV5R1 } from "@ton/ton";
import { keyPairFromSeed } from "@ton/crypto";
import { deriveTonKey, isTonAddress, normalizeTonAddress, randomTonAddress, tonSecretKey } from "./address";
import { tonChain, TON_USDT_MASTER } from "./index";

const SEED = mnemonicToSeedSync("abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about");

describe("TON keys", () => {
  test("the key is SLIP-0010 ed25519 at m/44'/607'/0'/0'/i'/0'; the address is @ton/ton's wallet v5r1 of it, non-bounceable", () => {
    for (const i of [0, 1, 7]) {
      const k = deriveTonKey(SEED, i);
      const seed32 = HDKey.fromMasterSeed(SEED).derive(`m/44'/607'/0'/0'/${i}'/0'`).privateKey;
      expect(Buffer.from(k.privateKey).toString("hex")).toBe(Buffer.from(seed32).toString("hex"));
      const kp = keyPairFromSeed(Buffer.from(k.privateKey));
      expect(tonSecretKey(k.privateKey).equals(kp.secretKey)).toBe(true);
      const wallet = WalletContractV5R1.create({ workchain: 0, publicKey: kp.publicKey });
      expect(k.address).toBe(wallet.address.toString({ bounceable: false, urlSafe: true }));
      expect(k.address.startsWith("UQ")).toBe(true);
    }
    expect(tonChain.derivation.path(3)).toBe("m/44'/607'/0'/0'/3'/0'");
    expect(deriveTonKey(SEED, 0).address).not.toBe(deriveTonKey(SEED, 1).address);
  });
});

describe("TON address forms", () => {
  const a = Address.parse(deriveTonKey(SEED, 3).address);
  const canonical = a.toString({ bounceable: false, urlSafe: true });
  test.each([
    ["raw", a.toRawString()],
    ["raw, upper-case hex", "0:" + a.hash.toString("hex").toUpperCase()],
    ["bounceable", a.toString({ bounceable: true, urlSafe: true })],
    ["non-bounceable", canonical],
    ["standard base64", a.toString({ bounceable: true, urlSafe: false })],
    ["test-only bounceable", a.toString({ bounceable: true, urlSafe: true, testOnly: true })],
    ["test-only non-bounceable", a.toString({ bounceable: false, urlSafe: true, testOnly: true })],
  ])("%s is accepted and normalised to UQ…", (_, form) => {
    expect(isTonAddress(form)).toBe(true);
    expect(normalizeTonAddress(form)).toBe(canonical);
  });

  test.each([
    ["empty", ""],
    ["junk", "not-an-address"],
    ["bad checksum", canonical.slice(0, -1) + (canonical.endsWith("A") ? "B" : "A")],
    ["surrounding space", ` ${canonical}`],
    ["masterchain", "-1:" + a.hash.toString("hex")],
    ["raw, short", "0:" + a.hash.toString("hex").slice(2)],
    ["a TRON address", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
  ])("%s is refused", (_, form) => {
    expect(isTonAddress(form)).toBe(false);
    expect(() => normalizeTonAddress(form)).toThrow("invalid TON address");
  });

  test("a random address is a valid canonical wallet address; the USDT master is valid", () => {
    const r = randomTonAddress();
    expect(normalizeTonAddress(r)).toBe(r);
    expect(isTonAddress(TON_USDT_MASTER)).toBe(true);
  });
});

describe("TON module", () => {
  const token = tonChain.defaults.tokens[0]!;
  const to = deriveTonKey(SEED, 5).address;
  test("USDT is Tether's jetton master with 6 decimals; off unless enabled; TON pays fees in nanotons", () => {
    expect(token).toEqual({ chain: "TON", symbol: "USDT", contract: "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", decimals: 6 });
    expect(tonChain.defaults.enabled).toBe(false);
    expect(tonChain.native).toEqual({ symbol: "TON", decimals: 9 });
  });

  test.each([
    ["order", 12_500_000n, "PI123", `ton://transfer/${to}?jetton=${TON_USDT_MASTER}&amount=12500000&text=PI123`],
    ["exclusive deposit", null, undefined, `ton://transfer/${to}?jetton=${TON_USDT_MASTER}`],
  ] as const)("the %s link is Tonkeeper's ton://transfer with the jetton, base units and the order number as comment", (_, amount, orderNo, uri) => {
    expect(tonChain.paymentUri(token, to, amount, orderNo)).toBe(uri);
  });

  test("rpc mode builds the toncenter adapter with its payout steps, fee estimate and restore reconcile; a key that is not the source's is refused before any call", async () => {
    const bundle = tonChain.createAdapter({ cfg: { rpc_urls: ["http://127.0.0.1:1"], confirmations: 1 }, tokens: [token], logger: { info() {}, warn() {}, error() {} } });
    const { adapter } = bundle;
    expect(adapter.chain).toBe("TON");
    expect(typeof bundle.payoutOps).toBe("function");
    expect(typeof bundle.unrecordedOutgoing).toBe("function");
    expect(await bundle.estimateTransferFee!({ from: to, to, token: "USDT", amount: 1n })).toMatchObject({ fee: 60_000_000n });
    const e = await adapter.signTransfer({ token: "USDT", from: to, to, amount: 1n, privateKey: new Uint8Array(32) }).catch((x) => x);
    expect(String(e.message)).toContain("key does not belong to");
    await adapter.stop();
  });
});

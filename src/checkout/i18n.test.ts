import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MESSAGES, networkName, networkOnlyName, pickLocale, statusKey, type MessageKey } from "./i18n";
import { PAYIN_STATUSES } from "./types";

describe("pickLocale", () => {
  test.each([
    [null, null, "en"],
    ["", null, "en"],
    ["zh-CN,zh;q=0.9,en;q=0.8", null, "zh"],
    ["zh-TW", null, "zh"],
    ["en-US,en;q=0.9", null, "en"],
    ["fr-FR,fr;q=0.9", null, "en"],
    ["fr-FR,zh;q=0.5", null, "zh"],
    ["en;q=0.4,zh;q=0.8", null, "zh"],
    ["zh;q=0,en;q=0.1", null, "en"],
    ["ZH-cn", null, "zh"],
    ["zh-CN", "en", "en"],
    ["en-US", "zh", "zh"],
    ["zh-CN", "de", "zh"],
  ])("Accept-Language %p with ?lang=%p -> %p", (header, explicit, expected) => {
    expect(pickLocale(header, explicit) as string).toBe(expected);
  });
});

describe("network names", () => {
  test.each([
    ["TRON", "USDT", "USDT on TRON (TRC20)"],
    ["BSC", "USDT", "USDT on BNB Smart Chain (BEP20)"],
    ["BSC", "USDC", "USDC on BNB Smart Chain (BEP20)"],
    ["SOL", "USDC", "USDC on Solana (SPL)"],
    ["ETH", "USDT", "USDT on Ethereum (ERC20)"],
    ["POLYGON", "USDC", "USDC on Polygon (ERC20)"],
    ["ARBITRUM", "USDT", "USDT on Arbitrum One (ERC20)"],
    ["BASE", "USDC", "USDC on Base (ERC20)"],
    ["OPTIMISM", "USDT", "USDT on OP Mainnet (ERC20)"],
    ["AVALANCHE", "USDC", "USDC on Avalanche C-Chain (ERC20)"],
    ["XLAYER", "USDT", "USDT on X Layer (ERC20)"],
    ["PLASMA", "USDT", "USDT on Plasma (ERC20)"],
    ["TON", "USDT", "USDT on TON (Jetton)"],
  ] as const)("%s %s", (chain, token, expected) => {
    expect(networkName("en", chain, token)).toBe(expected);
  });

  test("Chinese names keep the network and standard", () => {
    expect(networkName("zh", "TRON", "USDT")).toBe("TRON 网络（TRC20）上的 USDT");
    expect(networkOnlyName("en", "SOL")).toBe("Solana (SPL)");
  });
});

describe("the pages' texts against the pages' code", () => {
  const keys = Object.keys(MESSAGES.en) as MessageKey[];
  // The hosted pages' code (not the tests, not the dictionaries' own lines).
  const withoutDictionaries = (text: string) => text.replace(/^const (en|zh)\b[^\n]*\{\n[\s\S]*?^\};\n/gm, "");
  const code = readdirSync(import.meta.dir)
    .filter((f) => /\.ts$/.test(f) && !f.endsWith(".test.ts"))
    .map((f) => withoutDictionaries(readFileSync(join(import.meta.dir, f), "utf8")))
    .join("\n");
  /** Keys made at run time: `prefix.${…}` as MessageKey, statusKey("prefix", …). */
  const madePrefixes = new Set([...code.matchAll(/`([\w]+)\.\$\{/g), ...code.matchAll(/statusKey\("(\w+)"/g)].map((m) => m[1]!));
  const placeholders = (t: string) => [...new Set([...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

  test("every text is used: named in the code, or made from a prefix the code makes keys from", () => {
    const unused = keys.filter((k) => !code.includes(`"${k}"`) && !madePrefixes.has(k.split(".")[0]!));
    expect(unused).toEqual([]);
  });

  test("every key the code makes from a prefix exists: each status has its title, body and short word", () => {
    for (const prefix of madePrefixes) expect(keys.some((k) => k.startsWith(`${prefix}.`))).toBe(true);
    const missing = PAYIN_STATUSES.flatMap((s) => (["status", "body", "short"] as const).map((p) => statusKey(p, s))).filter((k) => !(k in MESSAGES.en));
    expect(missing).toEqual([]);
  });

  test("the Chinese text of every key fills the same placeholders as the English", () => {
    const differ = keys.filter((k) => placeholders(MESSAGES.en[k]).join() !== placeholders(MESSAGES.zh[k]).join());
    expect(differ).toEqual([]);
    for (const k of keys) expect(MESSAGES.zh[k].trim().length).toBeGreaterThan(0);
  });
});

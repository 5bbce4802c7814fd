// Which network a shop plugin asks for (DESIGN 24): BEpusdt's `trade_type` (`usdt.trc20`, …),
// GMPay's `token` + `network` (`usdt` + `tron`), or an EPay `type` that is one of those
// selectors (`usdt.trc20`, `usdt.tron`). Each names a "CHAIN:TOKEN" pair; the pair must be an
// enabled network of this gateway, looked up by chain code in the registry (so a chain added
// later, XLAYER, PLASMA, TON …, is served as soon as it exists and is enabled). A selector the
// gateway cannot serve is refused with a clear reason, never replaced by another network.
import { AppError } from "../errors";
import { chainAndToken } from "../orders/rules";
import type { CompatCtx } from "./service";
import { CompatProblem } from "./service";

/** BEpusdt's trade types and the network each names; null: a coin this gateway never takes. */
export const TRADE_TYPES: Readonly<Record<string, string | null>> = {
  "usdt.trc20": "TRON:USDT",
  "usdc.trc20": "TRON:USDC",
  "usdt.bep20": "BSC:USDT",
  "usdc.bep20": "BSC:USDC",
  "usdt.erc20": "ETH:USDT",
  "usdc.erc20": "ETH:USDC",
  "usdt.polygon": "POLYGON:USDT",
  "usdc.polygon": "POLYGON:USDC",
  "usdt.arbitrum": "ARBITRUM:USDT",
  "usdc.arbitrum": "ARBITRUM:USDC",
  "usdc.base": "BASE:USDC",
  "usdt.solana": "SOL:USDT",
  "usdc.solana": "SOL:USDC",
  "usdt.xlayer": "XLAYER:USDT",
  "usdc.xlayer": "XLAYER:USDC",
  "usdt.plasma": "PLASMA:USDT",
  "usdt.ton": "TON:USDT",
  "usdt.optimism": "OPTIMISM:USDT",
  "usdc.optimism": "OPTIMISM:USDC",
  "usdt.avalanche": "AVALANCHE:USDT",
  "usdc.avalanche": "AVALANCHE:USDC",
  "usdt.aptos": "APTOS:USDT",
  "usdc.aptos": "APTOS:USDC",
  // Native coins: stablegate takes stablecoins only.
  "tron.trx": null,
  "eth.erc20": null,
  "bnb.bep20": null,
  "ton.ton": null,
};

/** GMPay's network names (and common aliases) → chain codes. Chain codes themselves work too. */
export const NETWORK_NAMES: Readonly<Record<string, string>> = {
  tron: "TRON",
  trc20: "TRON",
  ethereum: "ETH",
  erc20: "ETH",
  eth: "ETH",
  bsc: "BSC",
  binance: "BSC",
  bep20: "BSC",
  polygon: "POLYGON",
  arbitrum: "ARBITRUM",
  base: "BASE",
  solana: "SOL",
  sol: "SOL",
  xlayer: "XLAYER",
  plasma: "PLASMA",
  ton: "TON",
  optimism: "OPTIMISM",
  avalanche: "AVALANCHE",
  aptos: "APTOS",
};

/** The "CHAIN:TOKEN" an enabled network has, or a CompatProblem saying why not. */
export function enabledNetwork(ctx: Pick<CompatCtx, "chains">, pair: string, asked: string): string {
  const [chain = "", token = ""] = pair.split(":");
  try {
    const { adapter, token: t } = chainAndToken(ctx, chain, token);
    return `${adapter.chain}:${t.symbol}`;
  } catch (e) {
    if (e instanceof AppError) throw new CompatProblem("no_wallet", `${asked} (${token} on ${chain}) is not enabled on this gateway`);
    throw e;
  }
}

/** A BEpusdt trade type's network (case-insensitive), or a refusal. */
export function tradeTypeNetwork(ctx: Pick<CompatCtx, "chains">, tradeType: string): string {
  const key = tradeType.trim().toLowerCase();
  if (!(key in TRADE_TYPES)) throw new CompatProblem("unsupported", `trade_type ${tradeType} is not known here; use one of ${Object.keys(TRADE_TYPES).filter((k) => TRADE_TYPES[k]).join(", ")}`);
  const pair = TRADE_TYPES[key];
  if (!pair) throw new CompatProblem("unsupported", `trade_type ${tradeType} is a native coin; this gateway takes stablecoins only (USDT, USDC), e.g. usdt.trc20`);
  return enabledNetwork(ctx, pair, `trade_type ${tradeType}`);
}

/** GMPay's token + network (`usdt` + `tron`, any case) as an enabled network, or a refusal. */
export function tokenNetwork(ctx: Pick<CompatCtx, "chains">, token: string, network: string): string {
  const chain = NETWORK_NAMES[network.trim().toLowerCase()] ?? network.trim().toUpperCase();
  const symbol = token.trim().toUpperCase();
  if (symbol !== "USDT" && symbol !== "USDC") throw new CompatProblem("unsupported", `token ${token} is not taken here; this gateway takes USDT and USDC`);
  return enabledNetwork(ctx, `${chain}:${symbol}`, `${token} on ${network}`);
}

/**
 * An EPay `type` that selects a network: a BEpusdt trade type (`usdt.trc20`) or GMPay's
 * `token.network` (`usdt.tron`). Null for anything else (`alipay`, `wxpay`, `usdt`, empty):
 * the payer picks the network.
 */
export function epayTypeNetwork(ctx: Pick<CompatCtx, "chains">, type: string | undefined): string | null {
  const t = (type ?? "").trim().toLowerCase();
  if (!t.includes(".")) return null;
  if (t in TRADE_TYPES) return tradeTypeNetwork(ctx, t);
  const [token = "", network = ""] = t.split(".");
  if (network in NETWORK_NAMES) return tokenNetwork(ctx, token, network);
  return null;
}

/** The BEpusdt trade type of a network ("TRON:USDT" → "usdt.trc20"), or the pair in lower case. */
export function tradeTypeOf(pair: string): string {
  const found = Object.entries(TRADE_TYPES).find(([, p]) => p === pair);
  return found ? found[0] : pair.toLowerCase().split(":").reverse().join(".");
}

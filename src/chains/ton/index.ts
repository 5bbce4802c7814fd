// TON: USDT as a jetton, wallet v5r1 receiving addresses (UQ…), `ton://transfer` links, finality by
// masterchain blocks (DESIGN 23; docs/networks.md, "TON").
import type { ChainModule } from "../module";
import { deriveTonKey, isTonAddress, normalizeTonAddress, randomTonAddress, tonPath } from "./address";
import { filterSeq } from "../../lib/async-seq";

/** Tether's USDT jetton master on TON (6 decimals; docs/networks.md cites Tether's list). */
export const TON_USDT_MASTER = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";

// The toncenter adapter (and @ton/core with it) loads only when an rpc-mode TON adapter is built.
const rpcAdapter = (): typeof import("./adapter") => require("./adapter");
const tonPayoutSteps = (): typeof import("./payout-steps") => require("./payout-steps");

export const tonChain: ChainModule = {
  code: "TON",
  defaults: {
    // Off until the operator turns it on (DESIGN 23); `serve --demo` turns it on in sandbox mode.
    enabled: false,
    // Masterchain blocks, the transaction's own included: a TON block in the masterchain is final (BFT), so one is enough.
    confirmations: 1,
    blockTime: "3s",
    tokens: [{ chain: "TON", symbol: "USDT", contract: TON_USDT_MASTER, decimals: 6 }],
  },
  label: { network: "TON", standard: "Jetton" },
  color: "#0098ea",
  native: { symbol: "TON", decimals: 9 },
  explorer: { name: "Tonviewer", tx: "https://tonviewer.com/transaction/{tx}", address: "https://tonviewer.com/{address}" },
  address: { isValid: (s) => isTonAddress(s), normalize: (s) => normalizeTonAddress(s), random: () => randomTonAddress() },
  // Transaction and block hashes as lowercase hex (what Tonviewer's pages take).
  ids: { block: (h) => Buffer.from(h).toString("hex"), tx: (h) => Buffer.from(h).toString("hex") },
  derivation: { coinType: 607, account: 0, path: (i) => tonPath(i) },
  deriveKey: (seed, index) => deriveTonKey(seed, index),
  // Over toncenter v3: pay-ins and exclusive wallets (scan, sweep, look-up), and sending (payouts, refunds, collection legs, top-ups: send.ts).
  createAdapter: ({ cfg, tokens, logger, clock }) => {
    const m = rpcAdapter();
    const adapter = m.createTonAdapter({ rpcUrls: cfg.rpc_urls, apiKey: cfg.api_key, tokens, confirmations: cfg.confirmations, logger, clock });
    return {
      adapter,
      payoutOps: (ctx, env) => tonPayoutSteps().tonPayoutOps(ctx, adapter, env),
      // The TON a jetton transfer attaches (its excess comes back) and the wallet's fees: an upper bound of what it costs.
      estimateTransferFee: async () => ({ fee: m.JETTON_TRANSFER_TON + m.WALLET_FEE_RESERVE, note: "an upper bound: the unused part of the attached TON comes back to the source" }),
      // Restore reconcile: every message the source's wallet took after the backup's cursor that the database did not store.
      unrecordedOutgoing: async (_ctx, q) => (q.since === null ? [] : await filterSeq((await adapter.sentBy(q.address, q.since)), async (t) => !await q.known(t.txHash))),
    };
  },
  // Tonkeeper's transfer link (ton-connect "deeplinks"): the jetton master, the amount in its base units, the order number as the comment.
  paymentUri: (token, address, amount, orderNo) => {
    const q = new URLSearchParams({ jetton: token.contract });
    if (amount !== null) q.set("amount", amount.toString());
    if (orderNo) q.set("text", orderNo);
    return `ton://transfer/${address}?${q.toString()}`;
  },
  // Tonkeeper, MyTonWallet and Telegram's Wallet read `ton://transfer` QRs and open it as a link; the jetton in it stops a payer sending TON instead.
  walletLinks: { order: "paymentUri", deposit: "paymentUri", walletButton: true },
};

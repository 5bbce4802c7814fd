// TRON: TRC20 USDT, base58check addresses, TRX top-ups before payouts.
import type { ChainBundle, ChainModule, OutgoingQuery } from "../module";
import { tronSandboxApi, tronSandboxRules } from "./sandbox";
import { deriveTronKey, isTronAddress, normalizeTronAddress, randomTronAddress } from "./address";
import { createTronAdapter, type TronAdapter, type TronSentTx } from "./adapter";
import { tronPayoutOps } from "./payout-steps";
import { energyControl, energyJobs, energySteps } from "./energy";
import { KeyedLock } from "../payout-steps";
import { fromBaseUnits } from "../../lib/money";
import type { ChainAdapter } from "../types";
import { Type as T } from "@sinclair/typebox";
import type { TronChainApi, TronEnergyConfig } from "./adapter";
import { filterSeq } from "../../lib/async-seq";

/** `[chains.TRON.energy]` (DESIGN 21). */
const ENERGY_SECTION = T.Object(
  {
    mode: T.Union([T.Literal("burn"), T.Literal("stake")], {
      default: "burn",
      description: '"burn": each TRC20 transfer burns TRX for its energy (via its fee limit); "stake": the energy wallet delegates energy from its staked TRX to the source before the transfer and reclaims it once final',
    }),
    fallback: T.Union([T.Literal("burn"), T.Literal("wait")], {
      default: "burn",
      description: 'stake mode, when the stake has not enough energy free: "burn" TRX as in burn mode, or "wait" until the stake regenerates (up to 24 h)',
    }),
  },
  { additionalProperties: false, default: {} },
);


/** TRC20 transfer energy to an existing holder, with the 20 % margin the signer adds (the shared contract's docs/chains.md, ../shared/docs/ beside this repository). */
const TRANSFER_ENERGY = (65_000n * 12n) / 10n;
const TRANSFER_BANDWIDTH = 345n;

/**
 * What the gateway's addresses signed since a restore's cursor: every block is read once for
 * all of them (a TRON node has no per-sender index), then only the blocks added since.
 * Addresses made after the first read are past the restore's index gap: they sent nothing before.
 */
interface SentCache {
  since: bigint;
  next: bigint;
  byOwner: Map<string, TronSentTx[]>;
  owners: Set<string>;
  lastSeq: number;
  /** One read at a time: two sources checked at once must not both add the same blocks. */
  tail: Promise<unknown>;
}
const sentCache = new WeakMap<ChainAdapter, SentCache>();
function sentSince(adapter: TronAdapter, since: bigint, addressesAfter: OutgoingQuery["addressesAfter"]): Promise<SentCache> {
  let c = sentCache.get(adapter);
  if (!c || c.since !== since) sentCache.set(adapter, (c = { since, next: since + 1n, byOwner: new Map(), owners: new Set(), lastSeq: 0, tail: Promise.resolve() }));
  const cache = c;
  const run = cache.tail.then(() => readSent(adapter, cache, addressesAfter));
  cache.tail = run.catch(() => {});
  return run;
}
async function readSent(adapter: TronAdapter, c: SentCache, addressesAfter: OutgoingQuery["addressesAfter"]): Promise<SentCache> {
  // Addresses are only ever inserted: read those added since the last call.
  for (const r of await addressesAfter(adapter.chain, c.lastSeq)) {
    c.owners.add(r.address);
    c.lastSeq = Math.max(c.lastSeq, r.seq);
  }
  const { txs, to } = await adapter.transactionsFrom(c.owners, c.next);
  for (const t of txs) c.byOwner.set(t.owner, [...(c.byOwner.get(t.owner) ?? []), t]);
  c.next = to + 1n > c.next ? to + 1n : c.next;
  return c;
}

/** What a TRON chain's bundle adds to its adapter, rpc or sandbox: payout steps, energy jobs and staking, the fee estimate. */
function tronParts(adapter: TronChainApi): Omit<ChainBundle, "adapter" | "unrecordedOutgoing"> {
  return {
    // Energy of a TRC20 transfer to an existing holder, with the signer's 20 % margin, plus its bandwidth, at the node's prices.
    estimateTransferFee: async () => {
      const p = await adapter.chainParams();
      return { fee: TRANSFER_ENERGY * p.energyFee + TRANSFER_BANDWIDTH * p.transactionFee };
    },
    payoutOps: (ctx, env) => tronPayoutOps(ctx, adapter, env),
    // Stake mode: the job that reclaims energy delegated to sources once their transfers are final.
    jobs: (ctx, _addresses, payouts) => {
      const locks = new KeyedLock();
      return energyJobs(ctx, adapter, energySteps(ctx, adapter, payouts, (key, fn) => locks.run(key, fn)));
    },
    staking: (ctx) => energyControl(ctx, adapter),
  };
}

export const tronChain: ChainModule = {
  code: "TRON",
  defaults: {
    confirmations: 19,
    blockTime: "3s",
    tokens: [
      // Mainnet TRC20 USDT (DESIGN 9); config may override contract and decimals.
      { chain: "TRON", symbol: "USDT", contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 },
    ],
    sectionKeys: { energy: ENERGY_SECTION },
  },
  label: { network: "TRON", standard: "TRC20" },
  color: "#eb0029",
  native: { symbol: "TRX", decimals: 6 },
  explorer: { name: "Tronscan", tx: "https://tronscan.org/#/transaction/{tx}", address: "https://tronscan.org/#/address/{address}" },
  address: { isValid: (s) => isTronAddress(s), normalize: (s) => normalizeTronAddress(s), random: () => randomTronAddress() },
  ids: { block: (h) => Buffer.from(h).toString("hex"), tx: (h) => Buffer.from(h).toString("hex") },
  derivation: { coinType: 195, account: 0, path: (i) => `m/44'/195'/0'/0/${i}` },
  deriveKey: (seed, index) => deriveTronKey(seed, index),
  createAdapter: ({ cfg, tokens, logger, clock }) => {
    const adapter = createTronAdapter({ rpcUrls: cfg.rpc_urls, apiKey: cfg.api_key, tokens, confirmations: cfg.confirmations, logger, clock, energy: cfg.energy as TronEnergyConfig | undefined });
    return {
      adapter,
      ...tronParts(adapter),
      // Restore reconcile: every transaction the source signed after the backup's cursor that the database did not store.
      unrecordedOutgoing: async (_ctx, q) => {
        if (q.since === null) return [];
        const sent = await sentSince(adapter, q.since, q.addressesAfter);
        return (await filterSeq((sent.byOwner.get(q.address) ?? []), async (t) => !await q.known(t.txHash))).map(({ owner: _, ...t }) => t);
      },
    };
  },
  // The sandbox TRON chain charges TRX, bandwidth and energy as mainnet does, with Stake 2.0 (sandbox.ts).
  sandbox: {
    rules: tronSandboxRules,
    bundle: (chain, cfg) => tronParts(tronSandboxApi(chain, cfg.energy as TronEnergyConfig | undefined)),
  },
  collectionDust: 1n,
  paymentUri: (token, address, amount) => {
    const ui = amount === null ? null : fromBaseUnits(amount, token.decimals, 0);
    return `tron:${address}?` + (ui === null ? "" : `amount=${ui}&`) + `token=${token.contract}`;
  },
  // No TRON wallet documents a payment URI; all of them read a bare address.
  walletLinks: { order: "address", deposit: "address", walletButton: false },
};

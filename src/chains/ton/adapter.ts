// The rpc-mode TON adapter over toncenter v3 (DESIGN 23), put together from its parts: scan.ts
// (head, block hashes, the masterchain-block scan), sweep.ts (the owner's transactions, DESIGN 25),
// lookup.ts (one transaction by hash) and the balance reads here. Sending (payouts,
// refunds, collection legs) is not built yet: signTransfer refuses with a permanent error, so a
// TON payout fails at submit with that reason and nothing leaves the wallet.
import type { Clock } from "../../lib/clock";
import type { RpcLogger } from "../json-rpc";
import type { RpcEndpoint } from "../common/failover";
import type { ChainAdapter, SignedTransfer, TokenInfo, TxState } from "../types";
import { deriveTonKey, isTonAddress, normalizeTonAddress, tonCore } from "./address";
import { TonRpc } from "./rpc";
import { tonScanner, type CounterfeitNotice } from "./scan";
import { tonSweep } from "./sweep";
import { tonTxLookup } from "./lookup";

export const TON_SEND_PENDING = "TON payouts are not available yet in rpc mode (the send part of the TON adapter is in progress); nothing was sent";

class TonSendUnavailable extends Error {
  readonly permanent = true;
  constructor() {
    super(TON_SEND_PENDING);
    this.name = "TonSendUnavailable";
  }
}

export interface TonAdapterOptions {
  rpcUrls: RpcEndpoint[];
  apiKey?: string;
  tokens: TokenInfo[];
  confirmations: number;
  logger?: RpcLogger;
  clock?: Clock;
}

export type TonAdapter = ChainAdapter & { readonly rpc: TonRpc; counterfeits(): CounterfeitNotice[] };

export function createTonAdapter(o: TonAdapterOptions): TonAdapter {
  const rpc = new TonRpc({ urls: o.rpcUrls, apiKey: o.apiKey, logger: o.logger, clock: o.clock });
  const seen: CounterfeitNotice[] = [];
  const scanner = tonScanner({
    rpc,
    tokens: o.tokens,
    confirmations: o.confirmations,
    onCounterfeit: (n) => {
      seen.push(n);
      if (seen.length > 1000) seen.shift();
      o.logger?.warn({ msg: "look-alike jetton sent to a gateway address: not credited", chain: "TON", txHash: n.txHash, to: n.to, jettonWallet: n.jettonWallet, amount: n.amount.toString() });
    },
  });

  async function jettonBalance(owner: string): Promise<bigint> {
    const wallet = await scanner.jettonWalletOf(owner);
    const acc = await rpc.get<{ status: string }>("account", { address: wallet });
    if (acc.status !== "active") return 0n;
    const r = await rpc.post<{ exit_code: number; stack: Array<{ type: string; value: string }> }>("runGetMethod", { address: wallet, method: "get_wallet_data", stack: [] });
    if (r.exit_code !== 0 || r.stack[0]?.type !== "num") throw new Error(`get_wallet_data of ${wallet} failed (exit code ${r.exit_code})`);
    return BigInt(r.stack[0].value);
  }

  return {
    chain: "TON",
    mode: "rpc",
    tokens: o.tokens,
    requiredConfirmations: o.confirmations,
    rpc,
    counterfeits: () => [...seen],
    async start() {
      // The node answers, and the configured master is a jetton master (it assigns a wallet).
      await scanner.head();
      const { Address } = tonCore();
      const probe = Address.parseRaw("0:" + "00".repeat(32)).toString({ bounceable: false });
      await scanner.jettonWalletOf(probe);
    },
    async stop() {
      rpc.close();
    },
    deriveKey: (seed, index) => deriveTonKey(seed, index),
    isValidAddress: (a) => isTonAddress(a),
    normalizeAddress: (a) => normalizeTonAddress(a),
    head: () => scanner.head(),
    blockHash: (n) => scanner.blockHash(n),
    scan: (from, to, watch) => scanner.scan(from, to, watch),
    sweep: tonSweep({ rpc, blockRef: scanner.blockRef, transferOf: scanner.transferOf }),
    lookupTx: tonTxLookup({ rpc, tokens: o.tokens, head: scanner.head, blockRef: scanner.blockRef, decodeNotification: scanner.decodeNotification }),
    async tokenBalance(address, token) {
      if (token !== "USDT") throw new Error(`TON carries no ${token}`);
      return jettonBalance(normalizeTonAddress(address));
    },
    async signTransfer(): Promise<SignedTransfer> {
      throw new TonSendUnavailable();
    },
    async broadcast() {
      return { ok: false, permanent: true, error: TON_SEND_PENDING };
    },
    async txState(): Promise<TxState> {
      return { state: "unknown" };
    },
  };
}

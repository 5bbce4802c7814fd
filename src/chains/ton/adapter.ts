// The rpc-mode TON adapter over toncenter v3 (DESIGN 23), put together from its parts: scan.ts
// (head, block hashes, the masterchain-block scan), sweep.ts (the owner's transactions, DESIGN 25),
// lookup.ts (one transaction by hash), send.ts (jetton and TON transfers from wallets v5r1,
// signed here, deployed by their first transfer) and the balance reads here.
import type { Clock } from "../../lib/clock";
import type { RpcLogger } from "../json-rpc";
import type { RpcEndpoint } from "../common/failover";
import type { NativeTransferRequest } from "../common/adapter-parts";
import type { ChainAdapter, SignedTransfer, TokenInfo } from "../types";
import type { UnrecordedTransfer } from "../module";
import { deriveTonKey, isTonAddress, normalizeTonAddress, tonCore, tonFriendly } from "./address";
import { TonRpc } from "./rpc";
import { b64hex, OP_JETTON_TRANSFER, tonScanner, type CounterfeitNotice, type V3Transaction } from "./scan";
import { tonSweep } from "./sweep";
import { tonTxLookup } from "./lookup";
import { broadcast, signJettonTransfer, signTonTransfer, txCost, txState, walletState, type TonSendDeps, type TonTxMeta } from "./send";

export type { TonTxMeta };

export interface TonAdapterOptions {
  rpcUrls: RpcEndpoint[];
  apiKey?: string;
  tokens: TokenInfo[];
  confirmations: number;
  logger?: RpcLogger;
  clock?: Clock;
}

export type TonAdapter = ChainAdapter & {
  readonly rpc: TonRpc;
  counterfeits(): CounterfeitNotice[];
  /** A gas top-up: nanotons from the gas wallet (non-bounceable, so it reaches a wallet not deployed yet). */
  signNativeTransfer(req: NativeTransferRequest & { from: string }): Promise<SignedTransfer>;
  /** Nanotons `address` holds (the gas monitor reads the gas wallet's: /readyz, metrics, the gas_low alert). */
  nativeBalance(address: string): Promise<bigint>;
  /** The wallet's TON balance, whether it is deployed, and its seqno. */
  wallet(address: string): Promise<{ active: boolean; balance: bigint; seqno: number }>;
  /** Messages `owner`'s wallet sent (external messages it took) in masterchain blocks after `after` (restore reconcile). */
  sentBy(owner: string, after: bigint): Promise<Array<UnrecordedTransfer & { txHash: string }>>;
};

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

  const send: TonSendDeps = { rpc, jettonWalletOf: (owner) => scanner.jettonWalletOf(owner), head: () => scanner.head() };

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
    signTransfer: (req) => signJettonTransfer(send, req),
    signNativeTransfer: (req) => signTonTransfer(send, req),
    broadcast: (tx) => broadcast(send, tx),
    txState: (tx) => txState(send, tx),
    txCost: (tx) => txCost(send, tx),
    wallet: (address) => walletState(rpc, normalizeTonAddress(address)),
    nativeBalance: async (address) => (await walletState(rpc, normalizeTonAddress(address))).balance,
    sentBy: (owner, after) => sentBy(owner, after),
  };

  /** What a wallet's transaction sent: a USDT transfer from its own jetton wallet (recipient, amount), else TON. */
  async function whatItSent(owner: string, t: V3Transaction): Promise<Pick<UnrecordedTransfer, "to" | "asset" | "amount">> {
    const m = t.out_msgs[0];
    if (!m?.destination) return {};
    const { Address, Cell } = tonCore();
    if (Number(m.opcode) === OP_JETTON_TRANSFER && m.message_content?.body && Address.parseRaw(m.destination).toRawString() === (await scanner.jettonWalletOf(owner))) {
      try {
        const s = Cell.fromBase64(m.message_content.body).beginParse();
        s.loadUint(32);
        s.loadUintBig(64);
        const amount = s.loadCoins();
        return { to: tonFriendly(s.loadAddress()), asset: "USDT", amount };
      } catch {}
    }
    return { to: tonFriendly(Address.parseRaw(m.destination)), asset: "TON", amount: BigInt(m.value ?? "0") };
  }

  /** The owner's transactions that took an external message (what its key signed) in blocks after `after`, oldest first. */
  async function sentBy(owner: string, after: bigint): Promise<Array<UnrecordedTransfer & { txHash: string }>> {
    const since = Math.floor((await scanner.blockRef(after)).time / 1000);
    const out: Array<UnrecordedTransfer & { txHash: string }> = [];
    const limit = 256;
    for (let offset = 0; ; offset += limit) {
      const r = await rpc.get<{ transactions?: V3Transaction[] }>("transactions", { account: owner, start_utime: since, sort: "asc", limit, offset });
      const page = r.transactions ?? [];
      for (const t of page) {
        if (t.in_msg?.source || !t.in_msg || t.mc_block_seqno == null || BigInt(t.mc_block_seqno) <= after) continue;
        out.push({ txHash: b64hex(t.in_msg.hash), blockNumber: BigInt(t.mc_block_seqno), ...(await whatItSent(owner, t)) });
      }
      if (page.length < limit) return out;
    }
  }
}

export { JETTON_TRANSFER_TON, WALLET_FEE_RESERVE } from "./send";

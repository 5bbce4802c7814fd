// TRON in rpc mode over the full-node HTTP API (java-tron / TronGrid).
// Detection: per block, /wallet/getblockbynum (id, time, parent, tx ids) and, only for
// blocks with transactions, /wallet/gettransactioninfobyblocknum (the logs); Transfer logs
// of the configured token contracts are matched locally against the watch set, so the
// calls per block never depend on how many addresses are watched. Finality: solidified
// (/walletsolidity/getnowblock). Payouts: TRC20 `transfer` and TRX transfers built and
// signed locally (tx.ts), never a node-built transaction.
// The parts, by concern: node.ts (the node, blocks, constant calls, chain parameters, start-up
// checks), scan.ts (head, transfers in a block range, what owners signed), fees.ts (balances,
// energy and stake, fee limits, costs), send.ts (sign, broadcast, transaction state); this file
// puts them together as one ChainAdapter.
import type { DerivedKey } from "../types";
import { deriveTronKey, isTronAddress, normalizeTronAddress } from "./address";
import { TransferWouldRevertError, type NativeTransferRequest } from "../common/adapter-parts";
import { checkNode, connectTronNode } from "./node";
import { blockHashAt, readHead, scanTransfers, transactionsFrom } from "./scan";
import { tronSweep } from "./sweep";
import { tronTxLookup } from "./lookup";
import { accountOf, canDelegate, delegatedTo, energyOf, receiptOf, stakeOf, tokenBalance, trxNeeded, txCost } from "./fees";
import { broadcast, signNativeTransfer, signStake, signTransfer, txState } from "./send";
import type { TronAdapter, TronAdapterOptions } from "./types";

export { TransferWouldRevertError, type NativeTransferRequest };
export type {
  TronAccount,
  TronAdapter,
  TronAdapterOptions,
  TronChainApi,
  TronChainParams,
  TronEnergy,
  TronEnergyConfig,
  TronReceipt,
  TronSentTx,
  TronStake,
  TronTxMeta,
} from "./types";

export function createTronAdapter(opts: TronAdapterOptions): TronAdapter {
  const node = connectTronNode(opts);
  const { rpc, tokens } = node;
  const head = () => adapter.head();

  const adapter: TronAdapter = {
    chain: "TRON",
    mode: "rpc",
    tokens,
    requiredConfirmations: opts.confirmations,
    rpc,
    lookupTx: tronTxLookup(rpc, tokens, head, (n) => adapter.blockHash(n)),
    energy: opts.energy ?? { mode: "burn", fallback: "burn" },
    sweep: tronSweep({ rpc, tokens }),

    start: () => checkNode(node),
    async stop() {
      rpc.close();
    },

    deriveKey(seed: Uint8Array, index: number): DerivedKey {
      return deriveTronKey(seed, index);
    },
    isValidAddress: isTronAddress,
    normalizeAddress: normalizeTronAddress,

    head: () => readHead(node),
    transactionsFrom: (owners, from) => transactionsFrom(node, owners, from),
    blockHash: (n) => blockHashAt(node, n),
    scan: (from, to, watch) => scanTransfers(node, from, to, watch),

    tokenBalance: (address, symbol) => tokenBalance(node, address, symbol),
    account: (address) => accountOf(node, address),
    chainParams: () => node.chainParams(),
    signTransfer: (req) => signTransfer(node, req),
    energyOf: (address) => energyOf(node, address),
    stakeOf: (address) => stakeOf(node, address),
    canDelegate: (owner) => canDelegate(node, owner),
    delegatedTo: (owner, receiver) => delegatedTo(node, owner, receiver),
    signStake: (req) => signStake(node, req),
    txCost: (tx) => txCost(node, tx),
    receipt: (txHash) => receiptOf(node, txHash),
    signNativeTransfer: (req) => signNativeTransfer(node, req),
    trxNeeded: (tx) => trxNeeded(node, tx),
    broadcast: (tx) => broadcast(node, tx),
    txState: (tx) => txState(node, head, tx),
  };
  return adapter;
}

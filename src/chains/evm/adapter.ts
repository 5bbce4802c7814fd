// An EVM chain in rpc mode (BSC is one profile): detection by eth_getLogs on the token
// contracts, token and native transfers signed locally (EIP-1559 type 2 where the chain has a
// base fee, legacy type 0 elsewhere; the profile's chain id), all over raw JSON-RPC so no
// client-side cache ever serves a stale block number (the shared contract's docs/chains.md, ../shared/docs/ beside this repository).
// Fees: docs/payouts.md "Fees, EIP-1559 and L1 data fees"; replacement of a transaction that
// does not confirm: signReplacement (same nonce, raised fees, up to gas_price_cap).
// The parts, by concern: node.ts (the node and start-up checks), scan.ts (head, blocks, transfer
// logs), fees.ts (market fees, gas, L1 data fee, replacement fees), send.ts (sign, broadcast,
// transaction state); this file puts them together as one ChainAdapter.
import { encodeFunctionData, getAddress } from "viem";
import type { DerivedKey, TokenSymbol } from "../types";
import { deriveEvmKey, isEvmAddress, normalizeEvmAddress } from "./address";
import { TransferWouldRevertError, type NativeTransferRequest } from "../common/adapter-parts";
import { checkNode, connectEvmNode, ERC20_ABI } from "./node";
import { blockHashAt, isRangeRefusal, logReader, outgoingTokenTransfers, readHead, scanTransfers, TRANSFER_TOPIC } from "./scan";
import { evmSweep } from "./sweep";
import { evmTxLookup } from "./lookup";
import { estimateTransferFee, marketFees } from "./fees";
import { broadcast, nonceFor, nonceVerdict, signNativeTransfer, signReplacement, signTokenTransfer, txCost, txState } from "./send";
import type { EvmAdapter, EvmAdapterOptions, EvmProfile } from "./types";

export { TransferWouldRevertError, type NativeTransferRequest };
export { TRANSFER_TOPIC, isRangeRefusal } from "./scan";
export { GAS_PRICE_ORACLE, bumpFee } from "./fees";
export type { EvmAdapter, EvmAdapterOptions, EvmFees, EvmFinality, EvmProfile, EvmTxMeta } from "./types";

export function createEvmAdapter(profile: EvmProfile, opts: EvmAdapterOptions): EvmAdapter {
  const node = connectEvmNode(profile, opts);
  const { rpc } = node;
  const readLogs = logReader(node);
  const head = () => adapter.head();
  const verdict = (tx: Parameters<EvmAdapter["nonceVerdict"]>[0]) => adapter.nonceVerdict(tx);

  const adapter: EvmAdapter = {
    chain: profile.chain,
    mode: "rpc",
    tokens: node.tokens,
    requiredConfirmations: opts.confirmations,
    rpc,
    sweep: evmSweep({ chain: profile.chain, name: profile.name, rpc, tokens: node.tokens, transferTopic: TRANSFER_TOPIC, maxLogRange: Math.max(1, opts.maxLogRange ?? 1000), isRangeRefusal }),
    lookupTx: evmTxLookup(rpc, node.tokens, head),

    start: () => checkNode(node),
    async stop() {
      rpc.close();
    },

    deriveKey(seed: Uint8Array, index: number): DerivedKey {
      return deriveEvmKey(seed, profile.bip44Account, index);
    },
    isValidAddress: isEvmAddress,
    normalizeAddress: normalizeEvmAddress,

    head: () => readHead(node),
    blockHash: (n) => blockHashAt(node, n),
    scan: (from, to, watch) => scanTransfers(node, readLogs, from, to, watch),

    async tokenBalance(address: string, symbol: TokenSymbol) {
      const data = encodeFunctionData({ abi: ERC20_ABI, functionName: "balanceOf", args: [getAddress(address)] });
      return BigInt(await node.call(node.token(symbol).contract, data));
    },
    pendingNonce: (address: string) => nonceFor(node, address),
    outgoingTokenTransfers: (address, from) => outgoingTokenTransfers(node, readLogs, address, from),
    async transactionNonce(txHash: string) {
      const t = await rpc.request<{ nonce: string } | null>("eth_getTransactionByHash", [txHash]);
      return t ? Number(BigInt(t.nonce)) : null;
    },
    async nativeBalance(address: string) {
      return BigInt(await rpc.request<string>("eth_getBalance", [getAddress(address), "latest"]));
    },

    signTransfer: (req) => signTokenTransfer(node, req),
    signNativeTransfer: (req) => signNativeTransfer(node, req),
    estimateTransferFee: (from, to, symbol, amount) => estimateTransferFee(node, (a) => nonceFor(node, a), from, to, symbol, amount),
    marketFees: () => marketFees(node),
    signReplacement: (prev, privateKey) => signReplacement(node, prev, privateKey),
    nonceVerdict: (tx) => nonceVerdict(node, head, tx),
    broadcast: (tx) => broadcast(node, verdict, tx),
    txCost: (tx) => txCost(node, tx),
    txState: (tx) => txState(node, head, verdict, tx),
  };
  return adapter;
}

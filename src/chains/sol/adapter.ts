// Solana in rpc mode. Detection (DESIGN 9; the shared contract's docs/chains.md, ../shared/docs/): by blocks (getBlock per finalized slot,
// matched locally) when the watch set is large, else getSignaturesForAddress on each
// watched owner's associated token account (ATA), then getTransaction (jsonParsed, finalized);
// received = post − pre token balance of our ATA. Payouts: transferChecked from the source's ATA,
// the recipient's ATA created idempotently, fees and rent paid by a fee payer (the gas wallet).
// Slots are the block numbers of the ChainAdapter interface; see docs/design.md "Solana".
// The parts, by concern: node.ts (mints, RPC client, token accounts, rent), scan.ts (head,
// transfers in a slot range, what an owner signed), send.ts (sign, broadcast, transaction state
// and cost); this file puts them together as one ChainAdapter.
import type { DerivedKey, TokenSymbol } from "../types";
import { deriveSolKey, isSolAddress, normalizeSolAddress } from "./address";
import { connectSolNode, LAMPORTS_PER_SIGNATURE, slotName } from "./node";
import { readHead, scanTransfers, signatureReader, signedBy, transfersOf } from "./scan";
import { solSweep } from "./sweep";
import { solTxLookup } from "./lookup";
import { broadcast, signCreateTokenAccounts, signTransfer, txCost, txState } from "./send";
import type { SolAdapter, SolAdapterOptions } from "./types";

export { LAMPORTS_PER_SIGNATURE };
export { SolTransferRefused } from "./types";
export type { SolAdapter, SolAdapterOptions, SolCreateAccountsMeta, SolSentTx, SolTransferRequest, SolTxMeta } from "./types";

export function createSolAdapter(opts: SolAdapterOptions): SolAdapter {
  const node = connectSolNode(opts);
  const { rpc, tokens } = node;
  const signaturesOf = signatureReader(node);
  const head = () => adapter.head();

  const adapter: SolAdapter = {
    chain: "SOL",
    mode: "rpc",
    tokens,
    requiredConfirmations: opts.confirmations,
    rpc,
    sweep: solSweep({ rpc, tokens, ataOf: (owner, symbol) => node.ataOf(owner, node.token(symbol)), transfersOf: (sig, tx, watch) => transfersOf(node, sig, tx, watch) }),
    lookupTx: solTxLookup(rpc, tokens, (owner, t) => adapter.tokenAccountOf(owner, t.symbol), head),

    start: () => node.checkMints(),
    async stop() {
      rpc.close();
    },

    deriveKey(seed: Uint8Array, index: number): DerivedKey {
      return deriveSolKey(seed, index);
    },
    isValidAddress: isSolAddress,
    normalizeAddress: normalizeSolAddress,

    tokenAccountOf(owner: string, symbol: TokenSymbol) {
      return node.ataOf(normalizeSolAddress(owner), node.token(symbol));
    },

    head: () => readHead(node),
    // Only finalized slots are ever reported, and they cannot be reorganised: a slot's "hash"
    // is its name (a getBlock per call would fail on skipped slots and on pruned nodes).
    async blockHash(n: bigint) {
      return n < 0n ? null : slotName(n);
    },
    scan: (from, to, watch) => scanTransfers(node, signaturesOf, from, to, watch),

    async tokenBalance(address: string, symbol: TokenSymbol) {
      const ata = adapter.tokenAccountOf(address, symbol);
      const r = await rpc.request<{ value: { data: { parsed?: { info?: { tokenAmount?: { amount: string } } } } } | null }>("getAccountInfo", [ata, { encoding: "jsonParsed", commitment: "finalized" }]);
      const amount = r.value?.data?.parsed?.info?.tokenAmount?.amount;
      return r.value && amount !== undefined ? BigInt(amount) : 0n;
    },

    signedBy: (owner, after) => signedBy(node, owner, after),
    async nativeBalance(address: string) {
      const r = await rpc.request<{ value: number }>("getBalance", [normalizeSolAddress(address), { commitment: "confirmed" }]);
      return BigInt(r.value);
    },

    signCreateTokenAccounts: (owner, feePayerKey) => signCreateTokenAccounts(node, owner, feePayerKey),
    signTransfer: (req) => signTransfer(node, req),
    broadcast: (tx) => broadcast(node, (t) => adapter.txState(t), tx),
    txCost: (tx) => txCost(node, tx),
    txState: (tx) => txState(node, head, tx),
  };
  return adapter;
}

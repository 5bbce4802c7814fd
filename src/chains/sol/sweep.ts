// The Solana sweep (DESIGN 25): a second detection path beside the block scan. Per address and
// configured token, getSignaturesForAddress on its associated token account (finalized, newest
// first, back to the last sweep's slot or `since`), then getTransaction of each signature the
// gateway does not know, read by the scan's own rule (transfersOf: post − pre balance of the
// owner's ATA), so a transfer reaches the funnel with the scan's key (signature, balance index).
// Cost per address: one page per token (at most MAX_PAGES) plus one call per unknown signature.
import type { IncomingTransfer, SweepQuery, TokenInfo, TokenSymbol, WatchSet } from "../types";
import type { ParsedTransaction, RpcClient, SignatureInfo } from "./rpc";
import { RpcError } from "./rpc";

export interface SolSweepDeps {
  rpc: RpcClient;
  tokens: readonly TokenInfo[];
  /** The associated token account of `owner` for a token. */
  ataOf(owner: string, token: TokenSymbol): string;
  /** The scan's reading of one transaction: transfers to the watched owners' ATAs. */
  transfersOf(sig: string, tx: ParsedTransaction, watch: WatchSet): IncomingTransfer[];
  /** Signatures per page. Default 100. */
  pageLimit?: number;
}

/** Pages of signatures one sweep of one token account reads at most (its cost bound). */
export const MAX_PAGES = 3;

const watchOf = (address: string): WatchSet => ({ has: (a) => a === address, size: 1, addresses: () => [address] });

export function solSweep(d: SolSweepDeps): (q: SweepQuery) => Promise<IncomingTransfer[]> {
  const limit = d.pageLimit ?? 100;

  /** Successful signatures touching `ata` in slots (after, upTo], not before `since`, unknown to the gateway. */
  async function signatures(ata: string, q: SweepQuery): Promise<string[]> {
    const out: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await d.rpc.request<SignatureInfo[]>("getSignaturesForAddress", [ata, { limit, commitment: "finalized", ...(before ? { before } : {}) }]);
      let older = false;
      for (const s of list) {
        const slot = BigInt(s.slot);
        if ((q.after !== null && slot <= q.after) || (s.blockTime != null && s.blockTime * 1000 < q.since)) {
          older = true;
          break;
        }
        if (slot <= q.upTo && s.err === null && !await q.known(s.signature)) out.push(s.signature);
      }
      if (older || list.length < limit) break;
      before = list[list.length - 1]!.signature;
    }
    return out;
  }

  return async (q) => {
    const sigs = new Set<string>();
    for (const t of d.tokens) for (const s of await signatures(d.ataOf(q.address, t.symbol), q)) sigs.add(s);
    if (sigs.size === 0) return [];
    const list = [...sigs];
    const answers = await d.rpc.batch(list.map((s) => ({ method: "getTransaction", params: [s, { encoding: "jsonParsed", commitment: "finalized", maxSupportedTransactionVersion: 0 }] })));
    const watch = watchOf(q.address);
    const out: IncomingTransfer[] = [];
    list.forEach((s, i) => {
      const tx = answers[i];
      if (tx instanceof RpcError) throw tx;
      // Not served at finalized yet: the next sweep asks again.
      if (tx) out.push(...d.transfersOf(s, tx as ParsedTransaction, watch));
    });
    return out;
  };
}

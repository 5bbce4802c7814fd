// Reading Solana (DESIGN 9): the head (confirmed and finalized slots) and the token transfers to
// watched owners in a slot range, by blocks (getBlock per finalized slot, matched locally) when
// the watch set is large, else getSignaturesForAddress on each watched owner's associated token
// account then getTransaction (jsonParsed, finalized); received = post − pre token balance of
// the owner's ATA. And what an owner signed (restore reconcile).
import type { ChainHead, IncomingTransfer, ScanResult, WatchSet } from "../types";
import { isBehind, type ParsedBlock, type ParsedTransaction, type SignatureInfo, type UiTokenBalance } from "./rpc";
import { normalizeSolAddress } from "./address";
import { slotName, throwIfError, type SolNode } from "./node";
import type { SolSentTx } from "./types";

/** What the last scan learnt about one ATA: its newest signature at or below the scanned slot. */
interface AtaCursor {
  signature: string;
  slot: number;
}

/**
 * Signatures touching `ata` in slots [from, to] (finalized), every page walked. A remembered
 * cursor below `from` lets the node stop at it (`until`); without one the pages go back until
 * a signature older than `from` shows up. Remembers each ATA's newest signature at or below `to`.
 */
export type SignatureReader = (atasToScan: string[], from: bigint, to: bigint) => Promise<{ found: Map<string, number> }>;

/** A SignatureReader that remembers, per ATA, its newest signature at or below the last scanned slot. */
export function signatureReader(node: SolNode): SignatureReader {
  const { rpc, pageLimit } = node;
  const cursors = new Map<string, AtaCursor>();
  return async function signaturesOf(atasToScan, from, to) {
    // `newest` starts as the remembered cursor (when usable) so an ATA with nothing new keeps it.
    const found = new Map<string, number>();
    let pending = atasToScan.map((ata) => {
      const c = cursors.get(ata);
      return { ata, before: undefined as string | undefined, until: c && BigInt(c.slot) < from ? c.signature : undefined, first: true, newest: c && BigInt(c.slot) < from ? c : undefined };
    });
    while (pending.length > 0) {
      const answers = throwIfError<SignatureInfo[]>(
        await rpc.batch(
          pending.map((p) => ({
            method: "getSignaturesForAddress",
            params: [p.ata, { limit: pageLimit, commitment: "finalized", minContextSlot: Number(to), ...(p.before ? { before: p.before } : {}), ...(p.until ? { until: p.until } : {}) }],
          })),
        ),
      );
      const next: typeof pending = [];
      pending.forEach((p, i) => {
        const list = answers[i] ?? [];
        for (const s of list) {
          const slot = BigInt(s.slot);
          if (slot > to) continue;
          if (p.first) {
            // Pages come newest first: the first one at or below `to` is the newest.
            p.newest = { signature: s.signature, slot: s.slot };
            p.first = false;
          }
          if (slot >= from && s.err === null) found.set(s.signature, s.slot);
        }
        const last = list[list.length - 1];
        if (list.length === pageLimit && last && BigInt(last.slot) >= from) next.push({ ...p, before: last.signature });
        else if (p.newest) cursors.set(p.ata, p.newest);
      });
      pending = next;
    }
    return { found };
  };
}

/** Account keys in balance-entry index order (static keys, then loaded writable, then loaded readonly). */
function accountKeys(tx: ParsedTransaction): string[] {
  const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === "string" ? k : k.pubkey));
  const loaded = tx.meta?.loadedAddresses;
  const hasLoaded = tx.transaction.message.accountKeys.some((k) => typeof k !== "string" && k.source === "lookupTable");
  if (loaded && !hasLoaded) keys.push(...loaded.writable, ...loaded.readonly);
  return keys;
}

export function transfersOf(node: SolNode, sig: string, tx: ParsedTransaction, watch: WatchSet): IncomingTransfer[] {
  if (!tx.meta || tx.meta.err !== null) return [];
  const keys = accountKeys(tx);
  const out: IncomingTransfer[] = [];
  for (const t of node.tokens) {
    const mine = (b: UiTokenBalance) => b.mint === t.contract;
    const pre = new Map((tx.meta.preTokenBalances ?? []).filter(mine).map((b) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]));
    const post = (tx.meta.postTokenBalances ?? []).filter(mine);
    // The payer: the owner whose balance of this mint dropped most (else the fee payer).
    let from = keys[0];
    let biggestDrop = 0n;
    for (const b of tx.meta.preTokenBalances ?? []) {
      if (!mine(b) || !b.owner) continue;
      const after = post.find((p) => p.accountIndex === b.accountIndex);
      const drop = BigInt(b.uiTokenAmount.amount) - (after ? BigInt(after.uiTokenAmount.amount) : 0n);
      if (drop > biggestDrop) {
        biggestDrop = drop;
        from = b.owner;
      }
    }
    for (const b of post) {
      const owner = b.owner;
      if (!owner || !watch.has(owner)) continue;
      // Only the owner's ATA: it is what balances, payouts and reconciliation use.
      if (keys[b.accountIndex] !== node.ataOf(owner, t)) continue;
      const amount = BigInt(b.uiTokenAmount.amount) - (pre.get(b.accountIndex) ?? 0n);
      if (amount <= 0n) continue;
      out.push({
        chain: "SOL",
        token: t.symbol,
        txHash: sig,
        logIndex: b.accountIndex,
        blockNumber: BigInt(tx.slot),
        blockHash: slotName(BigInt(tx.slot)),
        blockTime: (tx.blockTime ?? 0) * 1000,
        from,
        to: owner,
        amount,
      });
    }
  }
  return out;
}

/** Per-address scan: the signatures of every watched ATA in the range, then those transactions. */
async function scanAddresses(node: SolNode, signaturesOf: SignatureReader, from: bigint, to: bigint, watch: WatchSet): Promise<IncomingTransfer[]> {
  const owners = [...watch.addresses()];
  const list: string[] = [];
  for (const t of node.tokens) for (const o of owners) list.push(node.ataOf(o, t));
  let found: Map<string, number>;
  try {
    ({ found } = await signaturesOf(list, from, to));
  } catch (e) {
    if (isBehind(e)) throw new Error(`SOL node has not finalized slot ${to} yet; scan again`);
    throw e;
  }
  const sigs = [...found.keys()];
  const answers = throwIfError<ParsedTransaction | null>(
    await node.rpc.batch(sigs.map((s) => ({ method: "getTransaction", params: [s, { encoding: "jsonParsed", commitment: "finalized", maxSupportedTransactionVersion: 0 }] }))),
  );
  const out: IncomingTransfer[] = [];
  sigs.forEach((s, i) => {
    const tx = answers[i];
    if (!tx) throw new Error(`SOL transaction ${s} not served yet at finalized; scan again`);
    out.push(...transfersOf(node, s, tx, watch));
  });
  return out;
}

/**
 * Block scan: the produced slots of the range (getBlocks, with the node's finalized slot in the
 * same batch so a lagging node is told apart from skipped slots), then each block with its
 * transactions' account keys and token balances, matched against the watch set locally.
 */
async function scanBlocks(node: SolNode, from: bigint, to: bigint, watch: WatchSet): Promise<IncomingTransfer[]> {
  const out: IncomingTransfer[] = [];
  for (let start = from; start <= to; start += 500_000n) {
    const end = to < start + 499_999n ? to : start + 499_999n;
    const [finalized, slots] = throwIfError<number | number[]>(
      await node.rpc.batch([
        { method: "getSlot", params: [{ commitment: "finalized" }] },
        { method: "getBlocks", params: [Number(start), Number(end), { commitment: "finalized" }] },
      ]),
    ) as [number, number[]];
    if (BigInt(finalized) < end) throw new Error(`SOL node has not finalized slot ${end} yet; scan again`);
    const per = Math.max(1, node.opts.blockBatch ?? 8);
    for (let i = 0; i < slots.length; i += per) {
      const chunk = slots.slice(i, i + per);
      const blocks = throwIfError<ParsedBlock | null>(
        await node.rpc.batch(
          chunk.map((slot) => ({
            method: "getBlock",
            params: [slot, { commitment: "finalized", encoding: "jsonParsed", transactionDetails: "full", rewards: false, maxSupportedTransactionVersion: 0 }],
          })),
        ),
      );
      chunk.forEach((slot, j) => {
        const b = blocks[j];
        if (!b) throw new Error(`SOL block ${slot} not served at finalized; scan again`);
        for (const t of b.transactions ?? []) {
          const sig = t.transaction.signatures[0];
          out.push(...transfersOf(node, sig, { slot, blockTime: b.blockTime, transaction: t.transaction, meta: t.meta }, watch));
        }
      });
    }
  }
  return out;
}

// latest = the confirmed slot, final = the finalized slot; scan() reads finalized data only,
// so the watcher scans no further than `scanTo` (the finalized slot).
export async function readHead(node: SolNode): Promise<ChainHead> {
  const [latest, final] = throwIfError<number>(
    await node.rpc.batch([
      { method: "getSlot", params: [{ commitment: "confirmed" }] },
      { method: "getSlot", params: [{ commitment: "finalized" }] },
    ]),
  );
  let time = Date.now();
  try {
    const t = await node.rpc.request<number | null>("getBlockTime", [latest], { attempts: 1 });
    if (typeof t === "number") time = t * 1000;
  } catch {
    // A skipped slot has no time; the local clock is close enough for a head.
  }
  const fin = BigInt(Math.min(final, latest));
  return { latest: BigInt(latest), final: fin, time, scanTo: fin };
}

export async function scanTransfers(node: SolNode, signaturesOf: SignatureReader, from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
  if (from > to) throw new RangeError(`scan range is empty: ${from} > ${to}`);
  const transfers: IncomingTransfer[] = [];
  if (watch.size > 0 && node.tokens.length > 0) {
    const mode = node.opts.scanMode ?? "auto";
    // Calls: per address ≈ one per watched ATA (plus pages); by blocks ≈ one per slot + 1.
    const byBlocks = mode === "blocks" || (mode === "auto" && watch.size * node.tokens.length > Number(to - from) + 2);
    transfers.push(...(byBlocks ? await scanBlocks(node, from, to, watch) : await scanAddresses(node, signaturesOf, from, to, watch)));
  }
  transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? (a.txHash === b.txHash ? a.logIndex - b.logIndex : a.txHash < b.txHash ? -1 : 1) : a.blockNumber < b.blockNumber ? -1 : 1));
  const lastTime = transfers.length ? transfers[transfers.length - 1].blockTime : Date.now();
  return { transfers, tip: { number: to, hash: slotName(to), time: lastTime } };
}

/** Successful transactions `ownerAddress` signed in slots after `after` (confirmed), newest first, with the token each sent (restore reconcile). */
export async function signedBy(node: SolNode, ownerAddress: string, after: bigint): Promise<SolSentTx[]> {
  const { rpc, pageLimit } = node;
  const owner = normalizeSolAddress(ownerAddress);
  const sigs: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await rpc.request<SignatureInfo[]>("getSignaturesForAddress", [owner, { limit: pageLimit, commitment: "confirmed", ...(before ? { before } : {}) }]);
    const newer = page.filter((x) => BigInt(x.slot) > after);
    sigs.push(...newer.filter((x) => x.err === null));
    if (page.length < pageLimit || newer.length < page.length) break;
    before = page[page.length - 1]!.signature;
  }
  const out: SolSentTx[] = [];
  for (const sig of sigs) {
    const tx = await rpc.request<ParsedTransaction | null>("getTransaction", [sig.signature, { encoding: "jsonParsed", commitment: "confirmed", maxSupportedTransactionVersion: 0 }]);
    const keys = tx?.transaction.message.accountKeys ?? [];
    if (!keys.some((k) => typeof k !== "string" && k.pubkey === owner && k.signer)) continue;
    const sent: SolSentTx = { txHash: sig.signature, blockNumber: BigInt(sig.slot) };
    for (const t of node.tokens) {
      const of = (list: UiTokenBalance[] | null | undefined, who: (o: string | undefined) => boolean) =>
        (list ?? []).filter((b) => b.mint === t.contract && who(b.owner)).reduce((a, b) => a + BigInt(b.uiTokenAmount.amount), 0n);
      const sentAmount = of(tx!.meta?.preTokenBalances, (o) => o === owner) - of(tx!.meta?.postTokenBalances, (o) => o === owner);
      if (sentAmount <= 0n) continue;
      const gainer = (tx!.meta?.postTokenBalances ?? []).find((b) => b.mint === t.contract && b.owner !== owner);
      Object.assign(sent, { asset: t.symbol, amount: sentAmount, to: gainer?.owner });
    }
    out.push(sent);
  }
  return out;
}

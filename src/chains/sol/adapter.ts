// Solana in rpc mode. Detection (DESIGN 9; the shared contract's docs/chains.md, ../shared/docs/): by blocks (getBlock per finalized slot,
// matched locally) when the watch set is large, else getSignaturesForAddress on each
// watched owner's associated token account (ATA), then getTransaction (jsonParsed, finalized);
// received = post − pre token balance of our ATA. Payouts: transferChecked from the source's ATA,
// the recipient's ATA created idempotently, fees and rent paid by a fee payer (the gas wallet).
// Slots are the block numbers of the ChainAdapter interface; see docs/design.md "Solana".
import type { RpcEndpoint } from "../common/failover";
import { Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import {
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { base58 } from "@scure/base";
import type {
  BroadcastResult,
  ChainAdapter,
  ChainHead,
  DerivedKey,
  IncomingTransfer,
  ScanResult,
  SignedTransfer,
  TokenInfo,
  TokenSymbol,
  TransferRequest,
  TxState,
  WatchSet,
} from "../types";
import { solTxLookup } from "./lookup";
import { deriveSolKey, isSolAddress, normalizeSolAddress, solKeypairBytes } from "./address";
import { assertDecimals, assertKeyFor, inclusion } from "../common/adapter-parts";
import { solSweep } from "./sweep";
import type { Clock } from "../../lib/clock";
import {
  RpcClient,
  RpcError,
  isBehind,
  sendErrorKind,
  type ParsedTransaction,
  type RpcLogger,
  type SignatureInfo,
  type ParsedBlock,
  type SignatureStatus,
  type UiTokenBalance,
} from "./rpc";

/** Lamports per signature (the base fee; priority fees are not used). */
export const LAMPORTS_PER_SIGNATURE = 5000n;
const TOKEN_ACCOUNT_SIZE = 165;

export interface SolAdapterOptions {
  rpcUrls: RpcEndpoint[];
  tokens: TokenInfo[];
  confirmations: number;
  requestTimeoutMs?: number;
  backoffBaseMs?: number;
  /** Attempts per call across the URLs on transport failures. Default max(4, 2 × URLs). */
  rpcAttempts?: number;
  /** Signatures per getSignaturesForAddress page (the node's maximum is 1000). */
  pageLimit?: number;
  /**
   * How scan() reads a range: `addresses` = getSignaturesForAddress per watched ATA (cost grows
   * with the watch set), `blocks` = getBlocks + getBlock per produced slot, matched locally (cost
   * grows with the range only), `auto` (default) = whichever needs fewer calls for this range.
   */
  scanMode?: "auto" | "blocks" | "addresses";
  /** getBlock requests per JSON-RPC batch (a full block is large). Default 8. */
  blockBatch?: number;
  logger?: RpcLogger;
  /** Drives RPC backoff (tests move a TestClock). Default: real time. */
  clock?: Clock;
}

/** A transfer request with an optional fee payer: it pays the fee and any new account's rent. */
export interface SolTransferRequest extends TransferRequest {
  feePayerKey?: Uint8Array;
}

/** What `SignedTransfer.meta` holds for SOL (decimal strings, so it survives JSON). */
export interface SolTxMeta {
  feePayer: string;
  from: string;
  to: string;
  sourceAccount: string;
  destinationAccount: string;
  /** The recipient's ATA did not exist at signing: the fee payer pays its rent. */
  createsAccount: boolean;
  mint: string;
  token: TokenSymbol;
  amount: string;
  blockhash: string;
  lastValidBlockHeight: number;
  /** Lamports the fee payer spends: fee + rent of a created account. */
  feePayerLamports: string;
  [k: string]: unknown;
}

export interface SolAdapter extends ChainAdapter {
  readonly rpc: RpcClient;
  signTransfer(req: SolTransferRequest): Promise<SignedTransfer>;
  /** Lamports of `address` (confirmed). */
  nativeBalance(address: string): Promise<bigint>;
  /** The associated token account of `owner` for a configured token. */
  tokenAccountOf(owner: string, token: TokenSymbol): string;
  /**
   * A transaction, paid by `feePayerKey`, that creates `owner`'s missing token accounts (ATA of
   * every configured token; idempotent instructions), or null when they all exist. The owner
   * does not sign: anyone may create an ATA for any wallet.
   */
  signCreateTokenAccounts(owner: string, feePayerKey: Uint8Array): Promise<SignedTransfer | null>;
  /** Successful transactions `owner` signed in slots after `after` (confirmed), newest first (restore reconcile). */
  signedBy(owner: string, after: bigint): Promise<SolSentTx[]>;
}

/** A transaction an owner signed, with the token it sent (restore reconcile). */
export interface SolSentTx {
  txHash: string;
  blockNumber: bigint;
  to?: string;
  asset?: string;
  amount?: bigint;
}

/** What `SignedTransfer.meta` holds for a token-account creation (decimal strings). */
export interface SolCreateAccountsMeta {
  feePayer: string;
  owner: string;
  accounts: string[];
  blockhash: string;
  lastValidBlockHeight: number;
  rentLamports: string;
  feeLamports: string;
  [k: string]: unknown;
}

/** A transfer signTransfer can never make (e.g. the recipient is a token account of another mint). */
export class SolTransferRefused extends Error {
  readonly permanent = true;
  constructor(message: string) {
    super(message);
    this.name = "SolTransferRefused";
  }
}

interface TokenState extends TokenInfo {
  mintKey: PublicKey;
  programId: PublicKey;
}

/** What the last scan learnt about one ATA: its newest signature at or below the scanned slot. */
interface AtaCursor {
  signature: string;
  slot: number;
}

const slotName = (n: bigint) => `slot:${n}`;

export function createSolAdapter(opts: SolAdapterOptions): SolAdapter {
  const tokens: TokenState[] = opts.tokens.map((t) => {
    if (t.chain !== "SOL") throw new Error(`token ${t.chain} ${t.symbol} given to the SOL adapter`);
    if (!isSolAddress(t.contract)) throw new Error(`SOL ${t.symbol} mint is not an address: ${t.contract}`);
    return { ...t, contract: normalizeSolAddress(t.contract), mintKey: new PublicKey(t.contract), programId: TOKEN_PROGRAM_ID };
  });
  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const pageLimit = Math.min(1000, Math.max(1, opts.pageLimit ?? 1000));
  const log = opts.logger;
  const rpc = new RpcClient({
    urls: opts.rpcUrls,
    timeoutMs: opts.requestTimeoutMs,
    backoffBaseMs: opts.backoffBaseMs,
    attempts: opts.rpcAttempts ?? Math.max(4, 2 * opts.rpcUrls.length),
    logger: log,
    clock: opts.clock,
  });

  // owner → ATA per token (derivation hashes until it finds an off-curve point: cache it).
  const atas = new Map<string, string>();
  const cursors = new Map<string, AtaCursor>();
  let rentForTokenAccount: bigint | null = null;

  function token(symbol: TokenSymbol): TokenState {
    const t = bySymbol.get(symbol);
    if (!t) throw new Error(`SOL ${symbol} is not configured`);
    return t;
  }

  function ataOf(owner: string, t: TokenState): string {
    const key = `${t.symbol}:${owner}`;
    let a = atas.get(key);
    if (!a) {
      a = getAssociatedTokenAddressSync(t.mintKey, new PublicKey(owner), true, t.programId).toBase58();
      atas.set(key, a);
    }
    return a;
  }

  function keypair(privateKey: Uint8Array, expect?: string): Keypair {
    const kp = Keypair.fromSecretKey(solKeypairBytes(privateKey));
    assertKeyFor(expect === undefined ? undefined : normalizeSolAddress(expect), kp.publicKey.toBase58());
    return kp;
  }

  function throwIfError<T>(answers: Array<unknown | RpcError>): T[] {
    for (const a of answers) if (a instanceof RpcError) throw a;
    return answers as T[];
  }

  async function blockHeight(commitment: "confirmed" | "finalized"): Promise<number> {
    return rpc.request<number>("getBlockHeight", [{ commitment }]);
  }

  /**
   * Signatures touching `ata` in slots [from, to] (finalized), every page walked. A remembered
   * cursor below `from` lets the node stop at it (`until`); without one the pages go back until
   * a signature older than `from` shows up. Remembers each ATA's newest signature at or below `to`.
   */
  async function signaturesOf(atasToScan: string[], from: bigint, to: bigint): Promise<{ found: Map<string, number> }> {
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
  }

  /** Account keys in balance-entry index order (static keys, then loaded writable, then loaded readonly). */
  function accountKeys(tx: ParsedTransaction): string[] {
    const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === "string" ? k : k.pubkey));
    const loaded = tx.meta?.loadedAddresses;
    const hasLoaded = tx.transaction.message.accountKeys.some((k) => typeof k !== "string" && k.source === "lookupTable");
    if (loaded && !hasLoaded) keys.push(...loaded.writable, ...loaded.readonly);
    return keys;
  }

  function transfersOf(sig: string, tx: ParsedTransaction, watch: WatchSet): IncomingTransfer[] {
    if (!tx.meta || tx.meta.err !== null) return [];
    const keys = accountKeys(tx);
    const out: IncomingTransfer[] = [];
    for (const t of tokens) {
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
        if (keys[b.accountIndex] !== ataOf(owner, t)) continue;
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
  async function scanAddresses(from: bigint, to: bigint, watch: WatchSet): Promise<IncomingTransfer[]> {
    const owners = [...watch.addresses()];
    const list: string[] = [];
    for (const t of tokens) for (const o of owners) list.push(ataOf(o, t));
    let found: Map<string, number>;
    try {
      ({ found } = await signaturesOf(list, from, to));
    } catch (e) {
      if (isBehind(e)) throw new Error(`SOL node has not finalized slot ${to} yet; scan again`);
      throw e;
    }
    const sigs = [...found.keys()];
    const answers = throwIfError<ParsedTransaction | null>(
      await rpc.batch(sigs.map((s) => ({ method: "getTransaction", params: [s, { encoding: "jsonParsed", commitment: "finalized", maxSupportedTransactionVersion: 0 }] }))),
    );
    const out: IncomingTransfer[] = [];
    sigs.forEach((s, i) => {
      const tx = answers[i];
      if (!tx) throw new Error(`SOL transaction ${s} not served yet at finalized; scan again`);
      out.push(...transfersOf(s, tx, watch));
    });
    return out;
  }

  /**
   * Block scan: the produced slots of the range (getBlocks, with the node's finalized slot in the
   * same batch so a lagging node is told apart from skipped slots), then each block with its
   * transactions' account keys and token balances, matched against the watch set locally.
   */
  async function scanBlocks(from: bigint, to: bigint, watch: WatchSet): Promise<IncomingTransfer[]> {
    const out: IncomingTransfer[] = [];
    for (let start = from; start <= to; start += 500_000n) {
      const end = to < start + 499_999n ? to : start + 499_999n;
      const [finalized, slots] = throwIfError<number | number[]>(
        await rpc.batch([
          { method: "getSlot", params: [{ commitment: "finalized" }] },
          { method: "getBlocks", params: [Number(start), Number(end), { commitment: "finalized" }] },
        ]),
      ) as [number, number[]];
      if (BigInt(finalized) < end) throw new Error(`SOL node has not finalized slot ${end} yet; scan again`);
      const per = Math.max(1, opts.blockBatch ?? 8);
      for (let i = 0; i < slots.length; i += per) {
        const chunk = slots.slice(i, i + per);
        const blocks = throwIfError<ParsedBlock | null>(
          await rpc.batch(
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
            out.push(...transfersOf(sig, { slot, blockTime: b.blockTime, transaction: t.transaction, meta: t.meta }, watch));
          }
        });
      }
    }
    return out;
  }

  async function tokenRent(): Promise<bigint> {
    rentForTokenAccount ??= BigInt(await rpc.request<number>("getMinimumBalanceForRentExemption", [TOKEN_ACCOUNT_SIZE]));
    return rentForTokenAccount;
  }

  const adapter: SolAdapter = {
    chain: "SOL",
    mode: "rpc",
    tokens,
    requiredConfirmations: opts.confirmations,
    rpc,
    sweep: solSweep({ rpc, tokens, ataOf: (owner, symbol) => ataOf(owner, token(symbol)), transfersOf }),
    lookupTx: solTxLookup(rpc, tokens, (owner, t) => adapter.tokenAccountOf(owner, t.symbol), () => adapter.head()),

    async start() {
      for (const t of tokens) {
        const info = await rpc.request<{ value: { owner: string; data: { parsed?: { type?: string; info?: { decimals?: number } } } | unknown } | null }>("getAccountInfo", [
          t.contract,
          { encoding: "jsonParsed", commitment: "finalized" },
        ]);
        const v = info.value;
        const owner = v?.owner;
        if (!v || (owner !== TOKEN_PROGRAM_ID.toBase58() && owner !== TOKEN_2022_PROGRAM_ID.toBase58())) {
          throw new Error(`SOL ${t.symbol}: no token mint at ${t.contract}`);
        }
        const parsed = (v.data as { parsed?: { type?: string; info?: { decimals?: number } } }).parsed;
        if (parsed?.type !== "mint" || typeof parsed.info?.decimals !== "number") throw new Error(`SOL ${t.symbol}: ${t.contract} is not a mint`);
        assertDecimals("SOL", t, parsed.info.decimals);
        t.programId = new PublicKey(owner);
        atas.clear();
      }
      log?.info({ msg: "sol adapter started", tokens: tokens.map((t) => t.symbol) });
    },

    async stop() {
      rpc.close();
    },

    deriveKey(seed: Uint8Array, index: number): DerivedKey {
      return deriveSolKey(seed, index);
    },
    isValidAddress: isSolAddress,
    normalizeAddress: normalizeSolAddress,

    tokenAccountOf(owner: string, symbol: TokenSymbol) {
      return ataOf(normalizeSolAddress(owner), token(symbol));
    },

    // latest = the confirmed slot, final = the finalized slot; scan() reads finalized data only,
    // so the watcher scans no further than `scanTo` (the finalized slot).
    async head(): Promise<ChainHead> {
      const [latest, final] = throwIfError<number>(
        await rpc.batch([
          { method: "getSlot", params: [{ commitment: "confirmed" }] },
          { method: "getSlot", params: [{ commitment: "finalized" }] },
        ]),
      );
      let time = Date.now();
      try {
        const t = await rpc.request<number | null>("getBlockTime", [latest], { attempts: 1 });
        if (typeof t === "number") time = t * 1000;
      } catch {
        // A skipped slot has no time; the local clock is close enough for a head.
      }
      const fin = BigInt(Math.min(final, latest));
      return { latest: BigInt(latest), final: fin, time, scanTo: fin };
    },

    // Only finalized slots are ever reported, and they cannot be reorganised: a slot's "hash"
    // is its name (a getBlock per call would fail on skipped slots and on pruned nodes).
    async blockHash(n: bigint) {
      return n < 0n ? null : slotName(n);
    },

    async scan(from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
      if (from > to) throw new RangeError(`scan range is empty: ${from} > ${to}`);
      const transfers: IncomingTransfer[] = [];
      if (watch.size > 0 && tokens.length > 0) {
        const mode = opts.scanMode ?? "auto";
        // Calls: per address ≈ one per watched ATA (plus pages); by blocks ≈ one per slot + 1.
        const byBlocks = mode === "blocks" || (mode === "auto" && watch.size * tokens.length > Number(to - from) + 2);
        transfers.push(...(byBlocks ? await scanBlocks(from, to, watch) : await scanAddresses(from, to, watch)));
      }
      transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? (a.txHash === b.txHash ? a.logIndex - b.logIndex : a.txHash < b.txHash ? -1 : 1) : a.blockNumber < b.blockNumber ? -1 : 1));
      const lastTime = transfers.length ? transfers[transfers.length - 1].blockTime : Date.now();
      return { transfers, tip: { number: to, hash: slotName(to), time: lastTime } };
    },

    async tokenBalance(address: string, symbol: TokenSymbol) {
      const ata = adapter.tokenAccountOf(address, symbol);
      const r = await rpc.request<{ value: { data: { parsed?: { info?: { tokenAmount?: { amount: string } } } } } | null }>("getAccountInfo", [ata, { encoding: "jsonParsed", commitment: "finalized" }]);
      const amount = r.value?.data?.parsed?.info?.tokenAmount?.amount;
      return r.value && amount !== undefined ? BigInt(amount) : 0n;
    },

    async signedBy(ownerAddress: string, after: bigint): Promise<SolSentTx[]> {
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
        for (const t of tokens) {
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
    },

    async nativeBalance(address: string) {
      const r = await rpc.request<{ value: number }>("getBalance", [normalizeSolAddress(address), { commitment: "confirmed" }]);
      return BigInt(r.value);
    },

    async signCreateTokenAccounts(ownerAddress: string, feePayerKey: Uint8Array): Promise<SignedTransfer | null> {
      const owner = normalizeSolAddress(ownerAddress);
      const payer = keypair(feePayerKey);
      const wanted = tokens.map((t) => ({ t, account: ataOf(owner, t) }));
      const found = await rpc.request<{ value: Array<unknown | null> }>("getMultipleAccounts", [wanted.map((w) => w.account), { encoding: "base64", commitment: "confirmed" }]);
      const missing = wanted.filter((_, i) => found.value[i] === null || found.value[i] === undefined);
      if (missing.length === 0) return null;
      const ixs = missing.map(({ t, account }) => createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, new PublicKey(account), new PublicKey(owner), t.mintKey, t.programId));
      const bh = await rpc.request<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
      const tx = new Transaction({ feePayer: payer.publicKey, blockhash: bh.value.blockhash, lastValidBlockHeight: bh.value.lastValidBlockHeight }).add(...ixs);
      tx.sign(payer);
      const meta: SolCreateAccountsMeta = {
        feePayer: payer.publicKey.toBase58(),
        owner,
        accounts: missing.map((m) => m.account),
        blockhash: bh.value.blockhash,
        lastValidBlockHeight: bh.value.lastValidBlockHeight,
        rentLamports: (BigInt(missing.length) * (await tokenRent())).toString(),
        feeLamports: LAMPORTS_PER_SIGNATURE.toString(),
      };
      return { txHash: base58.encode(tx.signature!), raw: tx.serialize().toString("base64"), meta };
    },

    async signTransfer(req: SolTransferRequest): Promise<SignedTransfer> {
      const t = token(req.token);
      if (req.amount <= 0n) throw new SolTransferRefused(`SOL ${req.token} amount must be positive`);
      const owner = keypair(req.privateKey, req.from);
      const payer = req.feePayerKey ? keypair(req.feePayerKey) : owner;
      const to = normalizeSolAddress(req.to);
      const source = ataOf(owner.publicKey.toBase58(), t);

      // The recipient is normally a wallet (its ATA receives); a token account of this mint
      // given directly receives as is.
      const info = await rpc.request<{ value: { owner: string; data: unknown } | null }>("getAccountInfo", [to, { encoding: "jsonParsed", commitment: "confirmed" }]);
      const parsed = (info.value?.data as { parsed?: { type?: string; info?: { mint?: string } } } | undefined)?.parsed;
      const ixs: TransactionInstruction[] = [];
      let destination: string;
      let createsAccount = false;
      if (info.value && info.value.owner === t.programId.toBase58() && parsed?.type === "account") {
        if (parsed.info?.mint !== t.contract) throw new SolTransferRefused(`${to} is a token account of another mint (${parsed.info?.mint}), not ${req.token}`);
        destination = to;
      } else if (info.value && info.value.owner === t.programId.toBase58()) {
        throw new SolTransferRefused(`${to} is a ${parsed?.type ?? "token program"} account, not a wallet`);
      } else {
        destination = ataOf(to, t);
        const dest = await rpc.request<{ value: unknown | null }>("getAccountInfo", [destination, { encoding: "base64", commitment: "confirmed" }]);
        createsAccount = dest.value === null;
        // Idempotent: harmless if someone creates the account between now and landing.
        ixs.push(createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, new PublicKey(destination), new PublicKey(to), t.mintKey, t.programId));
      }
      ixs.push(createTransferCheckedInstruction(new PublicKey(source), t.mintKey, new PublicKey(destination), owner.publicKey, req.amount, t.decimals, [], t.programId));

      const bh = await rpc.request<{ value: { blockhash: string; lastValidBlockHeight: number } }>("getLatestBlockhash", [{ commitment: "confirmed" }]);
      const tx = new Transaction({ feePayer: payer.publicKey, blockhash: bh.value.blockhash, lastValidBlockHeight: bh.value.lastValidBlockHeight }).add(...ixs);
      if (payer.publicKey.equals(owner.publicKey)) tx.sign(owner);
      else tx.sign(payer, owner);
      const signatures = payer.publicKey.equals(owner.publicKey) ? 1n : 2n;
      const feePayerLamports = signatures * LAMPORTS_PER_SIGNATURE + (createsAccount ? await tokenRent() : 0n);
      const meta: SolTxMeta = {
        feePayer: payer.publicKey.toBase58(),
        from: owner.publicKey.toBase58(),
        to,
        sourceAccount: source,
        destinationAccount: destination,
        createsAccount,
        mint: t.contract,
        token: req.token,
        amount: req.amount.toString(),
        blockhash: bh.value.blockhash,
        lastValidBlockHeight: bh.value.lastValidBlockHeight,
        feePayerLamports: feePayerLamports.toString(),
      };
      return { txHash: base58.encode(tx.signature!), raw: tx.serialize().toString("base64"), meta };
    },

    async broadcast(tx: SignedTransfer): Promise<BroadcastResult> {
      try {
        const sig = await rpc.request<string>("sendTransaction", [tx.raw, { encoding: "base64", skipPreflight: false, preflightCommitment: "confirmed", maxRetries: 0 }]);
        if (sig !== tx.txHash) return { ok: false, permanent: true, error: `node computed signature ${sig}, expected ${tx.txHash}` };
        return { ok: true };
      } catch (e) {
        if (!(e instanceof RpcError)) return { ok: false, permanent: false, error: (e as Error).message };
        const kind = sendErrorKind(e);
        if (kind === "already") return { ok: true };
        if (kind === "permanent") return { ok: false, permanent: true, error: e.message };
        if (kind === "transient") return { ok: false, permanent: false, error: e.message };
        // Blockhash unknown: final only once the transaction can never land.
        try {
          const st = await adapter.txState(tx);
          if (st.state === "included" || st.state === "pending") return { ok: true };
          if (st.state === "expired") return { ok: false, permanent: true, error: `${e.message} (blockhash expired; never re-signed)` };
        } catch (inner) {
          return { ok: false, permanent: false, error: `${e.message}; status lookup failed: ${(inner as Error).message}` };
        }
        return { ok: false, permanent: false, error: e.message };
      }
    },

    // What the fee payer (account 0: the gas wallet) spent, read from the chain: the fee plus the
    // rent of every token account the transaction created (rent a gateway never gets back).
    async txCost(tx: SignedTransfer) {
      const t = await rpc.request<{ meta?: { fee?: number; preBalances?: number[]; postBalances?: number[] } } | null>("getTransaction", [
        tx.txHash,
        { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
      ]);
      if (!t?.meta) return null;
      const fee = BigInt(t.meta.fee ?? 0);
      const pre = t.meta.preBalances?.[0];
      const post = t.meta.postBalances?.[0];
      const spent = pre === undefined || post === undefined ? fee : BigInt(pre) - BigInt(post);
      return { nativeBurned: spent > fee ? spent : fee };
    },

    async txState(tx: SignedTransfer): Promise<TxState> {
      const lastValid = (tx.meta as Partial<SolTxMeta>).lastValidBlockHeight;
      // Height first, status second: a null status read after a final height past lastValid
      // means no block that could still hold the transaction exists.
      const height = typeof lastValid === "number" ? await blockHeight("finalized") : null;
      const r = await rpc.request<{ value: Array<SignatureStatus | null> }>("getSignatureStatuses", [[tx.txHash], { searchTransactionHistory: true }]);
      const s = r.value[0];
      if (!s) return height !== null && height > lastValid! ? { state: "expired" } : { state: "unknown" };
      if (s.confirmationStatus === "processed" || !s.confirmationStatus) return { state: "pending" };
      // Confirmed or finalized: finality from the head like every chain (the finalized slot is
      // head.final; the head is read after the status, so a slot the status saw is never ahead of it).
      const slot = BigInt(s.slot);
      return { state: "included", blockNumber: slot, success: s.err === null, ...inclusion(await adapter.head(), slot) };
    },
  };
  return adapter;
}

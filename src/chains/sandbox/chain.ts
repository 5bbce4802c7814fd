// The sandbox chain (DESIGN 8): an in-process chain per chainCode with real
// address formats, blocks, confirmations, reorgs and broadcast faults. Its
// state lives in the database so it survives a restart like a real chain.
// It keeps native-coin balances beside token balances; what a transaction costs
// and any chain-specific operation (TRON: Stake 2.0 energy, DESIGN 21) are the
// chain module's sandbox rules (ChainModule.sandbox), applied as each transaction
// is mined. A chain without rules sends for free. The gas wallet (HD index 0)
// starts with SANDBOX_GAS_FUNDING native coins, so sandbox payouts need no set-up.
import { createHash } from "node:crypto";
import { type Db, type Tx, writeTx } from "../../db/client";
import { sharedWriteTx } from "../../db/group-commit";
import { isPg } from "../../db/engine";
import { inTxContext } from "../../db/write-lock";
import {
  adjustSandboxBalance,
  cutSandboxChain,
  ensureSandboxChain,
  insertSandboxBlockIfAbsent,
  insertSandboxTransfer,
  minedSandboxTransfer,
  mineSandboxBlock,
  putSandboxAccountState,
  sandboxAccountState,
  sandboxBalance,
  sandboxBlockTime,
  sandboxChainRow,
  sandboxChainRowForUpdate,
  sandboxOutgoingCount,
  sandboxTransferByHash,
  sandboxTransfersIn,
  setFailNextBroadcasts,
  setSandboxHeight,
  updateSandboxTransfer,
} from "./store";
import type {
  BroadcastResult,
  ChainAdapter,
  ChainCode,
  ChainHead,
  IncomingTransfer,
  ScanResult,
  SignedTransfer,
  TokenInfo,
  TokenSymbol,
  TransferRequest,
  TxCost,
  TxState,
  TxLookup,
  WatchSet,
} from "../types";
import { assertDerivationIndex, GAS_WALLET_INDEX } from "../derivation-index";
import type { NativeTransferRequest } from "../common/adapter-parts";
import { SandboxRefusal, type SandboxLedger, type SandboxRules, type SandboxTx, type SandboxView } from "./rules";

export { SandboxRefusal, type SandboxLedger, type SandboxRules, type SandboxTx, type SandboxView };
import { chainModule } from "../registry";
import { sandboxTxLookup } from "./lookup";

export interface SandboxOptions {
  chain: ChainCode;
  db: Db;
  tokens: TokenInfo[];
  confirmations: number;
  now: () => number;
  /** The HD seed: its gas wallet (GAS_WALLET_INDEX) starts funded. Absent: no address is. */
  seed?: Uint8Array;
  /**
   * The block pace (`block_time`) when the head follows the clock (headOf): empty blocks cost no
   * write. Absent or 0: the head moves only when a block is mined (a transfer, a broadcast,
   * `mine`: /sandbox/blocks or the gateway's pace job on PostgreSQL, where another gateway may mine).
   */
  blockMs?: number;
}

/** Whole native coins the gas wallet of every sandbox chain holds from genesis (DESIGN 21). */
export const SANDBOX_GAS_FUNDING = 100_000n;
/** Where genesis funds come from (never a valid address of any chain). */
const GENESIS = "(genesis)";

interface SignedPayload {
  chain: ChainCode;
  /** A token symbol or the native coin's. */
  token: string;
  from: string;
  to: string;
  amount: string;
  salt: string;
  op?: string;
  /** The rules' signed fields. */
  fields?: Record<string, unknown>;
}

type StoredCost = { [K in keyof TxCost]: string };
const costJson = (c: TxCost): string => JSON.stringify(Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)])));
const costFrom = (s: string | null): TxCost => {
  const c = JSON.parse(s ?? '{"nativeBurned":"0"}') as StoredCost;
  const out: TxCost = { nativeBurned: BigInt(c.nativeBurned ?? "0") };
  for (const k of ["energyDelegated", "energyBurned", "bandwidth"] as const) if (c[k] !== undefined) out[k] = BigInt(c[k]!);
  return out;
};

export class SandboxChain implements ChainAdapter {
  readonly mode = "sandbox" as const;
  readonly chain: ChainCode;
  readonly tokens: readonly TokenInfo[];
  readonly requiredConfirmations: number;
  /** The native coin's symbol (TRX, BNB, SOL). */
  readonly native: string;
  private readonly db: Db;
  private readonly now: () => number;
  private readonly rules: SandboxRules | undefined;
  private readonly seed: Uint8Array | undefined;
  private genesisChecked = false;
  /** The clock pace (0: none). */
  private readonly blockMs: number;
  /** Mining writes in flight, and the clock when the first of them began (headOf's cap for readers). */
  private mining = 0;
  private miningSince = 0;
  /** The chain's row, written when the chain is built (awaited before the chain's row is first read or written: on PostgreSQL the write is real I/O). */
  private readonly ready: Promise<unknown>;

  constructor(o: SandboxOptions) {
    this.chain = o.chain;
    this.tokens = o.tokens;
    this.requiredConfirmations = o.confirmations;
    this.db = o.db;
    this.now = o.now;
    this.seed = o.seed;
    this.blockMs = o.blockMs ?? 0;
    const m = chainModule(this.chain);
    this.native = m.native.symbol;
    this.rules = m.sandbox?.rules;
    this.ready = writeTx(this.db, async (tx) => await ensureSandboxChain(tx, this.chain, this.now()));
    this.ready.catch(() => {}); // reported where it is awaited (genesis)
  }

  /** The gas wallet's genesis funds, once per database (derived on first use: a key costs 40-70 ms). */
  private async genesis(): Promise<void> {
    await this.ready;
    if (this.genesisChecked || !this.seed) return;
    this.genesisChecked = true;
    const to = this.deriveKey(this.seed, GAS_WALLET_INDEX).address;
    const amount = SANDBOX_GAS_FUNDING * 10n ** BigInt(chainModule(this.chain).native.decimals);
    const txHash = this.txHashOf(`genesis:${this.chain}:${to}`);
    await writeTx(this.db, async (t) => {
      if (await sandboxTransferByHash(t, this.chain, txHash)) return;
      await insertSandboxTransfer(t, { chain: this.chain, token: this.native, txHash, logIndex: 0, blockNumber: 0, fromAddress: GENESIS, toAddress: to, amount: amount.toString(), createdAt: this.now() });
      await insertSandboxBlockIfAbsent(t, this.chain, 0, this.now());
    });
  }

  /** The ledger as rules see it, on `t` (reads); `write` adds the ledger's writes. */
  private view(t: Db | Tx): SandboxView {
    const chain = this.chain;
    return {
      chain,
      now: this.now(),
      native: this.native,
      tokens: this.tokens,
      balance: async (address, asset) => await this.balanceIn(t, address, asset),
      account: async <T>(address: string) => {
        const s = await sandboxAccountState(t, chain, address);
        return s !== undefined ? (JSON.parse(s) as T) : undefined;
      },
    };
  }
  /** The ledger of the write transaction that mines block `block`. */
  private ledger(t: Tx, block: number): SandboxLedger {
    const chain = this.chain;
    return {
      ...this.view(t),
      adjust: async (address, asset, delta) => {
        if (delta === 0n) return;
        await adjustSandboxBalance(t, chain, block, address, asset, delta);
      },
      setAccount: async (address, state) => {
        const s = JSON.stringify(state, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
        await putSandboxAccountState(t, chain, address, s);
      },
    };
  }

  /** Reads the ledger as the chain's rules see it (the chain module's resource queries). */
  async read<T>(fn: (v: SandboxView) => T): Promise<T> {
    await this.genesis();
    return fn(this.view(this.db));
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  // Real address rules: the chain code's own module (the sandbox of BSC derives BSC addresses).
  deriveKey(seed: Uint8Array, index: number) {
    assertDerivationIndex(index);
    return chainModule(this.chain).deriveKey(seed, index);
  }
  isValidAddress(address: string): boolean {
    return chainModule(this.chain).address.isValid(address);
  }
  normalizeAddress(address: string): string {
    if (!this.isValidAddress(address)) throw new Error(`invalid ${String(this.chain)} address: ${JSON.stringify(address)}`);
    return chainModule(this.chain).address.normalize(address);
  }

  /** Whether the head follows the clock (no pace job needed: empty blocks are not written). */
  get pacedByClock(): boolean {
    return this.blockMs > 0;
  }

  /**
   * The head at `now`: the stored height plus the blocks the pace sealed since it was stored (none
   * without a pace, none before the anchor). A mining write stores the head it reached and restarts
   * the pace from its own time, so no empty block is ever written.
   */
  private headOf(s: { height: number; pacedAt: number | null }, now: number): number {
    if (this.blockMs <= 0 || s.pacedAt === null) return s.height;
    return s.height + Math.max(0, Math.floor((now - s.pacedAt) / this.blockMs));
  }

  /**
   * The head readers see. While a mining write is in flight it is capped at the head when the first
   * one began: the write's block number is above that, so a block a reader sees as sealed (and a
   * watcher scans as empty) never receives a transfer afterwards.
   */
  private readerHead(s: { height: number; pacedAt: number | null }): number {
    const now = this.headOf(s, this.now());
    return this.mining > 0 ? Math.min(now, Math.max(s.height, this.headOf(s, this.miningSince))) : now;
  }

  /**
   * Runs a write that mines (or cuts) blocks, holding readers' head below its block numbers until
   * it has committed: a write joined to an enclosing transaction resolves before that one commits,
   * which on SQLite happens in the same turn of the event loop (group-commit.ts), so the hold ends
   * on the next turn.
   */
  private async whileMining<T>(fn: () => Promise<T>): Promise<T> {
    const joined = !isPg(this.db) && inTxContext(this.db.$client);
    if (this.mining++ === 0) this.miningSince = this.now();
    try {
      return await fn();
    } finally {
      if (joined) setImmediate(() => this.mining--);
      else this.mining--;
    }
  }

  private async state() {
    await this.ready;
    const s = await sandboxChainRow(this.db, this.chain);
    return { ...s, height: this.readerHead(s), cuts: JSON.parse(s.reorgCuts) as number[] };
  }

  async height(): Promise<number> {
    return (await this.state()).height;
  }

  /** A block's hash changes once a reorg cut it away and it was mined again. */
  async hashOf(number: number, knownCuts?: number[]): Promise<string> {
    const cuts = knownCuts ?? (await this.state()).cuts;
    const generation = cuts.filter((c) => c < number).length;
    const h = createHash("sha256").update(`${this.chain}:${number}:${generation}`).digest();
    return this.formatHash(h);
  }

  private formatHash(h: Buffer): string {
    return chainModule(this.chain).ids.block(h);
  }

  private txHashOf(raw: string): string {
    return chainModule(this.chain).ids.tx(createHash("sha256").update(raw).digest());
  }

  async head(): Promise<ChainHead> {
    const h = await this.height();
    return { latest: BigInt(h), final: BigInt(Math.max(0, h - this.requiredConfirmations + 1)), time: this.now() };
  }

  async blockHash(number: bigint): Promise<string | null> {
    const s = await this.state();
    if (number < 0n || Number(number) > s.height) return null;
    return await this.hashOf(Number(number), s.cuts);
  }

  async scan(from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
    const s = await this.state();
    const rows = await sandboxTransfersIn(this.db, this.chain, Number(from), Number(to), this.tokens.map((x) => x.symbol));
    const transfers: IncomingTransfer[] = [];
    for (const { t, time } of rows) {
      if (!watch.has(t.toAddress)) continue;
      transfers.push({
        chain: this.chain,
        token: t.token as TokenSymbol,
        txHash: t.txHash,
        logIndex: t.logIndex,
        blockNumber: BigInt(t.blockNumber!),
        blockHash: await this.hashOf(t.blockNumber!, s.cuts),
        blockTime: time,
        from: t.fromAddress,
        to: t.toAddress,
        amount: BigInt(t.amount),
      });
    }
    const tipTime = await sandboxBlockTime(this.db, this.chain, Number(to));
    return { transfers, tip: { number: to, hash: await this.hashOf(Number(to), s.cuts), time: tipTime ?? this.now() } };
  }

  /** Confirmed balance: every transfer in a block, in minus out. */
  async tokenBalance(address: string, token: TokenSymbol): Promise<bigint> {
    return await this.balanceIn(this.db, address, token);
  }

  /** Mined balance of the native coin (the gas monitor reads it). */
  async nativeBalance(address: string): Promise<bigint> {
    await this.genesis();
    return await this.balanceIn(this.db, address, this.native);
  }

  async signTransfer(req: TransferRequest): Promise<SignedTransfer> {
    return await this.sign({ asset: req.token, from: req.from, to: req.to, amount: req.amount }, req.privateKey, req.hint?.salt);
  }

  /** A transfer of the native coin (gas top-ups). */
  async signNativeTransfer(req: NativeTransferRequest): Promise<SignedTransfer> {
    if (!req.from) throw new Error("sandbox: a native transfer names its sender");
    return await this.sign({ asset: this.native, from: req.from, to: req.to, amount: req.amount }, req.privateKey);
  }

  /** Signs a transfer or a chain operation; the rules add their fields (signed with it) as its meta. */
  async sign(tx: SandboxTx, privateKey: Uint8Array, salt?: unknown): Promise<SignedTransfer> {
    const fields = await this.rules?.sign?.(this.view(this.db), tx) ?? {};
    const payload: SignedPayload = {
      chain: this.chain,
      token: tx.asset,
      from: tx.from,
      to: tx.to,
      amount: tx.amount.toString(),
      // The salt makes two payouts of the same amount distinct transactions.
      salt: createHash("sha256").update(privateKey).update(String(salt ?? Math.random())).digest("hex").slice(0, 16),
      ...(tx.op ? { op: tx.op } : {}),
      ...(Object.keys(fields).length ? { fields } : {}),
    };
    const raw = JSON.stringify(payload);
    return { txHash: this.txHashOf(raw), raw, meta: fields };
  }

  async broadcast(tx: SignedTransfer): Promise<BroadcastResult> {
    const payload = JSON.parse(tx.raw) as SignedPayload;
    if (payload.chain !== this.chain || this.txHashOf(tx.raw) !== tx.txHash) return { ok: false, permanent: true, error: "malformed transaction" };
    await this.genesis();
    try {
      return await this.mineSigned(tx, payload);
    } catch (e) {
      // Refused by the chain's rules: nothing of it was written (the write transaction rolled back).
      if (e instanceof Refused) return { ok: false, permanent: e.permanent, error: e.message };
      throw e;
    }
  }

  private async mineSigned(tx: SignedTransfer, payload: SignedPayload): Promise<BroadcastResult> {
    return await this.whileMining(async () => await writeTx(this.db, async (t) => {
      const s = await sandboxChainRowForUpdate(t, this.chain);
      // DESIGN 8: the next N payout broadcasts fail (a token transfer; top-ups and chain operations pass).
      if (s.failNextBroadcasts > 0 && !payload.op && payload.token !== this.native) {
        await setFailNextBroadcasts(t, this.chain, s.failNextBroadcasts - 1);
        return { ok: false as const, permanent: false, error: "sandbox fault: broadcast failed" };
      }
      const existing = await sandboxTransferByHash(t, this.chain, tx.txHash);
      if (existing && existing.blockNumber !== null) return { ok: true as const }; // already on chain: a rebroadcast is harmless
      const amount = BigInt(payload.amount);
      if (!payload.op && payload.token !== this.native && await this.balanceIn(t, payload.from, payload.token) < amount) {
        return { ok: false as const, permanent: true, error: "insufficient token balance" };
      }
      const head = this.headOf(s, this.now());
      const number = head + 1;
      let run: { success: boolean; cost: TxCost } = { success: true, cost: { nativeBurned: 0n } };
      if (this.rules) {
        try {
          run = await this.rules.execute(this.ledger(t, number), { asset: payload.token, from: payload.from, to: payload.to, amount, op: payload.op }, payload.fields ?? {});
        } catch (e) {
          if (e instanceof SandboxRefusal) throw new Refused(e.message, e.permanent);
          throw e;
        }
      } else if (payload.token === this.native && await this.balanceIn(t, payload.from, this.native) < amount) {
        return { ok: false as const, permanent: false, error: "insufficient native balance" };
      }
      // An operation moves nothing itself (its rules did); a failed transfer moves nothing.
      const moved = run.success && !payload.op ? payload.amount : "0";
      await this.mineInto(t, number, head);
      const row = { blockNumber: number, amount: moved, cost: costJson(run.cost), failed: run.success ? 0 : 1 };
      if (existing) await updateSandboxTransfer(t, existing.id, row);
      else await insertSandboxTransfer(t, { chain: this.chain, token: payload.token, txHash: tx.txHash, logIndex: 0, fromAddress: payload.from, toAddress: payload.to, raw: tx.raw, createdAt: this.now(), ...row });
      return { ok: true as const };
    }));
  }

  /** Mined transfers in and out (store.ts sandboxBalance: the trigger-kept sum). */
  private async balanceIn(t: Db | Tx, address: string, token: string): Promise<bigint> {
    return await sandboxBalance(t, this.chain, address, token);
  }

  private async mineInto(t: Tx, number: number, prevHeight: number) {
    await mineSandboxBlock(t, this.chain, number, prevHeight, this.now());
  }

  /** What a mined transaction cost, as its chain's rules charged it (nothing on a chain without rules). */
  async txCost(tx: SignedTransfer): Promise<TxCost | null> {
    return await this.costOf(tx.txHash);
  }
  async costOf(txHash: string): Promise<TxCost | null> {
    const row = await this.minedRow(txHash);
    return row ? costFrom(row.cost) : null;
  }
  private async minedRow(txHash: string) {
    return await minedSandboxTransfer(this.db, this.chain, txHash);
  }

  lookupTx(txHash: string): Promise<TxLookup> {
    return sandboxTxLookup({ db: this.db, chain: this.chain, tokens: this.tokens, head: () => this.head(), hashOf: async (n) => await this.hashOf(n) }, txHash);
  }

  async txState(tx: SignedTransfer): Promise<TxState> {
    const s = await this.state();
    const row = await this.minedRow(tx.txHash);
    if (!row) return { state: "unknown" };
    const confirmations = s.height - row.blockNumber! + 1;
    return { state: "included", blockNumber: BigInt(row.blockNumber!), success: row.failed === 0, final: confirmations >= this.requiredConfirmations, confirmations };
  }

  // ---- sandbox controls (/sandbox endpoints) ----

  /** An incoming transfer of a token or the native coin (from outside: no fee) in a new block. */
  async transfer(input: { token: string; to: string; amount: bigint; from?: string }): Promise<{ txHash: string; blockNumber: number }> {
    const from = input.from ?? chainModule(this.chain).address.random();
    const raw = JSON.stringify({ chain: this.chain, token: input.token, from, to: input.to, amount: input.amount.toString(), salt: Math.random().toString(36).slice(2) });
    const txHash = this.txHashOf(raw);
    await this.ready;
    return await this.whileMining(async () => await writeTx(this.db, async (t) => {
      const s = await sandboxChainRowForUpdate(t, this.chain);
      const head = this.headOf(s, this.now());
      const number = head + 1;
      await this.mineInto(t, number, head);
      await insertSandboxTransfer(t, { chain: this.chain, token: input.token, txHash, logIndex: 0, blockNumber: number, fromAddress: from, toAddress: input.to, amount: input.amount.toString(), createdAt: this.now() });
      return { txHash, blockNumber: number };
    }));
  }

  async mine(count: number): Promise<number> {
    await this.ready;
    return await this.whileMining(async () => await sharedWriteTx(this.db, async (t) => {
      const s = await sandboxChainRowForUpdate(t, this.chain);
      const now = this.now();
      const height = this.headOf(s, now) + count;
      await setSandboxHeight(t, this.chain, height, now);
      return height;
    }));
  }

  /** Drop the last `depth` blocks and their transfers. */
  async reorg(depth: number): Promise<number> {
    await this.ready;
    return await this.whileMining(async () => await writeTx(this.db, async (t) => {
      const s = await sandboxChainRowForUpdate(t, this.chain);
      const now = this.now();
      const cut = Math.max(0, this.headOf(s, now) - depth);
      const cuts = [...(JSON.parse(s.reorgCuts) as number[]), cut];
      // Fees and stake moves of the dropped blocks come back (the rules' account state stays: sandbox simplification).
      await cutSandboxChain(t, this.chain, cut, JSON.stringify(cuts), now);
      return cut;
    }));
  }

  async setFaults(failNextBroadcasts: number): Promise<void> {
    await this.ready;
    await writeTx(this.db, async (tx) => await setFailNextBroadcasts(tx, this.chain, failNextBroadcasts));
  }

  /** How many payout transfers the sandbox carried from `from` (crash-safety tests count these). */
  async outgoingCount(from: string): Promise<number> {
    return await sandboxOutgoingCount(this.db, this.chain, from);
  }
}

/** A refusal carried out of the write transaction (which it rolls back). */
class Refused extends Error {
  constructor(message: string, readonly permanent: boolean) {
    super(message);
  }
}

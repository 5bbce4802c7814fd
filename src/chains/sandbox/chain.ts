// The sandbox chain (DESIGN 8): an in-process chain per chainCode with real
// address formats, blocks, confirmations, reorgs and broadcast faults. Its
// state lives in the database so it survives a restart like a real chain.
import { createHash } from "node:crypto";
import { and, asc, between, eq, gt, isNotNull, sql } from "drizzle-orm";
import { type Db, type Tx, writeTx } from "../../db/client";
import { sandboxBlocks, sandboxChains, sandboxTransfers } from "../../db/schema";
import { fromHiLo } from "../../db/balance-sum";
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
  WatchSet,
} from "../types";
import { assertDerivationIndex } from "../derivation-index";
import { chainModule } from "../registry";

export interface SandboxOptions {
  chain: ChainCode;
  db: Db;
  tokens: TokenInfo[];
  confirmations: number;
  now: () => number;
}

interface SignedPayload {
  chain: ChainCode;
  token: TokenSymbol;
  from: string;
  to: string;
  amount: string;
  salt: string;
}

/** A mined balance (sandbox_balances, kept by triggers on sandbox_transfers). */
export const SANDBOX_BALANCE = "SELECT hi, lo FROM sandbox_balances WHERE chain = ? AND address = ? AND token = ?";

export class SandboxChain implements ChainAdapter {
  readonly mode = "sandbox" as const;
  readonly chain: ChainCode;
  readonly tokens: readonly TokenInfo[];
  readonly requiredConfirmations: number;
  private readonly db: Db;
  private readonly now: () => number;

  constructor(o: SandboxOptions) {
    this.chain = o.chain;
    this.tokens = o.tokens;
    this.requiredConfirmations = o.confirmations;
    this.db = o.db;
    this.now = o.now;
    this.db.insert(sandboxChains).values({ chain: this.chain, height: 0, genesisTime: this.now() }).onConflictDoNothing().run();
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

  private state() {
    const s = this.db.select().from(sandboxChains).where(eq(sandboxChains.chain, this.chain)).get()!;
    return { ...s, cuts: JSON.parse(s.reorgCuts) as number[] };
  }

  height(): number {
    return this.state().height;
  }

  /** A block's hash changes once a reorg cut it away and it was mined again. */
  hashOf(number: number, cuts = this.state().cuts): string {
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
    const h = this.height();
    return { latest: BigInt(h), final: BigInt(Math.max(0, h - this.requiredConfirmations + 1)), time: this.now() };
  }

  async blockHash(number: bigint): Promise<string | null> {
    const s = this.state();
    if (number < 0n || Number(number) > s.height) return null;
    return this.hashOf(Number(number), s.cuts);
  }

  async scan(from: bigint, to: bigint, watch: WatchSet): Promise<ScanResult> {
    const s = this.state();
    const rows = this.db
      .select({ t: sandboxTransfers, time: sandboxBlocks.time })
      .from(sandboxTransfers)
      .innerJoin(sandboxBlocks, and(eq(sandboxBlocks.chain, sandboxTransfers.chain), eq(sandboxBlocks.number, sandboxTransfers.blockNumber)))
      .where(and(eq(sandboxTransfers.chain, this.chain), between(sandboxTransfers.blockNumber, Number(from), Number(to))))
      .orderBy(asc(sandboxTransfers.blockNumber), asc(sandboxTransfers.id))
      .all();
    const transfers: IncomingTransfer[] = [];
    for (const { t, time } of rows) {
      if (!watch.has(t.toAddress)) continue;
      transfers.push({
        chain: this.chain,
        token: t.token as TokenSymbol,
        txHash: t.txHash,
        logIndex: t.logIndex,
        blockNumber: BigInt(t.blockNumber!),
        blockHash: this.hashOf(t.blockNumber!, s.cuts),
        blockTime: time,
        from: t.fromAddress,
        to: t.toAddress,
        amount: BigInt(t.amount),
      });
    }
    const tipTime = this.db.select().from(sandboxBlocks).where(and(eq(sandboxBlocks.chain, this.chain), eq(sandboxBlocks.number, Number(to)))).get()?.time;
    return { transfers, tip: { number: to, hash: this.hashOf(Number(to), s.cuts), time: tipTime ?? this.now() } };
  }

  /** Confirmed balance: every transfer in a block, in minus out. */
  async tokenBalance(address: string, token: TokenSymbol): Promise<bigint> {
    return this.balanceIn(this.db, address, token);
  }

  async signTransfer(req: TransferRequest): Promise<SignedTransfer> {
    const payload: SignedPayload = {
      chain: this.chain,
      token: req.token,
      from: req.from,
      to: req.to,
      amount: req.amount.toString(),
      // The salt makes two payouts of the same amount distinct transactions.
      salt: createHash("sha256").update(req.privateKey).update(String(req.hint?.salt ?? Math.random())).digest("hex").slice(0, 16),
    };
    const raw = JSON.stringify(payload);
    return { txHash: this.txHashOf(raw), raw, meta: {} };
  }

  async broadcast(tx: SignedTransfer): Promise<BroadcastResult> {
    const payload = JSON.parse(tx.raw) as SignedPayload;
    if (payload.chain !== this.chain || this.txHashOf(tx.raw) !== tx.txHash) return { ok: false, permanent: true, error: "malformed transaction" };
    return writeTx(this.db, (t) => {
      const s = t.select().from(sandboxChains).where(eq(sandboxChains.chain, this.chain)).get()!;
      if (s.failNextBroadcasts > 0) {
        t.update(sandboxChains).set({ failNextBroadcasts: s.failNextBroadcasts - 1 }).where(eq(sandboxChains.chain, this.chain)).run();
        return { ok: false as const, permanent: false, error: "sandbox fault: broadcast failed" };
      }
      const existing = t.select().from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, this.chain), eq(sandboxTransfers.txHash, tx.txHash))).get();
      if (existing && existing.blockNumber !== null) return { ok: true as const }; // already on chain: a rebroadcast is harmless
      if (this.balanceIn(t, payload.from, payload.token) < BigInt(payload.amount)) {
        return { ok: false as const, permanent: true, error: "insufficient token balance" };
      }
      const number = s.height + 1;
      this.mineInto(t, number, s.height);
      if (existing) t.update(sandboxTransfers).set({ blockNumber: number }).where(eq(sandboxTransfers.id, existing.id)).run();
      else
        t.insert(sandboxTransfers)
          .values({ chain: this.chain, token: payload.token, txHash: tx.txHash, logIndex: 0, blockNumber: number, fromAddress: payload.from, toAddress: payload.to, amount: payload.amount, raw: tx.raw, createdAt: this.now() })
          .run();
      return { ok: true as const };
    });
  }

  /** Mined transfers in and out, summed by triggers into sandbox_balances (one seek, not the address's history). */
  private balanceIn(t: Db | Tx, address: string, token: string): bigint {
    const q = t.$client.query<{ hi: bigint; lo: bigint }, [string, string, string]>(SANDBOX_BALANCE);
    q.safeIntegers(true);
    const r = q.get(this.chain, address, token);
    return r ? fromHiLo(r.hi, r.lo) : 0n;
  }

  private mineInto(t: Tx, number: number, prevHeight: number) {
    t.update(sandboxChains).set({ height: Math.max(number, prevHeight) }).where(eq(sandboxChains.chain, this.chain)).run();
    t.insert(sandboxBlocks).values({ chain: this.chain, number, time: this.now() }).onConflictDoUpdate({ target: [sandboxBlocks.chain, sandboxBlocks.number], set: { time: this.now() } }).run();
  }

  /** The sandbox burns no fees: a mined transaction cost nothing. */
  async txCost(tx: SignedTransfer): Promise<TxCost | null> {
    const s = await this.txState(tx);
    return s.state === "included" ? { nativeBurned: 0n } : null;
  }

  async txState(tx: SignedTransfer): Promise<TxState> {
    const s = this.state();
    const row = this.db.select().from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, this.chain), eq(sandboxTransfers.txHash, tx.txHash))).get();
    if (!row || row.blockNumber === null) return { state: "unknown" };
    const confirmations = s.height - row.blockNumber + 1;
    return { state: "included", blockNumber: BigInt(row.blockNumber), success: true, final: confirmations >= this.requiredConfirmations, confirmations };
  }

  // ---- sandbox controls (/sandbox endpoints) ----

  /** An incoming token transfer in a new block. */
  transfer(input: { token: TokenSymbol; to: string; amount: bigint; from?: string }): { txHash: string; blockNumber: number } {
    const from = input.from ?? chainModule(this.chain).address.random();
    const raw = JSON.stringify({ chain: this.chain, token: input.token, from, to: input.to, amount: input.amount.toString(), salt: Math.random().toString(36).slice(2) });
    const txHash = this.txHashOf(raw);
    return writeTx(this.db, (t) => {
      const s = t.select().from(sandboxChains).where(eq(sandboxChains.chain, this.chain)).get()!;
      const number = s.height + 1;
      this.mineInto(t, number, s.height);
      t.insert(sandboxTransfers)
        .values({ chain: this.chain, token: input.token, txHash, logIndex: 0, blockNumber: number, fromAddress: from, toAddress: input.to, amount: input.amount.toString(), createdAt: this.now() })
        .run();
      return { txHash, blockNumber: number };
    });
  }

  mine(count: number): number {
    return writeTx(this.db, (t) => {
      const s = t.select().from(sandboxChains).where(eq(sandboxChains.chain, this.chain)).get()!;
      const height = s.height + count;
      t.update(sandboxChains).set({ height }).where(eq(sandboxChains.chain, this.chain)).run();
      return height;
    });
  }

  /** Drop the last `depth` blocks and their transfers. */
  reorg(depth: number): number {
    return writeTx(this.db, (t) => {
      const s = t.select().from(sandboxChains).where(eq(sandboxChains.chain, this.chain)).get()!;
      const cut = Math.max(0, s.height - depth);
      const cuts = [...(JSON.parse(s.reorgCuts) as number[]), cut];
      t.delete(sandboxTransfers).where(and(eq(sandboxTransfers.chain, this.chain), gt(sandboxTransfers.blockNumber, cut))).run();
      t.delete(sandboxBlocks).where(and(eq(sandboxBlocks.chain, this.chain), gt(sandboxBlocks.number, cut))).run();
      t.update(sandboxChains).set({ height: cut, reorgCuts: JSON.stringify(cuts) }).where(eq(sandboxChains.chain, this.chain)).run();
      return cut;
    });
  }

  setFaults(failNextBroadcasts: number): void {
    this.db.update(sandboxChains).set({ failNextBroadcasts }).where(eq(sandboxChains.chain, this.chain)).run();
  }

  /** How many payout transfers the sandbox carried from `from` (crash-safety tests count these). */
  outgoingCount(from: string): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(sandboxTransfers).where(and(eq(sandboxTransfers.chain, this.chain), eq(sandboxTransfers.fromAddress, from), isNotNull(sandboxTransfers.blockNumber))).get()!.n;
  }
}

// Reconcile mode of a restored database (DESIGN 16): before a payout source sends (a payout,
// a collection leg, a refund: all run as payouts), its chain is read once for what it sent
// after the backup. Each transfer the database does not know is an unrecorded outgoing
// transfer (exceptions queue, alert `unrecorded_outgoing`), and the source's sends are held
// until an operator acknowledges them (`stablegate restore ack`, or the back office). The
// acknowledgement releases the held payouts: the operator has checked that what went out
// after the backup does not already pay them (docs/operations.md).
import { and, count, eq, isNull, like, sql } from "drizzle-orm";
import { writeTx, type Db, type DbOrTx } from "../db/client";
import { payoutOrders, reconcileAddresses, reconcileChains, unrecordedOutgoing } from "../db/schema";
import { chainModule, hasChainModule } from "../chains/registry";
import { chainBundle } from "../chains/factory";
import type { ChainModuleCtx } from "../chains/module";
import type { PayoutStore } from "../chains/payout-steps";
import type { ChainAdapter } from "../chains/types";
import { recordAudit, type Actor } from "../audit/log";

export type UnrecordedRow = typeof unrecordedOutgoing.$inferSelect;

/** lastError of a held payout starts with this (the acknowledgement releases exactly these). */
export const HOLD_PREFIX = "held after restore:";

export function holdText(chain: string, address: string, n: number): string {
  return `${HOLD_PREFIX} ${n} unrecorded outgoing transfer${n === 1 ? "" : "s"} from ${address} on ${chain} since the backup; check them, then acknowledge with \`stablegate restore ack ${chain} ${address}\` (or on the back office's Exceptions page)`;
}

/** Whether the database stored a transaction (a payout, a gas top-up, a token-account creation). */
function knownTx(db: DbOrTx, txHash: string): boolean {
  const h = txHash.toLowerCase();
  return !!db.$client
    .query(
      `SELECT 1 FROM payout_orders WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM gas_topups WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM payout_tx_attempts WHERE lower(tx_hash) = ?1
       UNION ALL SELECT 1 FROM sol_token_accounts WHERE lower(tx_hash) = ?1 LIMIT 1`,
    )
    .get(h);
}

/** The executor's gate: null when the source may send, else why it is held. */
export interface SendGate {
  check(adapter: ChainAdapter, address: string): Promise<string | null>;
}

export class ReconcileGate implements SendGate {
  /** Sources known to be free to send (until the next restore, which is a new process). */
  private readonly free = new Set<string>();
  constructor(private readonly ctx: ChainModuleCtx & { payouts: PayoutStore }) {}

  async check(adapter: ChainAdapter, address: string): Promise<string | null> {
    const key = `${adapter.chain}:${address}`;
    if (this.free.has(key)) return null;
    const db = this.ctx.db;
    const rc = db.select().from(reconcileChains).where(eq(reconcileChains.chain, adapter.chain)).get();
    if (!rc) {
      this.free.add(key);
      return null;
    }
    const seen = db.select().from(reconcileAddresses).where(and(eq(reconcileAddresses.chain, adapter.chain), eq(reconcileAddresses.address, address))).get();
    if (seen && seen.generation === rc.generation) {
      if (seen.state !== "held") {
        this.free.add(key);
        return null;
      }
      return holdText(adapter.chain, address, openCount(db, adapter.chain, address));
    }
    const found = await (chainBundle(adapter).unrecordedOutgoing?.(this.ctx, {
      address,
      since: rc.sinceBlock === null ? null : BigInt(rc.sinceBlock),
      known: (h) => knownTx(db, h),
      payouts: this.ctx.payouts,
    }) ?? []);
    const now = this.ctx.clock.now();
    writeTx(db, (tx) => {
      for (const t of found) {
        tx.insert(unrecordedOutgoing)
          .values({
            chain: adapter.chain,
            address,
            txHash: t.txHash,
            nonce: t.nonce ?? null,
            blockNumber: t.blockNumber === undefined ? null : Number(t.blockNumber),
            toAddress: t.to ?? null,
            asset: t.asset ?? null,
            amount: t.amount === undefined ? null : t.amount.toString(),
            generation: rc.generation,
            foundAt: now,
          })
          .run();
      }
      const state = found.length ? "held" : "clear";
      tx.insert(reconcileAddresses)
        .values({ chain: adapter.chain, address, generation: rc.generation, state, checkedAt: now })
        .onConflictDoUpdate({ target: [reconcileAddresses.chain, reconcileAddresses.address], set: { generation: rc.generation, state, checkedAt: now, acknowledgedBy: null, acknowledgedAt: null } })
        .run();
    });
    if (!found.length) {
      this.free.add(key);
      return null;
    }
    this.ctx.logger.error("unrecorded outgoing transfers after a restore: sends from this source are held", { chain: adapter.chain, address, count: found.length });
    return holdText(adapter.chain, address, found.length);
  }
}

function openCount(db: DbOrTx, chain: string, address: string): number {
  return (
    db
      .select({ n: count() })
      .from(unrecordedOutgoing)
      .where(and(eq(unrecordedOutgoing.chain, chain), eq(unrecordedOutgoing.address, address), isNull(unrecordedOutgoing.acknowledgedAt)))
      .get()?.n ?? 0
  );
}

/** Unacknowledged unrecorded transfers, newest first (exceptions page, alert). */
export function openUnrecorded(db: DbOrTx, limit = 500): UnrecordedRow[] {
  return db.select().from(unrecordedOutgoing).where(isNull(unrecordedOutgoing.acknowledgedAt)).orderBy(sql`${unrecordedOutgoing.id} DESC`).limit(limit).all();
}

export class AckError extends Error {
  override name = "AckError";
}

export interface AckResult {
  chain: string;
  address: string;
  acknowledged: number;
  released: string[];
}

/**
 * The operator has looked at what `address` sent after the backup: its unrecorded transfers
 * are acknowledged and its held payouts go out (they stay `submitted`; the executor picks
 * them up). One audit entry.
 */
export function acknowledgeUnrecorded(db: Db, input: { chain: string; address: string }, actor: Actor, now: number): AckResult {
  if (!hasChainModule(input.chain)) throw new AckError(`unknown chain: ${input.chain}`);
  const m = chainModule(input.chain);
  if (!m.address.isValid(input.address)) throw new AckError(`not a ${input.chain} address: ${input.address}`);
  const address = m.address.normalize(input.address);
  const chain = input.chain;
  return writeTx(db, (tx) => {
    const open = tx
      .select()
      .from(unrecordedOutgoing)
      .where(and(eq(unrecordedOutgoing.chain, chain), eq(unrecordedOutgoing.address, address), isNull(unrecordedOutgoing.acknowledgedAt)))
      .all();
    if (!open.length) throw new AckError(`no unrecorded outgoing transfer from ${address} on ${chain} waits for acknowledgement`);
    tx.update(unrecordedOutgoing)
      .set({ acknowledgedBy: actor.actor, acknowledgedAt: now })
      .where(and(eq(unrecordedOutgoing.chain, chain), eq(unrecordedOutgoing.address, address), isNull(unrecordedOutgoing.acknowledgedAt)))
      .run();
    tx.update(reconcileAddresses)
      .set({ state: "acknowledged", acknowledgedBy: actor.actor, acknowledgedAt: now })
      .where(and(eq(reconcileAddresses.chain, chain), eq(reconcileAddresses.address, address)))
      .run();
    const released = tx
      .update(payoutOrders)
      .set({ lastError: null, retryAt: null, updatedAt: now })
      .where(and(eq(payoutOrders.chain, chain), eq(payoutOrders.fromAddress, address), eq(payoutOrders.status, "submitted"), like(payoutOrders.lastError, `${HOLD_PREFIX}%`)))
      .returning({ orderNo: payoutOrders.orderNo })
      .all()
      .map((r) => r.orderNo);
    recordAudit(tx, {
      ...actor,
      at: now,
      action: "restore.ack",
      target: `address:${chain}:${address}`,
      before: { state: "held", unrecorded: open.map((t) => ({ txHash: t.txHash, nonce: t.nonce, to: t.toAddress, asset: t.asset, amount: t.amount })) },
      after: { state: "acknowledged", released },
    });
    return { chain, address, acknowledged: open.length, released };
  });
}

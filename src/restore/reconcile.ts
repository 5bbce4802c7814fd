// Reconcile mode of a restored database (DESIGN 16): before a payout source sends (a payout,
// a collection leg, a refund: all run as payouts), its chain is read once for what it sent
// after the backup. Each transfer the database does not know is an unrecorded outgoing
// transfer (exceptions queue, alert `unrecorded_outgoing`), and the source's sends are held
// until an operator acknowledges them (`stablegate restore ack`, or the back office). The
// acknowledgement releases the held payouts: the operator has checked that what went out
// after the backup does not already pay them (docs/operations.md).
import { readCommitted, writeTx, type Db, type DbOrTx } from "../db/client";
import { chainModule, hasChainModule } from "../chains/registry";
import { chainBundle } from "../chains/factory";
import type { ChainModuleCtx } from "../chains/module";
import type { PayoutStore } from "../chains/payout-steps";
import type { ChainAdapter } from "../chains/types";
import { recordAudit, type Actor } from "../audit/log";
import { DomainError } from "../errors";
import { addressRowsAfter } from "../wallet/store";
import { acknowledge, knownTx, openCount, openFrom, reconcileAddress, reconcileChain, recordCheck } from "./store";

export { openUnrecorded, type UnrecordedRow } from "./store";

/** lastError of a held payout starts with this (the acknowledgement releases exactly these). */
export const HOLD_PREFIX = "held after restore:";

export function holdText(chain: string, address: string, n: number): string {
  return `${HOLD_PREFIX} ${n} unrecorded outgoing transfer${n === 1 ? "" : "s"} from ${address} on ${chain} since the backup; check them, then acknowledge with \`stablegate restore ack ${chain} ${address}\` (or on the back office's Exceptions page)`;
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
    const rc = await reconcileChain(db, adapter.chain);
    if (!rc) {
      this.free.add(key);
      return null;
    }
    const seen = await reconcileAddress(db, adapter.chain, address);
    if (seen && seen.generation === rc.generation) {
      if (seen.state !== "held") {
        this.free.add(key);
        return null;
      }
      return holdText(adapter.chain, address, await openCount(db, adapter.chain, address));
    }
    const found = await (chainBundle(adapter).unrecordedOutgoing?.(this.ctx, {
      address,
      since: rc.sinceBlock === null ? null : BigInt(rc.sinceBlock),
      known: async (h) => await knownTx(db, h),
      payouts: this.ctx.payouts,
      // Committed rows only: the TRON reader keeps the highest sequence it saw.
      addressesAfter: async (chain, after) => await readCommitted(db, async (d) => await addressRowsAfter(d, chain, after)),
    }) ?? []);
    const now = this.ctx.clock.now();
    await writeTx(db, async (tx) =>
      await recordCheck(tx, {
        chain: adapter.chain,
        address,
        generation: rc.generation,
        now,
        found: found.map((t) => ({
          txHash: t.txHash,
          nonce: t.nonce ?? null,
          blockNumber: t.blockNumber === undefined ? null : Number(t.blockNumber),
          toAddress: t.to ?? null,
          asset: t.asset ?? null,
          amount: t.amount === undefined ? null : t.amount.toString(),
        })),
      }),
    );
    if (!found.length) {
      this.free.add(key);
      return null;
    }
    this.ctx.logger.error("unrecorded outgoing transfers after a restore: sends from this source are held", { chain: adapter.chain, address, count: found.length });
    return holdText(adapter.chain, address, found.length);
  }
}

/** An acknowledgement refused: a code of src/errors.ts DOMAIN_ERRORS with its parameters. */
export class AckError extends DomainError {
  override name = "AckError";
}

/** The port to the payout table (restore ranks below payout): `payout/store.ts` `releaseHeldPayouts`. */
export interface AckPorts {
  /** Releases the source's payouts held with this lastError prefix, in the caller's transaction; their order numbers. */
  releaseHeldPayouts: (tx: DbOrTx, chain: string, address: string, errorPrefix: string, now: number) => Promise<string[]>;
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
export async function acknowledgeUnrecorded(db: Db, input: { chain: string; address: string }, actor: Actor, now: number, ports: AckPorts): Promise<AckResult> {
  if (!hasChainModule(input.chain)) throw new AckError("ack.unknown_chain", { chain: input.chain });
  const m = chainModule(input.chain);
  if (!m.address.isValid(input.address)) throw new AckError("ack.invalid_address", { chain: input.chain, address: input.address });
  const address = m.address.normalize(input.address);
  const chain = input.chain;
  return await writeTx(db, async (tx) => {
    const open = await openFrom(tx, chain, address);
    if (!open.length) throw new AckError("ack.nothing_open", { address, chain });
    await acknowledge(tx, chain, address, actor.actor, now);
    const released = await ports.releaseHeldPayouts(tx, chain, address, HOLD_PREFIX, now);
    await recordAudit(tx, {
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

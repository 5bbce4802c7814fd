// The payout executor's chain-specific steps, as the chain modules implement them
// (src/chains/<chain>/payout-steps.ts). The executor (src/payout/executor.ts) runs them;
// what the steps need from the address book (src/wallet/) reaches them through a port, so
// the chain layer imports neither payout/ nor wallet/.
import type { DbOrTx } from "../db/client";
import type { payoutOrders } from "../db/schema";
import type { ChainAdapter, DerivedKey, SignedTransfer } from "./types";

export type PayoutOrderRow = typeof payoutOrders.$inferSelect;

/** Chain-specific steps (BSC: nonces and gas top-ups); the default signs with the source's HD key. */
export interface PayoutChainOps {
  /** Runs under the source address's lock; the executor stores the result before releasing it. */
  sign(order: PayoutOrderRow): Promise<SignedTransfer>;
  /** Before the first broadcast of a stored transaction (e.g. fund its gas). Throw to stop this attempt. */
  beforeBroadcast?(order: PayoutOrderRow, tx: SignedTransfer): Promise<void>;
  /**
   * A broadcast transaction that did not confirm within `replaceAfterMs` (EVM: the same nonce
   * with raised fees, up to the chain's gas_price_cap): the replacement, or null when the cap
   * leaves none (the payout is stuck). Runs under the source address's lock; the executor
   * stores the result before it reaches the network (beforeBroadcast runs first).
   */
  replace?(order: PayoutOrderRow, current: SignedTransfer): Promise<SignedTransfer | null>;
  /** `chains.<C>.replace_after` in ms: how long a transaction may stay unconfirmed before `replace`. */
  replaceAfterMs?: number;
}

/** An error that clears by itself: the order stays submitted and the job retries it after `retryAfterMs`. */
export class RetryLater extends Error {
  constructor(message: string, readonly retryAfterMs: number) {
    super(message);
  }
}

/** Serialises async work per key (an address: nonce allocation and storing must not interleave). */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}

/**
 * One transaction of a payout or a gas top-up and since when it is out (the first: when it went
 * out or was signed; a replacement: when it was stored). Replacements (EVM, replace_after) are
 * stored before they are broadcast: payout_tx_attempts, gas_topup_attempts.
 */
export interface TxAttempt {
  tx: SignedTransfer;
  since: number;
}

/** A stored replacement row as the transaction it holds. */
export const storedAttempt = (r: { txHash: string; signedTx: string; signedMeta: string; createdAt: number }): TxAttempt => ({
  tx: { txHash: r.txHash, raw: r.signedTx, meta: JSON.parse(r.signedMeta) as Record<string, unknown> },
  since: r.createdAt,
});

/** The stored columns of a replacement signed now. */
export const attemptColumns = (chain: string, signed: SignedTransfer, now: number) => ({ chain, txHash: signed.txHash, signedTx: signed.raw, signedMeta: JSON.stringify(signed.meta), createdAt: now });

/** The signed transaction stored on a payout order. */
export function storedTx(o: PayoutOrderRow): SignedTransfer {
  return { txHash: o.txHash!, raw: o.signedTx!, meta: o.signedMeta ? (JSON.parse(o.signedMeta) as Record<string, unknown>) : {} };
}

/** A gateway address as the steps need it: where it is and which HD index holds its key. */
export interface KeyedAddress {
  address: string;
  derivationIndex: number;
}

/** The port to the gateway's address book (src/wallet/addresses.ts `addressBook` implements it). */
export interface AddressBook {
  byId(db: DbOrTx, id: string): Promise<KeyedAddress | undefined>;
  /** The chain's gas wallet (index 0), created on first use. */
  gasWallet(tx: DbOrTx, adapter: ChainAdapter, seed: Uint8Array, now: number): Promise<KeyedAddress>;
}

/**
 * The port to the payout orders (src/payout/store.ts `payoutStore` implements it from the
 * state machine's own status lists): the steps ask by meaning, never with status strings.
 */
export interface PayoutStore {
  /** The source's payouts signed and stored but not yet accepted by a node (their fees are still to be paid). */
  signedUnsent(db: DbOrTx, fromAddressId: string): Promise<PayoutOrderRow[]>;
  /** The signed metadata (`signedMeta`) of the source's unfinished payouts on `chain` (each may still hold a nonce). */
  unfinishedSignedMeta(db: DbOrTx, chain: string, fromAddress: string): Promise<string[]>;
  /** The signed metadata of every payout the source ever signed on `chain`, any status (restore reconcile). */
  signedMeta(db: DbOrTx, chain: string, fromAddress: string): Promise<string[]>;
  /** Those of `ids` that are finished (confirmed or failed: nothing more will be sent or land for them). */
  finished(db: DbOrTx, ids: readonly number[]): Promise<PayoutOrderRow[]>;
}

/** What the composition root hands a chain's payout steps. */
export interface PayoutStepEnv {
  locks: KeyedLock;
  addresses: AddressBook;
  payouts: PayoutStore;
}

/** The HD key of a payout's source address (every chain's steps sign with it). */
export async function sourceKey(ctx: { db: DbOrTx; seed: Uint8Array }, adapter: ChainAdapter, env: PayoutStepEnv, o: PayoutOrderRow): Promise<DerivedKey> {
  const a = await env.addresses.byId(ctx.db, o.fromAddressId);
  if (!a) throw new Error(`payout ${o.orderNo}: source ${o.fromAddressId} is not a gateway address`);
  return adapter.deriveKey(ctx.seed, a.derivationIndex);
}

// A new order's first callback handed straight to this process's worker (issue 37). The create's
// transaction writes the row already claimed ('delivering', this process's lease) when the worker
// says it would start it at once, and the worker takes it from memory once the transaction has
// committed: no claim (a read of the due rows, a 'delivering' mark and its commit) per callback.
// Every rule of a claim still holds: the row is claimed in the transaction that writes it, so it is
// sent only once committed (DESIGN 16); a crash leaves it 'delivering' under this process's lease
// (released at the next start, or when the lease ends); only an order's first event is handed over,
// so no event overtakes an earlier one of its order; and the worker offers a slot only while it has
// nothing due waiting (callbacks/worker.ts `offer`), so a handed row never takes a slot from an
// older one (DESIGN 7's fairness). A leaf module: the outbox asks, the worker answers.
import type { DueRow } from "./store";

export interface HandoffLease {
  owner: string;
  /** Clock time the claim's lease ends. */
  until: number;
}

export interface HandoffTaker {
  /** A slot now for the event `id` of `merchantId` to `target`, held until adopt or cancel; null: leave it to the queue. */
  offer(id: string, merchantId: number, target: string): HandoffLease | null;
  /** The offered row, committed: deliver it. */
  adopt(row: DueRow, leaseUntil: number): void;
  /** The offered row was not written: the slot is free again. */
  cancel(id: string): void;
}

/** One taker per database connection (a test process may run several gateways). */
const takers = new WeakMap<object, HandoffTaker>();

/** The worker of the database whose connection is `client` takes handoffs; returns the undo. */
export function takeHandoffs(client: object, taker: HandoffTaker): () => void {
  takers.set(client, taker);
  return () => {
    if (takers.get(client) === taker) takers.delete(client);
  };
}

/** The taker for `client`'s database, if its worker takes handoffs. */
export function handoffTakerOf(client: object | undefined): HandoffTaker | undefined {
  return client && typeof client === "object" ? takers.get(client) : undefined;
}

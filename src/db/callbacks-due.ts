// The callback worker's one wake-up path. Whatever makes a callback row due
// now (the outbox's insert, the release of held rows, a resend) calls
// callbacksDue(); every running worker of this process listens and polls at
// once. The poll is deferred to a timer, so it runs after the caller's
// synchronous transaction (or group) commits. Rows due later (retries) are
// found by the worker's own poll. A leaf module, so any writer of callback rows
// can signal without depending on the worker.
// `from`: "here" when this process wrote the row, "cluster" when another gateway's wake-up came
// over the bus (PostgreSQL: callbacks/cluster-wake.ts relays only "here", never echoes "cluster").
export type DueFrom = "here" | "cluster";
const listeners = new Set<(from: DueFrom) => void>();

export function callbacksDue(from: DueFrom = "here"): void {
  for (const l of listeners) l(from);
}

/** Subscribes a worker; returns the unsubscribe. */
export function onCallbacksDue(fn: (from: DueFrom) => void): () => void {
  listeners.add(fn);
  return () => void listeners.delete(fn);
}

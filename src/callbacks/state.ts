// The outbox's delivery states (callbacks.state) as data: statements that spell a state (the
// operations counts, ops/store.ts; the back office's callbacks page) and the resend
// (callbacks/resend.ts) take it from these lists (db/status-sql.ts spells them).

export const CALLBACK_STATES = ["pending", "delivering", "delivered", "failed", "held"] as const;
export type CallbackDeliveryState = (typeof CALLBACK_STATES)[number];

/** Not delivered yet: waiting for a try, or being tried. */
export const UNDELIVERED: readonly CallbackDeliveryState[] = ["pending", "delivering"];
/** Gave up after the last retry (partial index callbacks_failed). */
export const GAVE_UP: readonly CallbackDeliveryState[] = ["failed"];

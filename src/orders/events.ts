// The timeline of an order: one row per status change, written by the transition funnels in
// their transaction. Its statements live in orders/store.ts; callers keep importing them here.
export { eventsOf, recordOrderEvent, type OrderEventRow } from "./store";

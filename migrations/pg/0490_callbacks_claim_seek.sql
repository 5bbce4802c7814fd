-- The callback worker's claim on PostgreSQL (issue 38, callbacks/store.pg.ts) as seeks:
-- - pending rows in due order (next_attempt_at, seq: CALLBACK_LEASES.order): the claim walks this index from
--   its start and stops after the rows it takes, however many rows wait for a later retry or
--   are due at once (a backlog after an endpoint outage): no sort of every due row per claim;
-- - 'delivering' rows by lease end: a lease that ran out (its gateway died) is found without
--   reading the rows in flight.
CREATE INDEX callbacks_pending_due ON callbacks (next_attempt_at, seq) WHERE state = 'pending';
CREATE INDEX callbacks_lease_end ON callbacks (lease_until) WHERE state = 'delivering';
-- callbacks_due (state, merchant_id, next_attempt_at) served SQLite's per-merchant planner; no
-- PostgreSQL statement reads it any more, and every callback insert and state change wrote it.
DROP INDEX IF EXISTS callbacks_due;

-- The fair claim on PostgreSQL (DESIGN 7, callbacks/store.pg.ts CLAIM_SQL): the merchants with
-- pending rows are found by a loose index scan, and each merchant's due rows are read in due order
-- (next_attempt_at, seq) from its own start: a seek per merchant, however large another
-- merchant's backlog.
CREATE INDEX callbacks_pending_merchant ON callbacks (merchant_id, next_attempt_at, seq) WHERE state = 'pending';

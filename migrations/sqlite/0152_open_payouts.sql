-- The payout executor's open orders (issue 23): partial indexes on the two open states, so its
-- tick reads the payouts in flight, not every payout ever made (the planner's statistics of a
-- table nearly all 'confirmed' make payout_status look no better than a scan).
CREATE INDEX payout_submitted ON payout_orders (chain) WHERE status = 'submitted';
CREATE INDEX payout_broadcasted ON payout_orders (chain) WHERE status = 'broadcasted';

-- A payout create's limit and fee checks (issue 23): the merchant's payouts of today and
-- its unfinished ones through one index, not its whole payout history.
CREATE INDEX payout_merchant_status ON payout_orders (merchant_id, status, created_at);

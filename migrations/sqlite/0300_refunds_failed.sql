-- The back-office dashboard counts failed refunds (issue 36: a refund whose sending failed is an
-- open item, like a failed payout): a partial index over them, per merchant for a merchant user's
-- scoped count.
CREATE INDEX refunds_failed ON refunds (merchant_id) WHERE status = 'failed';

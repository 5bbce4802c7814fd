-- Two pairs of near-duplicate indexes the growth work added (issue 23), folded into one each:
-- every index is an entry written per insert and a b-tree kept warm.
--
-- payout_merchant_status (merchant_id, status, created_at) and payout_list_merchant
-- (merchant_id, status): the back office's merchant list needs the second (its entries end in
-- the rowid, so a seek is already in id order); the payout create's daily-limit check now
-- reads today's payouts through it too, as an id range (orderNos carry their creation time),
-- and its reserved-fees check needs only (merchant_id, status).
DROP INDEX IF EXISTS payout_merchant_status;

-- transfers_unmatched_open (seen_at) WHERE unmatched_reason IS NOT NULL AND resolution IS NULL
-- and transfers_open_unmatched (resolution, seen_at) WHERE unmatched_reason IS NOT NULL: the
-- alerts' and metrics' count of open unmatched deposits is the seek `resolution IS NULL` on
-- the second, the one the dashboard and the exceptions queue read.
DROP INDEX IF EXISTS transfers_unmatched_open;

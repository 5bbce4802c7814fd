-- The pay-in order page's collection leg (DESIGN 21): the address's legs in payout order, so
-- "the first leg once the order was paid" is read in index order, not sorted (0280 indexed
-- the address alone; it had already shipped).
DROP INDEX collection_legs_address;
CREATE INDEX collection_legs_address ON collection_legs (address_id, payout_order_id);

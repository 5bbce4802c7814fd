-- The back office's lists and search as seeks on PostgreSQL (DESIGN 11 "Growth", DESIGN 22;
-- src/backoffice/queries/keyset.ts, search.ts). SQLite's index entries end in the rowid, so
-- (merchant_id, status) already reads one merchant's orders of a status in id order; PostgreSQL's
-- entries do not, so a page would read and sort every match. Each list and search index gets `id`
-- as its last column: a page is a backward scan of at most a page per arm, whatever the table size.
DROP INDEX payin_list_status;
CREATE INDEX payin_list_status ON payin_orders (status, id);
DROP INDEX payin_list_merchant;
CREATE INDEX payin_list_merchant ON payin_orders (merchant_id, status, id);
DROP INDEX payin_search_address;
CREATE INDEX payin_search_address ON payin_orders (address_id, id);
DROP INDEX payin_search_from;
CREATE INDEX payin_search_from ON payin_orders (from_address, id) WHERE from_address IS NOT NULL;
DROP INDEX payout_status;
CREATE INDEX payout_status ON payout_orders (status, id);
DROP INDEX payout_list_merchant;
CREATE INDEX payout_list_merchant ON payout_orders (merchant_id, status, id);
DROP INDEX payout_search_to;
CREATE INDEX payout_search_to ON payout_orders (to_address, id);
DROP INDEX payout_search_from;
CREATE INDEX payout_search_from ON payout_orders (from_address, id);
DROP INDEX transfers_list_status;
CREATE INDEX transfers_list_status ON transfers (status, id);
DROP INDEX transfers_list_disposition;
CREATE INDEX transfers_list_disposition ON transfers (disposition, id);
DROP INDEX transfers_list_merchant;
CREATE INDEX transfers_list_merchant ON transfers (merchant_id, status, id) WHERE merchant_id IS NOT NULL;
DROP INDEX transfers_list_merchant_disposition;
CREATE INDEX transfers_list_merchant_disposition ON transfers (merchant_id, disposition, id) WHERE merchant_id IS NOT NULL;
DROP INDEX transfers_search_to;
CREATE INDEX transfers_search_to ON transfers (to_address, id);
DROP INDEX transfers_search_from;
CREATE INDEX transfers_search_from ON transfers (from_address, id);
-- The callbacks page: the outbox's key is text and PostgreSQL has no rowid, so the page is keyed by
-- (created_at, id) there (src/backoffice/queries/callbacks.pg.ts): every event, per state, per
-- merchant and state, each read backwards from a time.
CREATE INDEX callbacks_list_time ON callbacks (created_at, id);
DROP INDEX callbacks_list_state;
CREATE INDEX callbacks_list_state ON callbacks (state, created_at, id);
DROP INDEX callbacks_list_merchant;
CREATE INDEX callbacks_list_merchant ON callbacks (merchant_id, state, created_at, id);

-- Back office at 2M orders (issue 23, DESIGN 11 "Growth"): every list, filter,
-- search and page is an index seek in id order (keyset pages, no sort of the
-- matches), and the dashboard's chart reads a per-day summary.
--
-- Full indexes on payin_orders cost the create path one entry each; they are
-- kept to the two the list filters cannot do without (status; merchant, whose
-- status column lets a merchant-only list merge one seek per status) and the
-- one search by address needs. Columns empty at create are indexed partially,
-- so a create writes nothing for them.

-- Lists: status alone, and merchant (with or without status), each in id order.
CREATE INDEX payin_list_status ON payin_orders (status);
CREATE INDEX payin_list_merchant ON payin_orders (merchant_id, status);
CREATE INDEX payout_list_merchant ON payout_orders (merchant_id, status);

-- Search (exact): each searched column is its own seek.
CREATE INDEX payin_search_address ON payin_orders (address_id);
CREATE INDEX payin_search_tx ON payin_orders (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX payin_search_from ON payin_orders (from_address) WHERE from_address IS NOT NULL;
CREATE INDEX payout_search_tx ON payout_orders (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE INDEX payout_search_to ON payout_orders (to_address);
CREATE INDEX payout_search_from ON payout_orders (from_address);
CREATE INDEX transfers_search_to ON transfers (to_address);
CREATE INDEX transfers_search_from ON transfers (from_address);

-- Deposits: the merchant of the receiving address, copied onto the transfer
-- (an address never changes hands), so the merchant filter is a seek too.
ALTER TABLE transfers ADD COLUMN merchant_id INTEGER;
UPDATE transfers SET merchant_id = (SELECT a.merchant_id FROM addresses a WHERE a.id = transfers.address_id) WHERE address_id IS NOT NULL;
CREATE TRIGGER transfers_merchant_insert AFTER INSERT ON transfers
  WHEN NEW.merchant_id IS NULL AND NEW.address_id IS NOT NULL
BEGIN
  UPDATE transfers SET merchant_id = (SELECT a.merchant_id FROM addresses a WHERE a.id = NEW.address_id) WHERE id = NEW.id;
END;
CREATE TRIGGER transfers_merchant_update AFTER UPDATE OF address_id ON transfers
BEGIN
  UPDATE transfers SET merchant_id = (SELECT a.merchant_id FROM addresses a WHERE a.id = NEW.address_id) WHERE id = NEW.id;
END;
CREATE INDEX transfers_list_status ON transfers (status);
CREATE INDEX transfers_list_disposition ON transfers (disposition);
CREATE INDEX transfers_list_merchant ON transfers (merchant_id, status) WHERE merchant_id IS NOT NULL;
CREATE INDEX transfers_list_merchant_disposition ON transfers (merchant_id, disposition) WHERE merchant_id IS NOT NULL;
-- Open unmatched deposits (dashboard card, exceptions queue), newest first: the
-- resolved ones, which only grow, are not walked (resolution IS NULL is a seek).
CREATE INDEX transfers_open_unmatched ON transfers (resolution, seen_at) WHERE unmatched_reason IS NOT NULL;
-- Deposits seen more than a day after their block (a catch-up after an outage): the date
-- filter's id range (by the time seen) misses them, so they are sought here (none at all
-- in normal running: an insert only evaluates the condition).
CREATE INDEX transfers_late ON transfers (id) WHERE seen_at - block_time >= 86400000;
-- The order page: the transfers that paid an order.
CREATE INDEX transfers_order ON transfers (payin_order_id) WHERE payin_order_id IS NOT NULL;

-- Failed callbacks page, latest failure first (a callback is pending when written: no entry at
-- create); the operator's page reads callbacks_failed (updated_at) of migration 0150.
CREATE INDEX callbacks_failed_merchant ON callbacks (merchant_id, updated_at) WHERE state = 'failed';

-- Developer page: a merchant's test callbacks, newest first (no entry for order callbacks).
CREATE INDEX callbacks_test ON callbacks (merchant_id, created_at) WHERE kind = 'test';

-- Audit log filter by action, newest first (actor, target and time have theirs).
CREATE INDEX audit_action ON audit_log (action, at);

-- Exclusive wallets, newest first, all or one merchant's.
CREATE INDEX bindings_list ON bindings (created_at);
CREATE INDEX bindings_list_merchant ON bindings (merchant_id, created_at);

-- The dashboard's volume per UTC day: completed and risk_settled pay-ins at face
-- value in micro units (6 decimals), per merchant. Kept by a trigger in the
-- transaction that settles (or changes) the order, so it equals the sum over orders.
CREATE TABLE payin_daily (
  day INTEGER NOT NULL,
  merchant_id INTEGER NOT NULL,
  micro INTEGER NOT NULL,
  orders INTEGER NOT NULL,
  PRIMARY KEY (day, merchant_id)
) WITHOUT ROWID;

INSERT INTO payin_daily (day, merchant_id, micro, orders)
SELECT coalesce(completed_at, updated_at) / 86400000, merchant_id,
  sum(CASE WHEN decimals >= 6
    THEN CAST(coalesce(nullif(substr(coalesce(paid_amount, amount), 1, length(coalesce(paid_amount, amount)) - (decimals - 6)), ''), '0') AS INTEGER)
    ELSE CAST(coalesce(paid_amount, amount) AS INTEGER) * CAST(power(10, 6 - decimals) AS INTEGER) END),
  count(*)
FROM payin_orders WHERE status IN ('completed', 'risk_settled')
GROUP BY 1, 2;

-- No INSERT trigger: the gateway writes every order as waiting_payment, detected or
-- frozen_abnormal and settles it by an UPDATE; an AFTER INSERT trigger would cost every
-- create (~10 µs measured) for nothing. A bulk load of settled orders (bench generator,
-- tests) calls rebuildPayinDaily (src/backoffice/queries/dashboard.ts).

-- Any update of an order in (or entering, or leaving) the set takes its old
-- contribution out and puts the new one in: exact whatever column moved.
CREATE TRIGGER payin_daily_update AFTER UPDATE ON payin_orders
  WHEN OLD.status IN ('completed', 'risk_settled') OR NEW.status IN ('completed', 'risk_settled')
BEGIN
  UPDATE payin_daily SET
    micro = micro - CASE WHEN OLD.decimals >= 6
      THEN CAST(coalesce(nullif(substr(coalesce(OLD.paid_amount, OLD.amount), 1, length(coalesce(OLD.paid_amount, OLD.amount)) - (OLD.decimals - 6)), ''), '0') AS INTEGER)
      ELSE CAST(coalesce(OLD.paid_amount, OLD.amount) AS INTEGER) * CAST(power(10, 6 - OLD.decimals) AS INTEGER) END,
    orders = orders - 1
  WHERE OLD.status IN ('completed', 'risk_settled') AND day = coalesce(OLD.completed_at, OLD.updated_at) / 86400000 AND merchant_id = OLD.merchant_id;
  INSERT INTO payin_daily (day, merchant_id, micro, orders)
  SELECT coalesce(NEW.completed_at, NEW.updated_at) / 86400000, NEW.merchant_id,
    CASE WHEN NEW.decimals >= 6
      THEN CAST(coalesce(nullif(substr(coalesce(NEW.paid_amount, NEW.amount), 1, length(coalesce(NEW.paid_amount, NEW.amount)) - (NEW.decimals - 6)), ''), '0') AS INTEGER)
      ELSE CAST(coalesce(NEW.paid_amount, NEW.amount) AS INTEGER) * CAST(power(10, 6 - NEW.decimals) AS INTEGER) END,
    1
  WHERE NEW.status IN ('completed', 'risk_settled')
  ON CONFLICT (day, merchant_id) DO UPDATE SET micro = micro + excluded.micro, orders = orders + 1;
END;

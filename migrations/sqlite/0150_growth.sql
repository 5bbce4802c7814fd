-- Issue 23 (DESIGN 11 "Growth"): costs that stay flat as orders, callbacks and ledger grow.
--
-- Balances are kept as sums, in the same transaction as each movement, by triggers.
-- Amounts are TEXT base units that exceed 64 bits (18 decimals), so a sum is kept
-- exactly as two integers: balance = hi * 10^12 + lo with 0 <= lo < 10^12 (so (hi, lo)
-- also sorts by balance). src/payout/balances.ts reads them back as a bigint. Each
-- balance table has a view whose INSTEAD OF INSERT trigger adds one signed amount
-- (the arithmetic is written once per table).

-- 1. address_balances: one row per (address, token), the sum of its ledger entries
--    (the ledger is append-only: entries are only ever inserted).
CREATE TABLE address_balances (
  address_id TEXT NOT NULL REFERENCES addresses(id),
  token TEXT NOT NULL,
  chain TEXT NOT NULL,
  merchant_id INTEGER,
  hi INTEGER NOT NULL DEFAULT 0,
  lo INTEGER NOT NULL DEFAULT 0,
  entries INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (address_id, token)
) WITHOUT ROWID;
-- Reconcile walks a chain's balances in keyset slices; the balances pages go by merchant.
CREATE INDEX address_balances_chain ON address_balances (chain, address_id, token);
CREATE INDEX address_balances_merchant ON address_balances (merchant_id, chain, token);

CREATE VIEW address_balance_moves AS
  SELECT address_id, token, chain, '0' AS amount, updated_at AS at FROM address_balances WHERE 0;

CREATE TRIGGER address_balance_move INSTEAD OF INSERT ON address_balance_moves
BEGIN
  INSERT INTO address_balances (address_id, token, chain, merchant_id, hi, lo, entries, updated_at)
  VALUES (NEW.address_id, NEW.token, NEW.chain, (SELECT merchant_id FROM addresses WHERE id = NEW.address_id), 0, 0, 0, NEW.at)
  ON CONFLICT (address_id, token) DO NOTHING;
  UPDATE address_balances SET
    hi = hi + (CASE WHEN substr(NEW.amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(ltrim(NEW.amount, '-'), 1, max(length(ltrim(NEW.amount, '-')) - 12, 0)) AS INTEGER)
         + (lo + (CASE WHEN substr(NEW.amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(ltrim(NEW.amount, '-'), max(length(ltrim(NEW.amount, '-')) - 11, 1)) AS INTEGER)
            - ((lo + (CASE WHEN substr(NEW.amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(ltrim(NEW.amount, '-'), max(length(ltrim(NEW.amount, '-')) - 11, 1)) AS INTEGER)) % 1000000000000 + 1000000000000) % 1000000000000) / 1000000000000,
    lo = ((lo + (CASE WHEN substr(NEW.amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(ltrim(NEW.amount, '-'), max(length(ltrim(NEW.amount, '-')) - 11, 1)) AS INTEGER)) % 1000000000000 + 1000000000000) % 1000000000000,
    entries = entries + 1,
    updated_at = max(updated_at, NEW.at)
  WHERE address_id = NEW.address_id AND token = NEW.token;
END;

CREATE TRIGGER ledger_entries_balance AFTER INSERT ON ledger_entries
BEGIN
  INSERT INTO address_balance_moves (address_id, token, chain, amount, at) VALUES (NEW.address_id, NEW.token, NEW.chain, NEW.amount, NEW.created_at);
END;

-- Backfill from the ledger as it is (one pass over ledger_address).
INSERT INTO address_balances (address_id, token, chain, merchant_id, hi, lo, entries, updated_at)
SELECT address_id, token, chain, (SELECT a.merchant_id FROM addresses a WHERE a.id = g.address_id),
       sh + (sl - (sl % 1000000000000 + 1000000000000) % 1000000000000) / 1000000000000,
       (sl % 1000000000000 + 1000000000000) % 1000000000000,
       n, at
FROM (
  SELECT address_id, token, min(chain) AS chain,
         sum((CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(ltrim(amount, '-'), 1, max(length(ltrim(amount, '-')) - 12, 0)) AS INTEGER)) AS sh,
         sum((CASE WHEN substr(amount, 1, 1) = '-' THEN -1 ELSE 1 END) * CAST(substr(ltrim(amount, '-'), max(length(ltrim(amount, '-')) - 11, 1)) AS INTEGER)) AS sl,
         count(*) AS n, max(created_at) AS at
  FROM ledger_entries
  GROUP BY address_id, token
) g;

-- 2. sandbox_balances: the sandbox chain's token balances (it summed every transfer of the
--    address, unindexed, per balance read), kept as its transfers are mined (block_number
--    set), cut by a reorg (deleted) or moved to another block.
CREATE TABLE sandbox_balances (
  chain TEXT NOT NULL,
  address TEXT NOT NULL,
  token TEXT NOT NULL,
  hi INTEGER NOT NULL DEFAULT 0,
  lo INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, address, token)
) WITHOUT ROWID;

CREATE VIEW sandbox_balance_moves AS
  SELECT chain, address, token, '0' AS amount, 1 AS sign FROM sandbox_balances WHERE 0;

CREATE TRIGGER sandbox_balance_move INSTEAD OF INSERT ON sandbox_balance_moves
BEGIN
  INSERT INTO sandbox_balances (chain, address, token, hi, lo) VALUES (NEW.chain, NEW.address, NEW.token, 0, 0)
  ON CONFLICT (chain, address, token) DO NOTHING;
  UPDATE sandbox_balances SET
    hi = hi + NEW.sign * CAST(substr(NEW.amount, 1, max(length(NEW.amount) - 12, 0)) AS INTEGER)
         + (lo + NEW.sign * CAST(substr(NEW.amount, max(length(NEW.amount) - 11, 1)) AS INTEGER)
            - ((lo + NEW.sign * CAST(substr(NEW.amount, max(length(NEW.amount) - 11, 1)) AS INTEGER)) % 1000000000000 + 1000000000000) % 1000000000000) / 1000000000000,
    lo = ((lo + NEW.sign * CAST(substr(NEW.amount, max(length(NEW.amount) - 11, 1)) AS INTEGER)) % 1000000000000 + 1000000000000) % 1000000000000
  WHERE chain = NEW.chain AND address = NEW.address AND token = NEW.token;
END;

CREATE TRIGGER sandbox_transfers_mined AFTER INSERT ON sandbox_transfers WHEN NEW.block_number IS NOT NULL
BEGIN
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) VALUES (NEW.chain, NEW.to_address, NEW.token, NEW.amount, 1);
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) VALUES (NEW.chain, NEW.from_address, NEW.token, NEW.amount, -1);
END;

CREATE TRIGGER sandbox_transfers_unmined AFTER DELETE ON sandbox_transfers WHEN OLD.block_number IS NOT NULL
BEGIN
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) VALUES (OLD.chain, OLD.to_address, OLD.token, OLD.amount, -1);
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) VALUES (OLD.chain, OLD.from_address, OLD.token, OLD.amount, 1);
END;

CREATE TRIGGER sandbox_transfers_moved AFTER UPDATE OF block_number, amount, to_address, from_address, token ON sandbox_transfers
BEGIN
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) SELECT OLD.chain, OLD.to_address, OLD.token, OLD.amount, -1 WHERE OLD.block_number IS NOT NULL;
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) SELECT OLD.chain, OLD.from_address, OLD.token, OLD.amount, 1 WHERE OLD.block_number IS NOT NULL;
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) SELECT NEW.chain, NEW.to_address, NEW.token, NEW.amount, 1 WHERE NEW.block_number IS NOT NULL;
  INSERT INTO sandbox_balance_moves (chain, address, token, amount, sign) SELECT NEW.chain, NEW.from_address, NEW.token, NEW.amount, -1 WHERE NEW.block_number IS NOT NULL;
END;

INSERT INTO sandbox_balances (chain, address, token, hi, lo)
SELECT chain, address, token,
       sh + (sl - (sl % 1000000000000 + 1000000000000) % 1000000000000) / 1000000000000,
       (sl % 1000000000000 + 1000000000000) % 1000000000000
FROM (
  SELECT chain, address, token,
         sum(sign * CAST(substr(amount, 1, max(length(amount) - 12, 0)) AS INTEGER)) AS sh,
         sum(sign * CAST(substr(amount, max(length(amount) - 11, 1)) AS INTEGER)) AS sl
  FROM (SELECT chain, to_address AS address, token, amount, 1 AS sign FROM sandbox_transfers WHERE block_number IS NOT NULL
        UNION ALL
        SELECT chain, from_address, token, amount, -1 FROM sandbox_transfers WHERE block_number IS NOT NULL)
  GROUP BY chain, address, token
);

-- 3. Pay-in amount probes that read only open orders (not every past order of the amount).
--    Waiting orders are found through payin_open_amount (written at create already); these
--    partial indexes get their entries after create, so the create path pays nothing:
--    orders being confirmed (the create probe's other open states) ...
CREATE INDEX payin_settling_amount ON payin_orders (address_id, token, amount) WHERE mode = 'shared' AND status IN ('detected', 'confirming');
--    ... and expired unpaid orders by expiry (a late payment's candidates, within the late window).
CREATE INDEX payin_expired_unpaid ON payin_orders (address_id, token, amount, expire_at) WHERE mode = 'shared' AND status = 'expired' AND transfer_id IS NULL;

-- 4. The alerts job's windows (never "every failed callback ever") and callback retention.
--    All partial on a state a row reaches after create, so the create path pays nothing.
CREATE INDEX callbacks_failed ON callbacks (updated_at) WHERE state = 'failed';
CREATE INDEX callbacks_delivered ON callbacks (updated_at) WHERE state = 'delivered';
CREATE INDEX payout_failed ON payout_orders (failed_at) WHERE status = 'failed';
-- Reconcile's pending deposits per address (not the address's every transfer).
CREATE INDEX transfers_pending_address ON transfers (address_id, token) WHERE status = 'pending';
CREATE INDEX transfers_unmatched_open ON transfers (seen_at) WHERE unmatched_reason IS NOT NULL AND resolution IS NULL;

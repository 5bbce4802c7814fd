-- Issue 37: the watch set (wallet/addresses.ts AddressWatchSet) and TRON's reconcile read the
-- addresses added since their last look by a change sequence, never a rowid watermark: an id
-- taken by one writer may commit after a higher one taken by another, and a reader past the
-- higher one would never see it. watch_seq comes from one counter row, raised in the inserting
-- transaction (the trigger below), so a writer holding sequence N holds the counter until it
-- commits and every value up to the counter's is committed when a reader sees the counter.
CREATE TABLE address_watch_seq (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  value INTEGER NOT NULL
);
INSERT INTO address_watch_seq (id, value) SELECT 1, coalesce(max(rowid), 0) FROM addresses;
ALTER TABLE addresses ADD COLUMN watch_seq INTEGER;
UPDATE addresses SET watch_seq = rowid;
CREATE INDEX addresses_watch_seq ON addresses (chain, watch_seq);
CREATE TRIGGER addresses_watch_seq AFTER INSERT ON addresses
BEGIN
  UPDATE address_watch_seq SET value = value + 1 WHERE id = 1;
  UPDATE addresses SET watch_seq = (SELECT value FROM address_watch_seq WHERE id = 1) WHERE rowid = NEW.rowid;
END;

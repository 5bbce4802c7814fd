-- The callbacks' sequence (issue 38): the order in which an order's events were written, also
-- inside one millisecond (a deep first sighting: detected then completed in one transaction).
-- SQLite's worker orders by rowid and keeps doing so; `seq` mirrors the rowid (set by the trigger
-- in the inserting transaction) so a database moved to PostgreSQL (migrate-to-postgres) carries
-- the order, where the claim orders by it (migrations/pg/0431).
ALTER TABLE callbacks ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE callbacks SET seq = rowid;
CREATE TRIGGER callbacks_seq AFTER INSERT ON callbacks BEGIN
  UPDATE callbacks SET seq = NEW.rowid WHERE rowid = NEW.rowid;
END;

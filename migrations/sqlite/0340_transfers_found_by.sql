-- DESIGN 25, the sweep: a transfer the block scan missed and the sweep (a second detection path,
-- src/payin/sweep.ts) recorded carries found_by = 'sweep' (null: the scan saw it). The alert
-- scan_missed fires per chain while such transfers were seen within the last hour; the partial
-- index keeps that probe off the ordinary transfers.
ALTER TABLE transfers ADD COLUMN found_by TEXT;
CREATE INDEX transfers_found_by ON transfers (seen_at) WHERE found_by IS NOT NULL;

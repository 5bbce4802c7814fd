-- Issue 37: a callback claim names the process that holds it (lib/process-id.ts), so a gateway
-- starting releases only its own claims and those of a process known dead; any other claim comes
-- back when its lease expires. Claims made before this migration have no owner (released at start).
ALTER TABLE callbacks ADD COLUMN lease_owner TEXT;

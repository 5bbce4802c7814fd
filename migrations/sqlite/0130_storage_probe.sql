-- /readyz proves the database takes writes that reach the disk: one row,
-- rewritten and committed (fsynced, synchronous = FULL) on every probe.
CREATE TABLE storage_probe (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at INTEGER NOT NULL,
  probes INTEGER NOT NULL
);

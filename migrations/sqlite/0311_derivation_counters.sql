-- Issue 37: a chain's next HD index comes from its counter row, taken (read and raised) by one
-- statement inside the transaction that inserts the address, never from max(derivation_index)+1,
-- which two writers reading at once would both compute. A chain is its own derivation space
-- (chains/module.ts DerivationSpace). Seeded past every stored address; derivation_floors (a
-- restore's gap) still bounds it from below.
CREATE TABLE derivation_counters (
  chain TEXT PRIMARY KEY NOT NULL,
  next_index INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO derivation_counters (chain, next_index, updated_at)
SELECT chain, max(derivation_index) + 1, CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM addresses GROUP BY chain;

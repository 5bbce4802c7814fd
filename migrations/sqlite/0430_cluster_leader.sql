-- Cluster roles (DESIGN 22): one row, the leadership's epoch. The gateway that holds the leader's
-- advisory lock on PostgreSQL raises `epoch` when it takes over (src/cluster/leader.ts), and every
-- transaction that stores a signed transaction checks it (assertEpoch). A SQLite gateway is alone
-- on its file and always the leader: the table exists on both engines so the schemas stay one
-- (src/db/schema-pg.test.ts) and a migrated gateway keeps it; SQLite never writes it.
CREATE TABLE cluster_leader (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL,
  owner TEXT NOT NULL,
  since INTEGER NOT NULL,
  heartbeat INTEGER NOT NULL,
  backend_pid INTEGER
);

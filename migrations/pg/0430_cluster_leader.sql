-- Cluster roles (DESIGN 22): one row, the leadership's epoch. The gateway that holds the leader's
-- session advisory lock raises `epoch` when it takes over, in the same step (src/cluster/leader.ts),
-- and writes `heartbeat` (database time, ms) every few seconds on the lock's own connection;
-- `backend_pid` is that connection's server process, so a follower can end a hung leader's session
-- (the heartbeat-age rule). Every transaction that stores a signed transaction checks the epoch
-- (assertEpoch: FOR SHARE, so a takeover waits for it and it sees a takeover that committed).
CREATE TABLE cluster_leader (
  id bigint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  epoch bigint NOT NULL,
  owner text NOT NULL,
  since bigint NOT NULL,
  heartbeat bigint NOT NULL,
  backend_pid bigint
);

-- A paced sandbox chain's head follows the clock (migrations/sqlite/0580): head = height +
-- floor((now - paced_at) / block_time); NULL until the chain starts.
ALTER TABLE sandbox_chains ADD COLUMN paced_at bigint;

-- The sandbox chain models each chain's fees and resources (DESIGN 21: TRON's TRX, Stake 2.0
-- energy, delegation, bandwidth and activation), so `make run` rehearses what a real chain costs.
-- A transaction's own row (log_index 0) keeps what it cost (JSON: nativeBurned, energyDelegated,
-- energyBurned, bandwidth, decimal strings) and whether it failed on chain (its fee still burned).
ALTER TABLE sandbox_transfers ADD COLUMN cost TEXT;
ALTER TABLE sandbox_transfers ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
-- What a chain's rules keep per account beyond balances (TRON: stake, delegations, energy
-- usage, free bandwidth, activation), as JSON the chain's module reads.
CREATE TABLE sandbox_accounts (
  chain TEXT NOT NULL,
  address TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (chain, address)
) WITHOUT ROWID;
-- Balance changes that are no transfer (fees burned, coins staked or unstaked), by block, so a
-- sandbox reorg gives them back with the transfers it drops.
CREATE TABLE sandbox_adjustments (
  chain TEXT NOT NULL,
  block_number INTEGER NOT NULL,
  address TEXT NOT NULL,
  token TEXT NOT NULL,
  delta TEXT NOT NULL
);
CREATE INDEX sandbox_adjustments_block ON sandbox_adjustments (chain, block_number);
-- The pay-in order page's network cost (DESIGN 21): the collection leg that swept an order's
-- address is found by the address (one seek, not the legs of every run).
CREATE INDEX collection_legs_address ON collection_legs (address_id);

-- EVM gas top-ups replaced after chains.<C>.replace_after, as payouts are (0260): every
-- replacement of a top-up's transaction (same nonce from the gas wallet, raised fees), signed
-- and stored here before it is broadcast; the first transaction stays on gas_topups until one
-- of them lands, and whichever lands becomes the top-up's tx_hash. stuck_at: the newest
-- transaction is at gas_price_cap and no replacement a node would take fits under it (alert
-- payout_stuck: the payout waits for this top-up). sent_at: when the first transaction was
-- broadcast (replace_after runs from it; rows from before this migration: created_at).
CREATE TABLE gas_topup_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gas_topup_id INTEGER NOT NULL REFERENCES gas_topups(id),
  chain TEXT NOT NULL,
  tx_hash TEXT NOT NULL,
  signed_tx TEXT NOT NULL,
  signed_meta TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX gas_topup_attempts_tx ON gas_topup_attempts (chain, tx_hash);
CREATE INDEX gas_topup_attempts_topup ON gas_topup_attempts (gas_topup_id);
ALTER TABLE gas_topups ADD COLUMN stuck_at INTEGER;
ALTER TABLE gas_topups ADD COLUMN sent_at INTEGER;
CREATE INDEX gas_topups_stuck ON gas_topups (payout_order_id) WHERE stuck_at IS NOT NULL;

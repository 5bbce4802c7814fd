-- EVM payouts replaced after chains.<C>.replace_after (issue 25): every replacement of a
-- payout's transaction (same nonce, raised fees), signed and stored here before it is
-- broadcast; the first transaction stays on payout_orders until one of them confirms, and
-- whichever confirms becomes the order's tx_hash. stuck_at: the newest transaction is at
-- gas_price_cap and no replacement a node would take fits under it (alert payout_stuck).
CREATE TABLE payout_tx_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  payout_order_id INTEGER NOT NULL REFERENCES payout_orders(id),
  chain TEXT NOT NULL,
  tx_hash TEXT NOT NULL,
  signed_tx TEXT NOT NULL,
  signed_meta TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX payout_tx_attempts_tx ON payout_tx_attempts (chain, tx_hash);
CREATE INDEX payout_tx_attempts_order ON payout_tx_attempts (payout_order_id);
ALTER TABLE payout_orders ADD COLUMN stuck_at INTEGER;

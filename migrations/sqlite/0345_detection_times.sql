-- Measured detection (DESIGN 25): per credited transfer (one that paid an order), its block
-- time, when the gateway first saw it (by the scan, the sweep or the payer's hash), when its
-- order completed and when the completed callback got its 2xx. The dashboard's p50/p95 per
-- chain over 24 h and the detection_slow alert (1-hour p95 of block -> seen) read it; the
-- histograms stablegate_detection_seconds / stablegate_completion_seconds observe the same
-- facts as they happen.
CREATE TABLE detection_times (
  transfer_id INTEGER PRIMARY KEY REFERENCES transfers(id),
  chain TEXT NOT NULL,
  order_no TEXT NOT NULL,
  block_time INTEGER NOT NULL,
  seen_at INTEGER NOT NULL,
  completed_at INTEGER,
  callback_at INTEGER
);
CREATE INDEX detection_times_seen ON detection_times (seen_at);
CREATE INDEX detection_times_order ON detection_times (order_no);

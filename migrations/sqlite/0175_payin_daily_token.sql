-- The dashboard's volume per token (issue 30: a sum of USDT and USDC has no unit): the
-- completed and risk_settled pay-ins of each UTC day per merchant and token, at face value in
-- micro units (6 decimals), kept by a trigger in the transaction that settles (or changes) the
-- order, as payin_daily is (migration 0160), which keeps the day's total.
CREATE TABLE payin_daily_token (
  day INTEGER NOT NULL,
  merchant_id INTEGER NOT NULL,
  token TEXT NOT NULL,
  micro INTEGER NOT NULL,
  orders INTEGER NOT NULL,
  PRIMARY KEY (day, merchant_id, token)
) WITHOUT ROWID;

INSERT INTO payin_daily_token (day, merchant_id, token, micro, orders)
SELECT coalesce(completed_at, updated_at) / 86400000, merchant_id, token,
  sum(CASE WHEN decimals >= 6
    THEN CAST(coalesce(nullif(substr(coalesce(paid_amount, amount), 1, length(coalesce(paid_amount, amount)) - (decimals - 6)), ''), '0') AS INTEGER)
    ELSE CAST(coalesce(paid_amount, amount) AS INTEGER) * CAST(power(10, 6 - decimals) AS INTEGER) END),
  count(*)
FROM payin_orders WHERE status IN ('completed', 'risk_settled')
GROUP BY 1, 2, 3;

CREATE TRIGGER payin_daily_token_update AFTER UPDATE ON payin_orders
  WHEN OLD.status IN ('completed', 'risk_settled') OR NEW.status IN ('completed', 'risk_settled')
BEGIN
  UPDATE payin_daily_token SET
    micro = micro - CASE WHEN OLD.decimals >= 6
      THEN CAST(coalesce(nullif(substr(coalesce(OLD.paid_amount, OLD.amount), 1, length(coalesce(OLD.paid_amount, OLD.amount)) - (OLD.decimals - 6)), ''), '0') AS INTEGER)
      ELSE CAST(coalesce(OLD.paid_amount, OLD.amount) AS INTEGER) * CAST(power(10, 6 - OLD.decimals) AS INTEGER) END,
    orders = orders - 1
  WHERE OLD.status IN ('completed', 'risk_settled') AND day = coalesce(OLD.completed_at, OLD.updated_at) / 86400000 AND merchant_id = OLD.merchant_id AND token = OLD.token;
  INSERT INTO payin_daily_token (day, merchant_id, token, micro, orders)
  SELECT coalesce(NEW.completed_at, NEW.updated_at) / 86400000, NEW.merchant_id, NEW.token,
    CASE WHEN NEW.decimals >= 6
      THEN CAST(coalesce(nullif(substr(coalesce(NEW.paid_amount, NEW.amount), 1, length(coalesce(NEW.paid_amount, NEW.amount)) - (NEW.decimals - 6)), ''), '0') AS INTEGER)
      ELSE CAST(coalesce(NEW.paid_amount, NEW.amount) AS INTEGER) * CAST(power(10, 6 - NEW.decimals) AS INTEGER) END,
    1
  WHERE NEW.status IN ('completed', 'risk_settled')
  ON CONFLICT (day, merchant_id, token) DO UPDATE SET micro = micro + excluded.micro, orders = orders + 1;
END;

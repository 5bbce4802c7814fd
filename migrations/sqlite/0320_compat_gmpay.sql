-- Shop plugins, second pass (DESIGN 24): GMPay's epusdt fork answers and calls back in its own
-- shape. dialect: null for plain epusdt / EPay, 'gmpay' for an order created through
-- /payments/gmpay/v1/order/create-transaction; shop_pid: the `pid` that plugin sent (signed,
-- echoed in its callback; the merchant is the one in the path).
ALTER TABLE compat_orders ADD COLUMN dialect TEXT;
ALTER TABLE compat_orders ADD COLUMN shop_pid TEXT;

-- Compatibility endpoints for shop plugins (DESIGN 19): a merchant's epusdt token and EPay key
-- (encrypted with the master key, as API keys are), and the shop's side of each compatibility
-- order (an ordinary pay-in underneath: payin_orders.compat names the protocol).
ALTER TABLE `merchants` ADD `epusdt_token_enc` text;
ALTER TABLE `merchants` ADD `epay_key_enc` text;
ALTER TABLE `payin_orders` ADD `compat` text;
CREATE TABLE `compat_orders` (
	`payin_order_id` integer PRIMARY KEY NOT NULL REFERENCES `payin_orders`(`id`),
	`protocol` text NOT NULL,
	`price_amount` text NOT NULL,
	`price_currency` text NOT NULL,
	`rate` text NOT NULL,
	`notify_url` text NOT NULL,
	`return_url` text,
	`pay_type` text,
	`name` text,
	`param` text,
	`created_at` integer NOT NULL
);

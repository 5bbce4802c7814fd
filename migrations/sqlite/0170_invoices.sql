-- Invoices (DESIGN 18): a price in a currency; the payer picks the network on the hosted page,
-- which then creates the pay-in order (payin_orders.invoice_id, with the rate locked for it).
CREATE TABLE `invoices` (
	`id` integer PRIMARY KEY NOT NULL,
	`invoice_no` text NOT NULL,
	`merchant_id` integer NOT NULL REFERENCES `merchants`(`id`),
	`merchant_order_no` text NOT NULL,
	`price_amount` text NOT NULL,
	`price_currency` text NOT NULL,
	`description` text,
	`notify_url` text,
	`redirect_url` text,
	`payments` text NOT NULL,
	`expire_minutes` integer NOT NULL,
	`api_key_id` text NOT NULL,
	`page_token` text NOT NULL,
	`invoice_url` text NOT NULL,
	`status` text NOT NULL,
	`payin_order_id` integer,
	`source` text DEFAULT 'api' NOT NULL,
	`expire_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`paid_at` integer,
	`updated_at` integer NOT NULL
);
CREATE UNIQUE INDEX `invoices_invoice_no` ON `invoices` (`invoice_no`);
CREATE UNIQUE INDEX `invoices_merchant_order` ON `invoices` (`merchant_id`,`merchant_order_no`);
CREATE UNIQUE INDEX `invoices_page_token` ON `invoices` (`page_token`);
CREATE INDEX `invoices_status` ON `invoices` (`status`,`expire_at`);
CREATE INDEX `invoices_merchant_created` ON `invoices` (`merchant_id`,`created_at`);
ALTER TABLE `payin_orders` ADD `invoice_id` integer;
ALTER TABLE `payin_orders` ADD `invoice_rate` text;
CREATE INDEX `payin_invoice` ON `payin_orders` (`invoice_id`) WHERE invoice_id IS NOT NULL;
-- Exchange rates fetched by the rates job ([rates] source = "coingecko"): units of `currency` per 1 `token`.
CREATE TABLE `fx_rates` (
	`currency` text NOT NULL,
	`token` text NOT NULL,
	`rate` text NOT NULL,
	`source` text NOT NULL,
	`observed_at` integer NOT NULL,
	`fetched_at` integer NOT NULL,
	PRIMARY KEY(`currency`, `token`)
);

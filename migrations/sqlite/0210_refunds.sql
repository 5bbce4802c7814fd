-- Refunds (DESIGN 20): money of a paid pay-in order (or of an unmatched deposit) sent back to the
-- payer. A refund is sent as a payout order (payout_orders.refund_id), so it has every payout
-- guarantee; its status follows that payout. Without a toAddress it waits for the payer's
-- address on its hosted page (page_token).
CREATE TABLE `refunds` (
	`id` integer PRIMARY KEY NOT NULL,
	`refund_ref` text NOT NULL,
	`refund_no` text NOT NULL,
	`merchant_id` integer NOT NULL REFERENCES `merchants`(`id`),
	`payin_order_id` integer,
	`order_no` text,
	`transfer_id` integer,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`decimals` integer NOT NULL,
	`amount` text NOT NULL,
	`to_address` text,
	`address_by` text,
	`status` text NOT NULL,
	`page_token` text,
	`refund_url` text,
	`notify_url` text,
	`api_key_id` text,
	`payout_order_id` integer,
	`payout_order_no` text,
	`tx_hash` text,
	`source` text DEFAULT 'api' NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
CREATE UNIQUE INDEX `refunds_ref` ON `refunds` (`refund_ref`);
CREATE UNIQUE INDEX `refunds_order_no` ON `refunds` (`payin_order_id`,`refund_no`) WHERE payin_order_id IS NOT NULL;
CREATE UNIQUE INDEX `refunds_deposit_no` ON `refunds` (`transfer_id`,`refund_no`) WHERE transfer_id IS NOT NULL;
CREATE UNIQUE INDEX `refunds_page_token` ON `refunds` (`page_token`) WHERE page_token IS NOT NULL;
CREATE UNIQUE INDEX `refunds_payout` ON `refunds` (`payout_order_id`) WHERE payout_order_id IS NOT NULL;
CREATE INDEX `refunds_merchant_created` ON `refunds` (`merchant_id`,`created_at`);
ALTER TABLE `payout_orders` ADD `refund_id` integer;

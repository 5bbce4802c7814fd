DROP INDEX `payin_open_amount`;--> statement-breakpoint
CREATE INDEX `payin_open_amount_probe` ON `payin_orders` (`address_id`,`token`,`amount`) WHERE mode = 'shared' AND status IN ('waiting_payment','detected','confirming');--> statement-breakpoint
CREATE UNIQUE INDEX `payin_open_amount` ON `payin_orders` (`address_id`,`token`,`amount`) WHERE mode = 'shared' AND status = 'waiting_payment';
-- DESIGN 21. What every transaction the gateway sent cost (native coin burned, energy delegated
-- or burned, bandwidth), one row per transaction once it is final; the back office's Fees page
-- sums it per chain and day, and stablegate_fees_native_total counts it.
CREATE TABLE `transfer_costs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`tx_hash` text NOT NULL,
	`kind` text NOT NULL,
	`payout_order_id` integer REFERENCES `payout_orders`(`id`),
	`native_burned` text NOT NULL,
	`energy_delegated` text DEFAULT '0' NOT NULL,
	`energy_burned` text DEFAULT '0' NOT NULL,
	`bandwidth` text DEFAULT '0' NOT NULL,
	`day` text NOT NULL,
	`created_at` integer NOT NULL
);
CREATE UNIQUE INDEX `transfer_costs_tx` ON `transfer_costs` (`chain`,`tx_hash`);
CREATE INDEX `transfer_costs_payout` ON `transfer_costs` (`payout_order_id`);
CREATE INDEX `transfer_costs_day` ON `transfer_costs` (`day`,`chain`);
-- TRON energy (DESIGN 21): a delegation from the energy wallet to a payout's source, signed
-- and stored before it is sent; its reclaim likewise, once the payout is final.
CREATE TABLE `energy_delegations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`payout_order_id` integer NOT NULL REFERENCES `payout_orders`(`id`),
	`owner` text NOT NULL,
	`receiver` text NOT NULL,
	`amount` text NOT NULL,
	`energy` text NOT NULL,
	`delegate_tx_hash` text NOT NULL,
	`delegate_signed_tx` text NOT NULL,
	`delegate_meta` text NOT NULL,
	`reclaim_tx_hash` text,
	`reclaim_signed_tx` text,
	`reclaim_meta` text,
	`status` text NOT NULL,
	`energy_used` text,
	`sun_saved` text,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
CREATE INDEX `energy_delegations_payout` ON `energy_delegations` (`payout_order_id`);
CREATE INDEX `energy_delegations_status` ON `energy_delegations` (`chain`,`status`);
-- Stake and unstake of the energy wallet (energy stake|unstake), signed and stored before sending.
CREATE TABLE `staking_txs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`op` text NOT NULL,
	`address` text NOT NULL,
	`amount` text NOT NULL,
	`tx_hash` text NOT NULL,
	`signed_tx` text NOT NULL,
	`status` text NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
CREATE INDEX `staking_txs_status` ON `staking_txs` (`chain`,`status`);

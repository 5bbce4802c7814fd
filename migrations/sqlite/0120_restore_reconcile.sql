-- Restore reconcile (DESIGN 16): the backup's scan cursor per chain, the payout sources
-- checked against their chain, the outgoing transfers the restored database did not know,
-- and the derivation index floor a restore raises by restore.index_gap (the indexes it skips
-- stay watched as addresses of kind restore_gap).
CREATE TABLE `reconcile_chains` (
	`chain` text PRIMARY KEY NOT NULL,
	`since_block` integer,
	`gap_from` integer NOT NULL,
	`gap_to` integer NOT NULL,
	`gap_watched_at` integer,
	`generation` text NOT NULL,
	`started_at` integer NOT NULL
);
CREATE TABLE `reconcile_addresses` (
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`generation` text NOT NULL,
	`state` text NOT NULL,
	`checked_at` integer NOT NULL,
	`acknowledged_by` text,
	`acknowledged_at` integer,
	PRIMARY KEY(`chain`, `address`)
);
CREATE TABLE `unrecorded_outgoing` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`tx_hash` text,
	`nonce` integer,
	`block_number` integer,
	`to_address` text,
	`asset` text,
	`amount` text,
	`generation` text NOT NULL,
	`found_at` integer NOT NULL,
	`acknowledged_by` text,
	`acknowledged_at` integer
);
CREATE INDEX `unrecorded_outgoing_address` ON `unrecorded_outgoing` (`chain`,`address`,`acknowledged_at`);
CREATE TABLE `derivation_floors` (
	`chain` text PRIMARY KEY NOT NULL,
	`next_index` integer NOT NULL,
	`updated_at` integer NOT NULL
);

CREATE TABLE `addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` integer,
	`chain` text NOT NULL,
	`kind` text NOT NULL,
	`derivation_index` integer NOT NULL,
	`address` text NOT NULL,
	`bind_key` text,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `addresses_chain_index` ON `addresses` (`chain`,`derivation_index`);--> statement-breakpoint
CREATE UNIQUE INDEX `addresses_chain_address` ON `addresses` (`chain`,`address`);--> statement-breakpoint
CREATE UNIQUE INDEX `addresses_exclusive_key` ON `addresses` (`merchant_id`,`chain`,`bind_key`) WHERE kind = 'exclusive' AND deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `addresses_merchant` ON `addresses` (`merchant_id`,`chain`,`kind`,`derivation_index`);--> statement-breakpoint
CREATE TABLE `alert_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`alert_id` text NOT NULL,
	`event` text NOT NULL,
	`channel` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `alert_notifications_due` ON `alert_notifications` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`condition` text NOT NULL,
	`subject` text NOT NULL,
	`message` text NOT NULL,
	`status` text NOT NULL,
	`fired_at` integer NOT NULL,
	`resolved_at` integer,
	`last_message` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alerts_key` ON `alerts` (`key`,`status`);--> statement-breakpoint
CREATE INDEX `alerts_fired` ON `alerts` (`fired_at`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` integer NOT NULL,
	`lookup_hash` text NOT NULL,
	`secret_enc` text NOT NULL,
	`hint` text NOT NULL,
	`valid_from` integer NOT NULL,
	`valid_until` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_lookup_hash_unique` ON `api_keys` (`lookup_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_merchant` ON `api_keys` (`merchant_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`actor` text NOT NULL,
	`role` text NOT NULL,
	`ip` text,
	`action` text NOT NULL,
	`target` text NOT NULL,
	`before` text,
	`after` text
);
--> statement-breakpoint
CREATE INDEX `audit_at` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_target` ON `audit_log` (`target`,`at`);--> statement-breakpoint
CREATE INDEX `audit_actor` ON `audit_log` (`actor`,`at`);--> statement-breakpoint
CREATE TABLE `backoffice_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` integer NOT NULL,
	`stage` text NOT NULL,
	`csrf_token` text NOT NULL,
	`ip` text,
	`user_agent` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`reauth_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `backoffice_users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `backoffice_sessions_token_hash_unique` ON `backoffice_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `backoffice_sessions_user` ON `backoffice_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `backoffice_users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`role` text NOT NULL,
	`merchant_id` integer,
	`password_hash` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`totp_secret_enc` text,
	`totp_enabled_at` integer,
	`totp_last_step` integer,
	`recovery_codes` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `backoffice_users_username_unique` ON `backoffice_users` (`username`);--> statement-breakpoint
CREATE TABLE `balance_checks` (
	`address_id` text NOT NULL,
	`token` text NOT NULL,
	`chain` text NOT NULL,
	`ledger_balance` text NOT NULL,
	`chain_balance` text NOT NULL,
	`difference` text NOT NULL,
	`status` text NOT NULL,
	`mismatch_since` integer,
	`checked_at` integer NOT NULL,
	PRIMARY KEY(`address_id`, `token`),
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `balance_checks_status` ON `balance_checks` (`status`);--> statement-breakpoint
CREATE TABLE `bindings` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` integer NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`bind_key` text NOT NULL,
	`label` text,
	`notify_url` text,
	`address_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`page_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bindings_page_token_unique` ON `bindings` (`page_token`);--> statement-breakpoint
CREATE UNIQUE INDEX `bindings_key` ON `bindings` (`merchant_id`,`chain`,`token`,`bind_key`);--> statement-breakpoint
CREATE TABLE `cache_versions` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `callback_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`callback_id` text NOT NULL,
	`attempt_no` integer NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer,
	`http_status` integer,
	`response_body` text,
	`error` text,
	FOREIGN KEY (`callback_id`) REFERENCES `callbacks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `attempts_callback` ON `callback_attempts` (`callback_id`);--> statement-breakpoint
CREATE TABLE `callbacks` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` integer NOT NULL,
	`kind` text NOT NULL,
	`order_no` text NOT NULL,
	`order_status` text NOT NULL,
	`api_key_id` text NOT NULL,
	`url` text,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `callbacks_order` ON `callbacks` (`order_no`);--> statement-breakpoint
CREATE INDEX `callbacks_due` ON `callbacks` (`state`,`merchant_id`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `chain_cursors` (
	`chain` text PRIMARY KEY NOT NULL,
	`block_number` integer NOT NULL,
	`block_hash` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `collection_legs` (
	`run_id` text NOT NULL,
	`leg_no` integer NOT NULL,
	`address_id` text NOT NULL,
	`from_address` text NOT NULL,
	`amount` text NOT NULL,
	`state` text NOT NULL,
	`error_code` integer,
	`error_message` text,
	`payout_order_id` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`run_id`, `leg_no`),
	FOREIGN KEY (`run_id`) REFERENCES `collection_runs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`payout_order_id`) REFERENCES `payout_orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `collection_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` integer NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`destination` text NOT NULL,
	`minimum` text NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`leg_count` integer NOT NULL,
	`total` text NOT NULL,
	`gas` text NOT NULL,
	`created_by` text NOT NULL,
	`confirmed_by` text,
	`created_at` integer NOT NULL,
	`confirmed_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `collection_runs_merchant` ON `collection_runs` (`merchant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `collection_runs_status` ON `collection_runs` (`status`);--> statement-breakpoint
CREATE TABLE `collection_settings` (
	`merchant_id` integer NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`destination` text NOT NULL,
	`minimum` text NOT NULL,
	`schedule` text,
	`last_scheduled_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`merchant_id`, `chain`, `token`),
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `deny_list` (
	`chain` text NOT NULL,
	`address` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`chain`, `address`)
);
--> statement-breakpoint
CREATE TABLE `fee_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`merchant_id` integer NOT NULL,
	`kind` text NOT NULL,
	`amount` text NOT NULL,
	`balance_after` text NOT NULL,
	`ref_type` text NOT NULL,
	`ref_id` text NOT NULL,
	`note` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fee_entries_ref` ON `fee_entries` (`kind`,`ref_type`,`ref_id`);--> statement-breakpoint
CREATE INDEX `fee_entries_merchant` ON `fee_entries` (`merchant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `gas_topups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`payout_order_id` integer NOT NULL,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`amount` text NOT NULL,
	`tx_hash` text NOT NULL,
	`signed_tx` text NOT NULL,
	`signed_meta` text NOT NULL,
	`status` text NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`payout_order_id`) REFERENCES `payout_orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `gas_topups_payout` ON `gas_topups` (`payout_order_id`);--> statement-breakpoint
CREATE INDEX `gas_topups_status` ON `gas_topups` (`chain`,`from_address`,`status`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`address_id` text NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`kind` text NOT NULL,
	`amount` text NOT NULL,
	`ref_type` text NOT NULL,
	`ref_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_ref` ON `ledger_entries` (`kind`,`ref_type`,`ref_id`);--> statement-breakpoint
CREATE INDEX `ledger_address` ON `ledger_entries` (`address_id`,`token`);--> statement-breakpoint
CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`ip` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_user` ON `login_failures` (`username`,`at`);--> statement-breakpoint
CREATE INDEX `login_failures_ip` ON `login_failures` (`ip`,`at`);--> statement-breakpoint
CREATE TABLE `merchants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uid` text NOT NULL,
	`name` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`default_callback_url` text,
	`ip_allowlist` text,
	`payouts_enabled` integer DEFAULT true NOT NULL,
	`payout_limit_per_tx` text,
	`payout_limit_daily` text,
	`payout_fee_fixed` text DEFAULT '0' NOT NULL,
	`payout_fee_rate` text DEFAULT '0' NOT NULL,
	`fee_balance` text DEFAULT '0' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_uid_unique` ON `merchants` (`uid`);--> statement-breakpoint
CREATE TABLE `nonces` (
	`merchant_id` integer NOT NULL,
	`nonce` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`merchant_id`, `nonce`)
);
--> statement-breakpoint
CREATE TABLE `order_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`order_no` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`event` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `order_events_order` ON `order_events` (`order_no`,`id`);--> statement-breakpoint
CREATE TABLE `payin_orders` (
	`id` integer PRIMARY KEY NOT NULL,
	`order_no` text NOT NULL,
	`merchant_id` integer NOT NULL,
	`merchant_order_no` text NOT NULL,
	`mode` text NOT NULL,
	`binding_id` text,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`decimals` integer NOT NULL,
	`amount` text NOT NULL,
	`paid_amount` text,
	`address_id` text NOT NULL,
	`address` text NOT NULL,
	`notify_url` text,
	`redirect_url` text,
	`api_key_id` text NOT NULL,
	`status` text NOT NULL,
	`transfer_id` integer,
	`tx_hash` text,
	`from_address` text,
	`confirmations` integer DEFAULT 0 NOT NULL,
	`checkout_token` text NOT NULL,
	`expire_at` integer,
	`created_at` integer NOT NULL,
	`detected_at` integer,
	`confirmed_at` integer,
	`completed_at` integer,
	`expired_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`binding_id`) REFERENCES `bindings`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payin_orders_order_no_unique` ON `payin_orders` (`order_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `payin_orders_checkout_token_unique` ON `payin_orders` (`checkout_token`);--> statement-breakpoint
CREATE UNIQUE INDEX `payin_merchant_order` ON `payin_orders` (`merchant_id`,`merchant_order_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `payin_open_amount` ON `payin_orders` (`address_id`,`token`,`amount`) WHERE mode = 'shared' AND status = 'waiting_payment';--> statement-breakpoint
CREATE INDEX `payin_status` ON `payin_orders` (`status`,`expire_at`);--> statement-breakpoint
CREATE INDEX `payin_address_amount` ON `payin_orders` (`address_id`,`token`,`amount`);--> statement-breakpoint
CREATE INDEX `payin_binding` ON `payin_orders` (`binding_id`,`created_at`) WHERE binding_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `payout_batch_rows` (
	`batch_id` text NOT NULL,
	`row_no` integer NOT NULL,
	`input` text NOT NULL,
	`merchant_order_no` text,
	`state` text NOT NULL,
	`error_code` integer,
	`error_message` text,
	`payout_order_id` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`batch_id`, `row_no`),
	FOREIGN KEY (`batch_id`) REFERENCES `payout_batches`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`payout_order_id`) REFERENCES `payout_orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payout_batch_rows_state` ON `payout_batch_rows` (`batch_id`,`state`);--> statement-breakpoint
CREATE TABLE `payout_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_id` integer NOT NULL,
	`file_name` text NOT NULL,
	`file_sha256` text NOT NULL,
	`status` text NOT NULL,
	`row_count` integer NOT NULL,
	`valid_count` integer NOT NULL,
	`error_count` integer NOT NULL,
	`summary` text NOT NULL,
	`created_by` text NOT NULL,
	`confirmed_by` text,
	`created_at` integer NOT NULL,
	`confirmed_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payout_batches_merchant` ON `payout_batches` (`merchant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `payout_batches_status` ON `payout_batches` (`status`);--> statement-breakpoint
CREATE TABLE `payout_orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_no` text NOT NULL,
	`merchant_id` integer NOT NULL,
	`merchant_order_no` text NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`decimals` integer NOT NULL,
	`from_address_id` text NOT NULL,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`amount` text NOT NULL,
	`fee` text DEFAULT '0' NOT NULL,
	`delete_source` integer NOT NULL,
	`notify_url` text,
	`api_key_id` text NOT NULL,
	`status` text NOT NULL,
	`failed_stage` text,
	`last_error` text,
	`remark` text,
	`tx_hash` text,
	`signed_tx` text,
	`signed_meta` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`retry_at` integer,
	`created_at` integer NOT NULL,
	`submitted_at` integer,
	`broadcasted_at` integer,
	`confirmed_at` integer,
	`failed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`merchant_id`) REFERENCES `merchants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`from_address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payout_orders_order_no_unique` ON `payout_orders` (`order_no`);--> statement-breakpoint
CREATE UNIQUE INDEX `payout_merchant_order` ON `payout_orders` (`merchant_id`,`merchant_order_no`);--> statement-breakpoint
CREATE INDEX `payout_status` ON `payout_orders` (`status`);--> statement-breakpoint
CREATE INDEX `payout_source` ON `payout_orders` (`from_address_id`,`status`);--> statement-breakpoint
CREATE TABLE `sandbox_blocks` (
	`chain` text NOT NULL,
	`number` integer NOT NULL,
	`time` integer NOT NULL,
	PRIMARY KEY(`chain`, `number`)
);
--> statement-breakpoint
CREATE TABLE `sandbox_chains` (
	`chain` text PRIMARY KEY NOT NULL,
	`height` integer NOT NULL,
	`reorg_cuts` text DEFAULT '[]' NOT NULL,
	`fail_next_broadcasts` integer DEFAULT 0 NOT NULL,
	`genesis_time` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_transfers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`tx_hash` text NOT NULL,
	`log_index` integer DEFAULT 0 NOT NULL,
	`block_number` integer,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`amount` text NOT NULL,
	`raw` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sandbox_tx` ON `sandbox_transfers` (`chain`,`tx_hash`,`log_index`);--> statement-breakpoint
CREATE INDEX `sandbox_block` ON `sandbox_transfers` (`chain`,`block_number`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sol_token_accounts` (
	`address_id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`status` text NOT NULL,
	`tx_hash` text,
	`signed_tx` text,
	`signed_meta` text,
	`rent_lamports` text DEFAULT '0' NOT NULL,
	`fee_lamports` text DEFAULT '0' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sol_token_accounts_status` ON `sol_token_accounts` (`status`);--> statement-breakpoint
CREATE TABLE `transfers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chain` text NOT NULL,
	`token` text NOT NULL,
	`tx_hash` text NOT NULL,
	`log_index` integer NOT NULL,
	`block_number` integer NOT NULL,
	`block_hash` text NOT NULL,
	`block_time` integer NOT NULL,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`address_id` text,
	`amount` text NOT NULL,
	`status` text NOT NULL,
	`confirmations` integer DEFAULT 0 NOT NULL,
	`payin_order_id` integer,
	`disposition` text NOT NULL,
	`unmatched_reason` text,
	`resolution` text,
	`resolution_ref` text,
	`resolution_note` text,
	`resolved_at` integer,
	`seen_at` integer NOT NULL,
	`confirmed_at` integer,
	FOREIGN KEY (`address_id`) REFERENCES `addresses`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transfers_unique` ON `transfers` (`chain`,`tx_hash`,`log_index`);--> statement-breakpoint
CREATE INDEX `transfers_unmatched` ON `transfers` (`seen_at`) WHERE unmatched_reason IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transfers_pending` ON `transfers` (`chain`,`status`,`block_number`);--> statement-breakpoint
CREATE INDEX `transfers_address` ON `transfers` (`address_id`,`token`);
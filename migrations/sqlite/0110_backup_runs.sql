-- Scheduled backups the gateway took (DESIGN 16): when the next is due, what each wrote
-- and uploaded, and the backup_failed alert (the newest run failed).
CREATE TABLE `backup_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`status` text NOT NULL,
	`file` text,
	`bytes` integer,
	`s3_key` text,
	`error` text
);
CREATE INDEX `backup_runs_started` ON `backup_runs` (`started_at`);

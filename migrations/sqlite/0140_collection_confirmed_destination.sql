-- Issue 22 (DESIGN 10 "Hardening"): a scheduled collection sends only to a destination that was
-- confirmed with a password. Rows saved before this release have none, so their schedules wait
-- until the destination is saved again with the password (docs/treasury.md).
ALTER TABLE `collection_settings` ADD `confirmed_destination` text;

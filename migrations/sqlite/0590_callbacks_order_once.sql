-- PostgreSQL drops its callbacks_order, a prefix of its callbacks_order_seq (migrations/pg/0590).
-- SQLite has no callbacks_order_seq and its back office seeks callbacks_order: nothing changes here.
SELECT 1;

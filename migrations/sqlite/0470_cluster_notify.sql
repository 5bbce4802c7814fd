-- PostgreSQL's 0470 makes the database notify the other gateways of cache invalidations and new
-- payouts (LISTEN/NOTIFY, DESIGN 22). A SQLite gateway is alone on its file: nothing to notify.
SELECT 1;

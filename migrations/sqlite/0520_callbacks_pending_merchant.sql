-- PostgreSQL's per-merchant claim index (migrations/pg/0520): SQLite's planner reads each
-- merchant's due rows through callbacks_due (callbacks/claim-plan.ts) and needs no new index.
SELECT 1;

-- PostgreSQL's claim indexes (migrations/pg/0490): SQLite's worker plans its claims per merchant
-- through callbacks_due (callbacks/claim-plan.ts) and needs no new index.
SELECT 1;

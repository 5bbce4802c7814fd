-- SQLite's callbacks.seq is now written by the insert instead of a trigger (migrations/sqlite/0570);
-- PostgreSQL's is an identity taken at INSERT already (0431): nothing changes here.
SELECT 1;

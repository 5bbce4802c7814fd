-- PostgreSQL's notification of API-key and merchant changes (migrations/pg/0491): SQLite has one
-- gateway per database and its key cache reads cache_versions (db/cache-version.ts).
SELECT 1;

-- PostgreSQL's 0450 puts `id` last in the back office's list and search indexes so a page is a
-- backward index scan there. SQLite needs nothing: every index entry already ends in the rowid.
SELECT 1;

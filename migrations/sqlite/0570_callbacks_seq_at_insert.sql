-- The callbacks' sequence is written by the insert itself (callbacks/store.ts insertCallback: the
-- rowid and seq it gives the row are one value, max(rowid) + 1, what SQLite would pick), not by a
-- trigger: the AFTER INSERT trigger of 0431 ran a second statement per callback written (every
-- create; ~3 us of a create's CPU, issue 37). Rows written before keep their seq.
DROP TRIGGER IF EXISTS callbacks_seq;

-- callbacks_order (order_no) is a prefix of callbacks_order_seq (order_no, seq, 0431): every seek
-- on an order's callbacks can use the longer one, so the shorter was a second B-tree written by
-- every callback insert for nothing (the create's INSERT, issue 38). Dropped here only: SQLite has
-- no callbacks_order_seq (its back office names callbacks_order with INDEXED BY).
DROP INDEX IF EXISTS callbacks_order;

-- The callbacks page (issue 30): every event, newest first, paged by keyset on the rowid like
-- the other lists (docs/backoffice.md "Growth"). State alone: (state); merchant and state:
-- (merchant_id, state); merchant alone: one seek per state on the same index, merged in rowid
-- order. The rowid ends every entry, so each seek is already in page order.
CREATE INDEX callbacks_list_state ON callbacks (state);
CREATE INDEX callbacks_list_merchant ON callbacks (merchant_id, state);
-- The target each attempt was sent to (the event's notifyUrl, or the merchant's default URL at
-- that moment): the page shows where a callback went, even after the default URL changed.
ALTER TABLE callback_attempts ADD COLUMN url TEXT;
-- The old failed-callbacks page's own index (a merchant's failures by time): the page now seeks
-- callbacks_list_merchant; the alerts job keeps callbacks_failed.
DROP INDEX callbacks_failed_merchant;

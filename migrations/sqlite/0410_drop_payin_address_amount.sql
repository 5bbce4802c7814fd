-- A lean create (issue 37): payin_address_amount (address_id, token, amount) over every order was
-- written by each create at a random page (its keys are amounts), yet no query needs it any more:
-- the create probe and matching read the open-order partial indexes (payin_open_amount,
-- payin_settling_amount, payin_expired_unpaid) by name, and an address's orders in id order are
-- payin_search_address. src/db/query-plans.test.ts and src/backoffice/query-plans.test.ts keep
-- every listed query a seek without it.
DROP INDEX IF EXISTS payin_address_amount;

-- Rate limits shared by every gateway of one database (DESIGN 22): a token bucket per key (the
-- signed API's is per merchant), its level in 1/60000 of a token so a refill of `per minute` tokens
-- is `elapsed ms × per minute`, exact in integers; one upsert takes a token under the row's lock
-- (src/auth/rate-store.pg.ts), so gateways never hand out more than the limit between them.
CREATE TABLE rate_buckets (
  key text PRIMARY KEY,
  level bigint NOT NULL,
  at bigint NOT NULL
);

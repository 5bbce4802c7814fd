-- Rate limits shared by every gateway of one database (DESIGN 22): a token bucket per key (the
-- signed API's is per merchant), its level in 1/60000 of a token so a refill of `per minute` tokens
-- is `elapsed ms × per minute`, exact in integers. PostgreSQL gateways take their tokens here
-- (src/auth/rate-store.pg.ts); a SQLite gateway is alone on its file and keeps its buckets in
-- memory: the table exists on both engines so the schemas stay one.
CREATE TABLE rate_buckets (
  key TEXT PRIMARY KEY,
  level INTEGER NOT NULL,
  at INTEGER NOT NULL
);

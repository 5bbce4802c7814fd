-- The API-key cache on PostgreSQL (issue 38, DESIGN 22 "Shared state"): every change to merchants
-- or api_keys, by any gateway, the CLI or psql, tells every gateway on the cluster channel
-- (cluster/notify.ts CLUSTER_CHANNEL) in the transaction of the change, so it is delivered at
-- COMMIT and never after a rollback. A gateway whose key cache follows the channel
-- (merchants/key-cache.ts followClusterBus) drops its entries on it instead of reading
-- cache_versions on every use. One notification per statement (PostgreSQL folds identical ones of
-- a transaction into one).
CREATE FUNCTION cache_auth_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stablegate_cluster', json_build_object('kind', 'invalidate', 'topic', TG_ARGV[0], 'from', 'database')::text);
  RETURN NULL;
END $$;
CREATE TRIGGER cache_auth_notify_merchants AFTER INSERT OR UPDATE OR DELETE ON merchants FOR EACH STATEMENT EXECUTE FUNCTION cache_auth_notify('merchant_settings');
CREATE TRIGGER cache_auth_notify_api_keys AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION cache_auth_notify('api_keys');

-- Notifications between gateways (DESIGN 22 "Shared state", src/cluster/notify.ts), sent by the
-- database itself in the transaction of the change, whoever makes it (a gateway, the CLI, psql):
-- PostgreSQL delivers a NOTIFY at commit and never after a rollback. One per statement (and
-- PostgreSQL folds identical payloads of one transaction into one).
-- - merchants → invalidate merchant_settings, api_keys → invalidate api_keys, fx_rates →
--   invalidate rates: every gateway drops its cached rows (the key cache then reads the
--   trigger-kept cache_versions once);
-- - payout_orders inserted → wake payouts: the leader's executor starts at once, not at its next poll.
-- The payload is a message of notify.ts's parseMessage, from "database".
CREATE FUNCTION stablegate_cluster_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('stablegate_cluster', json_build_object('kind', TG_ARGV[0], 'topic', TG_ARGV[1], 'from', 'database')::text);
  RETURN NULL;
END $$;

CREATE TRIGGER cluster_notify_merchants AFTER INSERT OR UPDATE OR DELETE ON merchants
  FOR EACH STATEMENT EXECUTE FUNCTION stablegate_cluster_notify('invalidate', 'merchant_settings');
CREATE TRIGGER cluster_notify_api_keys AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION stablegate_cluster_notify('invalidate', 'api_keys');
CREATE TRIGGER cluster_notify_fx_rates AFTER INSERT OR UPDATE OR DELETE ON fx_rates
  FOR EACH STATEMENT EXECUTE FUNCTION stablegate_cluster_notify('invalidate', 'rates');
CREATE TRIGGER cluster_notify_payout_orders AFTER INSERT ON payout_orders
  FOR EACH STATEMENT EXECUTE FUNCTION stablegate_cluster_notify('wake', 'payouts');

// The single source of configuration keys, defaults and their docs.
// `config/stablegate.example.toml` mirrors this file.
import { Type as T, type Static } from "@sinclair/typebox";
import { DURATION_PATTERN } from "../lib/duration";
import { chainModules } from "../chains/registry";
import type { ChainDefaults, ChainModule } from "../chains/module";
import type { ChainCode } from "../chains/types";

const Duration = (def: string, description: string) => T.String({ pattern: DURATION_PATTERN, default: def, description });
const Amount = (def: string, description: string) => T.String({ pattern: "^\\d+(\\.\\d{1,6})?$", default: def, description });

const Percent = (def: string, description: string) => T.String({ pattern: "^\\d{1,3}(\\.\\d{1,4})?$", default: def, description });

/** `[rates]` (DESIGN 18): what prices an invoice's fiat currency in USDT/USDC. */
const RatesSection = T.Object(
  {
    source: T.Union([T.Literal("fixed"), T.Literal("coingecko")], { default: "fixed", description: '"fixed" (the table below) or "coingecko" (fetched every refresh)' }),
    fixed: T.Record(T.String({ pattern: "^[A-Z]{3}$" }), T.String({ pattern: "^\\d+(\\.\\d{1,12})?$" }), {
      default: {},
      description: 'fixed source: units of each currency per 1 USDT/USDC, e.g. { CNY = "7.10", EUR = "0.92" } (USD is always 1)',
    }),
    coingecko_url: T.String({ pattern: "^https?://", default: "https://api.coingecko.com/api/v3", description: "coingecko source: API base (https://pro-api.coingecko.com/api/v3 with a Pro key)" }),
    coingecko_api_key: T.Optional(T.String({ minLength: 1, description: "coingecko source: API key (x-cg-demo-api-key, or x-cg-pro-api-key on pro-api.coingecko.com)" })),
    refresh: Duration("5m", "coingecko source: how often rates are fetched"),
    max_age: Duration("30m", "a rate older than this is stale: new invoices in that currency get 56001 and the rate_stale alert fires"),
    spread_percent: Percent("0", "added to the payer's amount of a fiat-priced invoice (e.g. \"1.5\": 1.5 % more tokens)"),
  },
  { additionalProperties: false, default: {} },
);

const TokenOverride = T.Object(
  {
    contract: T.Optional(T.String({ minLength: 1, description: "token contract (TRON, EVM chains) or mint (SOL)" })),
    decimals: T.Optional(T.Integer({ minimum: 0, maximum: 36, description: "token decimals; checked on chain at start-up in rpc mode" })),
    min_amount: Amount("0.000001", "smallest pay-in or payout amount accepted (10001 with data.min below it)"),
    max_amount: Amount("100000000", "largest pay-in or payout amount accepted (10001 with data.max above it)"),
  },
  { additionalProperties: false, default: {} },
);

/** One `chains.<CODE>` section; its defaults and token keys come from the chain's module. */
const chain = (defaults: ChainDefaults) =>
  T.Object(
    {
      enabled: T.Boolean({ default: defaults.enabled ?? true, description: "watch and pay on this chain (`serve --demo` turns on every chain a sandbox gateway does not mention)" }),
      mode: T.Union([T.Literal("sandbox"), T.Literal("rpc")], { default: "sandbox", description: '"sandbox" (in-process test chain) or "rpc" (a real node)' }),
      confirmations: T.Integer({ minimum: 1, maximum: 1000, default: defaults.confirmations, description: "blocks (including the transfer's) before a pay-in completes" }),
      block_time: Duration(defaults.blockTime, 'sandbox block pace; "0s" mines only on request (POST /sandbox/blocks)'),
      rpc_urls: T.Array(
        T.Union([
          T.String({ pattern: "^https?://" }),
          T.Object(
            {
              url: T.String({ pattern: "^https?://", description: "the endpoint; `{api_key}` in it is replaced by each key in turn" }),
              rate_limit: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 100000, description: "requests per second to this endpoint (a token bucket: a second's burst, then evenly spaced)" })),
              api_keys: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1, description: "keys used in turn, one per request: in the URL's `{api_key}`, else in the key header (TRON-PRO-API-KEY on TRON, x-api-key elsewhere)" })),
            },
            { additionalProperties: false },
          ),
        ]),
        { default: [], description: 'rpc mode: node endpoints, tried in order with failover; a URL, or { url, rate_limit, api_keys } (DESIGN 25)' },
      ),
      api_key: T.Optional(T.String({ description: "rpc mode: API key for providers such as TronGrid and toncenter" })),
      poll_interval: Duration("1s", "rpc mode: how often the watcher polls the node"),
      gas_price_cap: T.Optional(T.String({ pattern: "^\\d+$", description: "EVM chains: highest gas price in wei a payout or gas top-up may pay (type 2: maxFeePerGas); replacements stop at it (payout_stuck)" })),
      gas_low_balance: T.Optional(T.String({ pattern: "^\\d+(\\.\\d{1,18})?$", description: "native units (TRX, BNB, ETH, POL, SOL, TON); the gas_low alert fires while the gas wallet holds less" })),
      tokens: T.Object(
        Object.fromEntries(defaults.tokens.map((t) => [t.symbol, T.Optional(TokenOverride)])),
        { additionalProperties: false, default: {} },
      ),
      // The chain's own keys (TRON: energy, DESIGN 21), from its module.
      ...(defaults.sectionKeys ?? {}),
    },
    { additionalProperties: false, default: {} },
  );

/** `chains`: one section per registered chain module, in registry order (DESIGN 3: chains.TRON, chains.BSC, chains.SOL). */
const chainSections = (modules: readonly ChainModule[]) =>
  T.Object(Object.fromEntries(modules.map((m) => [m.code, chain(m.defaults)])) as Record<ChainCode, ReturnType<typeof chain>>, { additionalProperties: false, default: {} });

export const ConfigSchema = T.Object(
  {
    server: T.Object(
      {
        host: T.String({ default: "127.0.0.1", description: "listen address" }),
        port: T.Integer({ minimum: 0, maximum: 65535, default: 8080, description: "listen port (0 picks a free one)" }),
        public_url: T.Optional(T.String({ pattern: "^https?://[^/?#]+(/[^?#]*)?$", description: "public base of cashierUrl (may carry a path prefix a reverse proxy strips); defaults to http://host:port" })),
        max_body_bytes: T.Integer({ minimum: 1024, default: 65536, description: "largest accepted request body" }),
        trusted_proxies: T.Array(T.String(), { default: [], description: "CIDRs of reverse proxies whose X-Forwarded-For is believed (client address for IP allowlists)" }),
      },
      { additionalProperties: false, default: {} },
    ),
    database: T.Object(
      {
        path: T.String({ minLength: 1, default: "data/stablegate.db", description: "SQLite file; the master key file sits next to it" }),
        url: T.Optional(
          T.String({
            minLength: 1,
            description:
              'PostgreSQL instead of SQLite (DESIGN 22): "postgres://user:pass@host:5432/db" (libpq URL forms; several hosts with target_session_attrs=read-write for failover); env STABLEGATE_DATABASE_URL overrides; with a url, path is not used',
          }),
        ),
        pool_size: T.Integer({ minimum: 1, maximum: 1000, default: 10, description: "PostgreSQL: connections each gateway keeps open at most" }),
      },
      { additionalProperties: false, default: {} },
    ),
    cluster: T.Object(
      { takeover_after: Duration("15s", "PostgreSQL, several gateways on one database: a gateway takes over the leader's jobs when none has held the leader lock this long") },
      { additionalProperties: false, default: {} },
    ),
    log: T.Object(
      { level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")], { default: "info", description: "debug | info | warn | error (JSON lines on stderr)" }) },
      { additionalProperties: false, default: {} },
    ),
    auth: T.Object(
      {
        timestamp_tolerance: Duration("5m", "allowed x-timestamp drift, both ways"),
        rotation_grace: Duration("24h", "after `key rotate`, the old key still signs requests this long"),
        rate_limit_per_minute: T.Integer({ minimum: 0, default: 1200, description: "signed requests per merchant per minute (0: no limit); 429 / 10029 beyond" }),
      },
      { additionalProperties: false, default: {} },
    ),
    payin: T.Object(
      {
        expire_after: Duration("30m", "order lifetime"),
        late_window: Duration("24h", "a payment this late after expiry still settles (risk_settled)"),
        shared_pool_size: T.Integer({ minimum: 1, maximum: 1000, default: 5, description: "shared receiving addresses per merchant and chain" }),
        underpay_tolerance: Amount("0", "token units: an address's one open order (pay-in or invoice) paid less than expected by at most this much completes (with the real paidAmount) instead of freezing"),
        underpay_tolerance_percent: Percent("0", "percent of the expected amount, as underpay_tolerance (the larger of the two applies)"),
        sweep_every: Duration("5m", "rpc mode: how often the sweep asks each chain, by another method than the block scan, for the transfers to addresses with an open order (DESIGN 25; \"0s\" turns it off)"),
        sweep_window: Duration("24h", "rpc mode: exclusive deposit addresses active (created, or paid) this recently are swept too"),
      },
      { additionalProperties: false, default: {} },
    ),
    rates: RatesSection,
    compat: T.Object(
      {
        currency: T.String({ pattern: "^[A-Z]{3,4}$", default: "CNY", description: "currency of the amounts shop plugins send to the epusdt and EPay endpoints (priced through [rates])" }),
        payment: T.String({ pattern: "^[A-Z0-9]{2,16}:[A-Z0-9]{2,16}$", default: "TRON:USDT", description: 'the network and token compatibility orders are paid in, as "CHAIN:TOKEN"' }),
      },
      { additionalProperties: false, default: {} },
    ),
    callbacks: T.Object(
      {
        retry_delays: T.Array(T.String({ pattern: DURATION_PATTERN }), { default: ["1m", "5m"], maxItems: 10, description: "waits before the 2nd and 3rd delivery" }),
        timeout: Duration("10s", "a delivery not answered 2xx within this is a failure"),
        allow_private_targets: T.Boolean({ default: false, description: "allow loopback/private notifyUrl targets (tests, local dev)" }),
        concurrency: T.Integer({ minimum: 1, maximum: 256, default: 16, description: "deliveries in flight at once" }),
        keep_delivered: Duration("30d", "delivered callbacks and their attempts older than this are pruned (failed and held ones are kept)"),
      },
      { additionalProperties: false, default: {} },
    ),
    backoffice: T.Object(
      {
        session_idle: Duration("30m", "a back-office session ends after this long without a request"),
        session_max: Duration("12h", "a back-office session ends this long after sign-in, active or not"),
        require_2fa: T.Optional(
          T.Boolean({
            description: "operators set up two-factor authentication before anything else; unset: on unless every enabled chain is in sandbox mode",
          }),
        ),
      },
      { additionalProperties: false, default: {} },
    ),
    chains: chainSections(chainModules()),
    collection: T.Object(
      {
        keep_dust: T.Boolean({
          default: false,
          description: "a collection leg leaves the chain's dust on the deposit address (TRON: one base unit), so the payer's next transfer there costs the energy of a transfer to an existing holder, not a new one",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    sandbox: T.Object(
      { allow_mixed: T.Boolean({ default: false, description: "allow sandbox and rpc chains in one gateway (tests only; /sandbox stays off)" }) },
      { additionalProperties: false, default: {} },
    ),
    ops: T.Object(
      {
        max_scan_lag: Duration("2m", "/readyz is 503 (and scanner_stalled fires) when a watcher is this far behind the chain's final head"),
        detection_slo: Duration("60s", "detection_slow fires for a chain when the 1-hour p95 of block time → first seen of its credited transfers exceeds this (DESIGN 25)"),
        min_free_disk_mb: T.Integer({ minimum: 0, default: 256, description: "/readyz is 503 (and disk_low fires) while the database's filesystem has less free space than this, in MiB (0: no check)" }),
        metrics: T.Boolean({ default: false, description: "serve Prometheus metrics at /metrics" }),
        metrics_token: T.Optional(T.String({ minLength: 1, description: "when set, /metrics needs Authorization: Bearer <token>" })),
      },
      { additionalProperties: false, default: {} },
    ),
    restore: T.Object(
      {
        index_gap: T.Integer({
          minimum: 1,
          maximum: 1_000_000,
          default: 1000,
          description: "a restored database hands out HD addresses from this many indexes past the highest it knows, so no address handed out after the backup is handed out again",
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    backup: T.Object(
      {
        schedule: T.Optional(T.String({ minLength: 1, description: 'cron pattern (croner, UTC), e.g. "15 * * * *": serve takes a checked backup on it; unset: no scheduled backups' })),
        dir: T.Optional(T.String({ minLength: 1, description: "folder for scheduled backups (made 0700); default: backups/ beside the database. Put it on another disk" })),
        keep: T.Integer({ minimum: 1, maximum: 10000, default: 24, description: "scheduled backups kept (here and in the bucket); older ones it made are deleted" }),
        s3_url: T.Optional(T.String({ pattern: "^(https?|s3)://[^/?#]+(/[^?#]*)?$", description: 'upload each backup: "https://ENDPOINT/BUCKET[/PREFIX]" (path style, any S3-compatible service) or "s3://BUCKET[/PREFIX]" (AWS; region from AWS_REGION)' })),
        s3_access_key: T.Optional(T.String({ minLength: 1, description: "access key id for s3_url (else S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID from the environment)" })),
        s3_secret_key: T.Optional(T.String({ minLength: 1, description: "secret key for s3_url (else S3_SECRET_ACCESS_KEY / AWS_SECRET_ACCESS_KEY from the environment)" })),
      },
      { additionalProperties: false, default: {} },
    ),
    alerts: T.Object(
      {
        webhook_url: T.Optional(T.String({ pattern: "^https?://", description: "alerts are POSTed here, signed per Standard Webhooks" })),
        webhook_secret: T.Optional(T.String({ minLength: 1, description: 'Standard Webhooks secret ("whsec_" + base64), needed with webhook_url' })),
        telegram_bot_token: T.Optional(T.String({ minLength: 1, description: "Telegram bot token; alerts go to telegram_chat_id" })),
        telegram_chat_id: T.Optional(T.String({ minLength: 1, description: "Telegram chat (user, group or channel id)" })),
        telegram_api_base: T.String({ pattern: "^https?://", default: "https://api.telegram.org", description: "Telegram Bot API base URL" }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);

/** The schema for the chains registered now: the product's, or with a test-only chain added. */
export function configSchema(): typeof ConfigSchema {
  const modules = chainModules();
  const product = Object.keys(ConfigSchema.properties.chains.properties);
  if (modules.length === product.length && modules.every((m, i) => m.code === product[i])) return ConfigSchema;
  return T.Object({ ...ConfigSchema.properties, chains: chainSections(modules) }, { additionalProperties: false, default: {} });
}

export type Config = Static<typeof ConfigSchema>;
export type ChainConfig = Config["chains"][ChainCode];

// Help text in one place: `stablegate help`, `stablegate COMMAND --help`, and the
// environment variables (README mirrors ENVIRONMENT; a test keeps them in sync).
import { MOVE_DETAILS, RESTORE_DETAILS } from "./help-text";

/** Per-command usage beyond the one-line list in main.ts (options explained). */
const DETAILS: Record<string, string> = {
  serve: `usage: stablegate serve [--demo] [--port N] [--data DIR] [--config PATH]
Needs the database (stablegate init makes it). Applies pending migrations, then serves HTTP (merchant API, checkout pages, /healthz,
/readyz, /metrics when ops.metrics = true) and runs every job (watchers, payouts,
callbacks, alerts) until SIGTERM or SIGINT. Shutdown is graceful and takes at most 5 s.
  --demo   on an empty folder, create the data folder first (as init); create a demo merchant
           on first start and print its credentials once (what make run starts)
  --port N the listen port (server.port; also STABLEGATE_PORT)
  --data DIR
           the data folder: database DIR/stablegate.db and its master key (database.path; also
           STABLEGATE_DATA; every command takes it, so the CLI reaches the same database)`,
  migrate: `usage: stablegate migrate [--config PATH]
Applies pending database migrations and exits (every command does this first).`,
  merchant: `usage: stablegate merchant <create|list|disable|enable> ...
  merchant create --name N [--json]   create a merchant; --json prints {"merchantUid","apiKey"}
  merchant list [--json]              every merchant with its status
  merchant disable UID                refuse the merchant's API calls (51002)
  merchant enable UID                 allow them again
  merchant set UID [--default-notify-url URL] [--ip-allowlist CIDR,...] [--epusdt-token T] [--epay-key K]
                                      settings ("" clears); a default URL releases held callbacks;
                                      --epusdt-token / --epay-key: the keys shop plugins sign with
                                      (epusdt, EPay; docs/plugins.md), empty turns that protocol off`,
  key: `usage: stablegate key rotate UID [--json]
Issues a new API key. The old key keeps signing requests for auth.rotation_grace and keeps
verifying callbacks of orders created under it. --json prints {"merchantUid","apiKey"}.`,
  init: `usage: stablegate init [--config PATH]
Creates the data folder of database.path (0700): the database (0600, migrated), the master key
(a new master.key, 0600, unless STABLEGATE_MASTER_KEY is set) and a new wallet seed (or the one in
STABLEGATE_WALLET_MNEMONIC). Only init (and serve --demo on an empty folder) makes a data folder:
every other command stops when the database is missing. init refuses, changing nothing, a folder
that already holds a database, a master key, or was made for another database path.`,
  wallet: `usage: stablegate wallet <gas|export-mnemonic> ...
  wallet gas [--json]        the gas wallet of each enabled chain. Fund it with the native coin
                             (BNB, TRX, SOL): it pays payout fees and tops up sources. Set
                             chains.<C>.gas_low_balance to be alerted.
  wallet export-mnemonic     asks for the path of the master key file (typed, or one line on
                             stdin), refuses a key that does not open the database, then prints
                             the wallet seed's words once on stdout and records the export in the
                             audit log (actor cli). Write them down offline.`,
  energy: `usage: stablegate energy <stake|unstake|status> ...
TRON energy (DESIGN 21, [chains.TRON.energy] mode = "stake"): the energy wallet (HD index
2147483647 on TRON's path) stakes TRX for energy and delegates it to a payout's source before
each TRC20 transfer, reclaiming it once the transfer is final. Send the energy wallet TRX first
(its address: energy status).
  energy stake --trx N       stake N TRX of the energy wallet (Stake 2.0, ENERGY); waits until mined
  energy unstake --trx N     unstake N TRX not delegated now (the chain returns them after 14 days)
  energy status [--json]     {"address","stakedTrx","energyAvailable","energyDelegated",
                             "transfersServed","trxSaved"} (decimal strings)`,
  callbacks: `usage: stablegate callbacks <list|resend> ...
  callbacks list [--failed|--held] [--json]
                                      recent callbacks (--failed: gave up; --held: no callback URL yet)
  callbacks resend EVENT_ID           deliver a failed callback again (same eventId and payload)`,
  alerts: `usage: stablegate alerts list [--firing] [--json]
Alert incidents (scanner_stalled, rpc_down, gas_low, callbacks_failing, payout_failed,
payout_stuck, unmatched_deposit, reconciliation_mismatch, storage_unwritable, disk_low, backup_failed, unrecorded_outgoing, scan_missed,
rate_stale, detection_slow, no_leader), newest first, with when each fired and resolved.
Delivery: [alerts] webhook_url + webhook_secret (Standard Webhooks), telegram_bot_token +
telegram_chat_id. See docs/operations.md.`,
  backup: `usage: stablegate backup --out FILE [--config PATH]
       stablegate backup --verify FILE
--out     copies the database (safe while serve runs) to a temporary name beside FILE, checks
          it (integrity, stablegate schema), fsyncs it and renames it to FILE (mode 0600), then
          prints what it holds (rows per table, newest pay-in and payout). FILE must not exist.
          Killed half-way, nothing is left at FILE. Never copy the live database file with cp,
          rsync or a disk snapshot: its -wal file holds the newest payments.
--verify  checks a backup (integrity, a stablegate schema this release knows) and prints what
          it holds; exits 1 with the reason for a corrupt, truncated or foreign file.
Keep the master key (STABLEGATE_MASTER_KEY or master.key) too, stored apart from the backups:
without it the wallet seed and API keys in a backup cannot be decrypted.`,
  restore: RESTORE_DETAILS,
  "migrate-to-postgres": MOVE_DETAILS,
  help: `usage: stablegate help [COMMAND]
The command list, or one command's usage (same as stablegate COMMAND --help).`,
};

export const ENVIRONMENT = `environment:
  STABLEGATE_CONFIG           config file when --config is not given (else config/stablegate.toml,
                              else the embedded default: every chain in sandbox mode)
  STABLEGATE_MASTER_KEY       master key that encrypts API keys and the wallet seed at rest; when
                              unset, the 0600 master.key file next to the database (made by init)
  STABLEGATE_PORT             listen port, over server.port of the config (--port wins)
  STABLEGATE_DATA             data folder: database DIR/stablegate.db with its master key beside it,
                              over database.path of the config (--data wins)
  STABLEGATE_WALLET_MNEMONIC  BIP-39 mnemonic that init imports as the wallet seed (otherwise one is
                              generated); ignored once a seed is stored
  tests only (opt-in, never needed to run the gateway):
  STABLEGATE_BSC_TESTNET_RPC, STABLEGATE_BSC_TESTNET_TOKEN       BSC testnet test
  STABLEGATE_TRON_TESTNET_RPC, STABLEGATE_TRON_TESTNET_API_KEY,
  STABLEGATE_TRON_TESTNET_TOKEN                                  TRON Nile test
  STABLEGATE_SOL_DEVNET_RPC, STABLEGATE_SOL_DEVNET_MINT           Solana devnet test
  STABLEGATE_CRASH_AT         crash-point name: the process kills itself there (crash tests);
                              fail:NAME throws there instead (start-up error tests)`;

/** The environment variables ENVIRONMENT documents (checked against README by a test). */
export const ENV_VARS = [...new Set(ENVIRONMENT.match(/STABLEGATE_[A-Z_]+/g) ?? [])];

/** `stablegate help`: the command list plus the environment. */
export function fullHelp(usage: string): string {
  return `${usage}\n  help [COMMAND]                     this text, or one command's usage (also: COMMAND --help)\n\n${ENVIRONMENT}`;
}

/** One command's usage; null for an unknown command. */
export function commandHelp(cmd: string, usage: string): string | null {
  if (DETAILS[cmd]) return DETAILS[cmd];
  const lines = usage.split("\n").filter((l) => l.trimStart().startsWith(cmd + " ") || l.trim() === cmd);
  return lines.length ? `usage: stablegate\n${lines.join("\n")}` : null;
}

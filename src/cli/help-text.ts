// Every command's usage text, apart from the command modules: `stablegate help` and a usage error
// print them without loading what the commands run (src/cli/main.ts loads each command lazily).

export const WALLET_USAGE = `  wallet gas [--json]                the gas wallet of each enabled chain (fund it: it pays payout fees)
  wallet export-mnemonic             show the wallet seed once (asks for the master key file; audited)`;

export const ENERGY_USAGE = `  energy stake --trx N               stake N TRX of the energy wallet for energy (DESIGN 21; [chains.TRON.energy])
  energy unstake --trx N             unstake N TRX (withdrawable 14 days later)
  energy status [--json]             the energy wallet: address, staked TRX, energy free and delegated, transfers served, TRX saved`;

export const USER_USAGE = `  user create --username U --role operator|merchant [--merchant UID] [--json]
                                     a back-office user with a generated password (printed once)
  user list [--json]
  user disable U | user enable U     (disabling ends the user's sessions)
  user reset-password U [--json]     a new generated password; the user's sessions end
  user reset-2fa U                   remove the user's authenticator (they enroll again)`;

export const ORDER_USAGE = `  order freeze ORDER_NO --reason R   freeze an open pay-in (frozen_abnormal)
  order release ORDER_NO             release a frozen pay-in: completed, risk_settled, or reopened
  order cancel ORDER_NO              cancel a waiting or frozen pay-in`;

export const DEPOSIT_USAGE = `  deposit list --unmatched [--all] [--json]   unmatched deposits (open ones; --all: resolved too)
  deposit attach DEPOSIT_ID ORDER_NO          pay an open or expired order with an unmatched deposit
  deposit refunded DEPOSIT_ID PAYOUT_ORDER_NO record that a payout refunded the deposit
  deposit dismiss DEPOSIT_ID --note N         close a deposit that needs no action, saying why`;

export const DENYLIST_USAGE = `  denylist add CHAIN ADDRESS --reason R  freeze whatever this sender pays
  denylist list [--json]
  denylist remove CHAIN ADDRESS`;

export const AUDIT_USAGE = `  audit list [--actor A] [--action X] [--target T] [--limit N] [--json]   the audit log, newest first`;

export const ALERTS_USAGE = "alerts list [--firing] [--json]    alert incidents, newest first (--firing: only open ones)";

export const BACKUP_USAGE = `backup --out FILE | backup --verify FILE  checked online copy of the database; check a backup`;

export const RESTORE_USAGE = `  restore --from FILE                put a backup in place (gateway stopped); it starts in reconcile
  restore ack CHAIN ADDRESS          acknowledge a source's unrecorded outgoing transfers; its held payouts go out
  restore list [--json]              unrecorded outgoing transfers waiting for acknowledgement`;

export const RESTORE_DETAILS = `usage: stablegate restore --from FILE | restore ack CHAIN ADDRESS | restore list [--json]
restore --from FILE   Checks FILE (SQLite integrity, a stablegate schema, the master key opens its
                      wallet seed); refuses with the reason and changes nothing otherwise. Then moves
                      the database in place (and its -wal/-shm) aside as
                      PATH.before-restore-<UTC time to the ms>-<pid>, kept 0600 and never replacing
                      a file (an existing name is refused), and puts the backup in place (0600);
                      the message names the file kept. Stop the gateway first.
                      The restored database starts in reconcile: HD indexes move on by
                      restore.index_gap, and before a payout source sends again its chain is read
                      for transfers made after the backup; each one the database does not know
                      holds that source's payouts (alert unrecorded_outgoing).
restore ack CHAIN ADDRESS
                      After checking those transfers (docs/operations.md, restore drill): acknowledges
                      them (audit entry) and releases the source's held payouts, which are then sent.
restore list [--json] The unrecorded outgoing transfers that wait for an acknowledgement.`;

export const MOVE_USAGE = `  migrate-to-postgres --from SQLITE_PATH --to URL
                                     copy a SQLite gateway's database into an empty PostgreSQL one (gateways stopped)`;

export const MOVE_DETAILS = `usage: stablegate migrate-to-postgres --from SQLITE_PATH --to URL
Copies a SQLite gateway's whole database into an empty PostgreSQL database (DESIGN 22), with
every gateway stopped. SQLITE_PATH is opened read-only and refused while a gateway serves it
(its instance lock) or when it is not at this build's schema (run stablegate migrate on it
first). URL (postgres://user:pass@host:5432/db) must name an empty database: it is migrated
to the same schema, then every table is copied in one transaction, identity sequences set
past the copied ids, and per table the row count and the exact sum of every amount column
are compared. Any difference or error rolls the copy back: no row is written. Encrypted
values (the wallet seed, API keys) are copied as stored: the PostgreSQL gateways need the
same master key. Afterwards set [database] url to URL and start the gateways.`;

/** A migration file: four digits, an underscore, lower-case words (e.g. 0003_payout_balances.sql). */
export const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

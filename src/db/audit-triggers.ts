// audit_log is append-only (DESIGN 12): enforced by triggers, which live with the
// other triggers the migration step installs after every migration run.

/** Triggers that make the table append-only; applied after migrations. */
export const AUDIT_APPEND_ONLY = [
  `CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
  `CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
];

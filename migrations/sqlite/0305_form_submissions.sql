-- One-time form tokens (issue 36): every back-office form and the payer's refund form carries a
-- token (`_once`) that is its action's idempotency key. The first POST with a token claims it here
-- (the primary key makes two at once one claim) and runs the action; its answer is kept with the
-- token (status, headers without cookies, and the body sealed with the master key: a page may
-- show a secret once); any later POST of the token gets that answer again, a concurrent one waits
-- for it. scope: who may present the token and where (a back-office user and the form's path, a
-- refund page). state: running (the action is under way, or its outcome was not recorded) | done.
-- Rows older than a token may live (24 h, the time is in the token) are deleted.
CREATE TABLE form_submissions (
  token TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  headers TEXT,
  body TEXT,
  created_at INTEGER NOT NULL,
  done_at INTEGER
);
CREATE INDEX form_submissions_created ON form_submissions (created_at);

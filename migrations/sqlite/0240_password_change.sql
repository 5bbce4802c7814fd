-- A user whose password was generated and handed over (created or reset by an
-- operator in the back office) chooses their own at the first sign-in (issue 30).
ALTER TABLE backoffice_users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;

-- Accounts beyond the catalog (issue 12, items 3-6): dashboard sessions, named API keys, the audit
-- log, self-service sign-up and password reset. Keep in step with ../postgres/0004_accounts.sql.

-- The portal's profile fields (GET /iot/developers.json). Existing accounts keep NULL.
ALTER TABLE accounts ADD COLUMN firstname TEXT;
ALTER TABLE accounts ADD COLUMN lastname TEXT;

-- A dashboard session: the cookie holds a random id, the table only its SHA-256.
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  address TEXT,
  user_agent TEXT
);
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Named API keys; the secret is shown once and kept as its SHA-256 (it is random and long).
CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  last_used_at BIGINT
);
CREATE UNIQUE INDEX api_keys_secret ON api_keys (secret_hash);
CREATE UNIQUE INDEX api_keys_account_name ON api_keys (account_id, name);

-- What each account did, and with which credential, from where. Pruned by age.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  at BIGINT NOT NULL,
  action TEXT NOT NULL,
  credential TEXT,
  key_name TEXT,
  address TEXT,
  detail TEXT
);
CREATE INDEX audit_log_account ON audit_log (account_id, id);
CREATE INDEX audit_log_at ON audit_log (at);

-- Self-service sign-ups waiting for their activation link; one row per request, so each link
-- activates the password chosen with it. Kept after activation (activated_at) until expiry, so a
-- reused link is told apart from an unknown one.
CREATE TABLE signups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  email TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  firstname TEXT,
  lastname TEXT,
  token_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  activated_at BIGINT
);
CREATE UNIQUE INDEX signups_token ON signups (token_hash);
CREATE INDEX signups_email ON signups (email);
CREATE INDEX signups_expires ON signups (expires_at);

-- Single-use password reset links, kept (used_at) until expiry for the same reason.
CREATE TABLE password_resets (
  token_hash TEXT PRIMARY KEY NOT NULL,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE INDEX password_resets_account ON password_resets (account_id);
CREATE INDEX password_resets_expires ON password_resets (expires_at);

// The tables of who may call: accounts and their credentials (sessions, API keys, sign-ups, password
// resets), the audit log, the server's own settings and the rate-limit counters. Units: see
// `Database` in schema.ts.
import type { Generated, Selectable } from 'kysely';

export interface SettingsTable {
  name: string;
  value: string;
}

export interface AccountsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** Random per-account value the API key is derived from; replacing it regenerates the key. */
  api_key_salt: string;
  git_alias: string | null;
  created_at: number;
  firstname: string | null;
  lastname: string | null;
}

/** A dashboard session; the cookie carries the id, the table only its SHA-256. */
export interface SessionsTable {
  id_hash: string;
  account_id: number;
  created_at: number;
  /** Moved forward at most once a minute: the idle expiry's clock, without a write per request. */
  last_used_at: number;
  /** The absolute expiry. */
  expires_at: number;
  address: string | null;
  user_agent: string | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** The secret's first characters, shown to tell keys apart. */
  prefix: string;
  /** SHA-256 of the secret (hex): the secret is random and long, so a slow hash adds nothing. */
  secret_hash: string;
  /** `read` or `full`. */
  scope: string;
  created_at: number;
  expires_at: number | null;
  /** Moved forward at most once a minute. */
  last_used_at: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number;
  at: number;
  action: string;
  /** `session`, `password`, `token`, `key`, `link` (an emailed link) or `operator` (the CLI). */
  credential: string | null;
  key_name: string | null;
  address: string | null;
  /** JSON object, or NULL. */
  detail: string | null;
}

export interface SignupsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  firstname: string | null;
  lastname: string | null;
  token_hash: string;
  created_at: number;
  expires_at: number;
  activated_at: number | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  account_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A rate-limit counter: hits of `key` in the fixed window that ends at `reset_at` (epoch ms). */
export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: number;
}

export type AccountRow = Selectable<AccountsTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AuditRow = Selectable<AuditLogTable>;
export type SignupRow = Selectable<SignupsTable>;

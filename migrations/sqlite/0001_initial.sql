-- snsr initial schema (SQLite). Keep in step with ../postgres/0001_initial.sql: a test compares them.

CREATE TABLE settings (
  name TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);

CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  api_key_salt TEXT NOT NULL,
  git_alias TEXT,
  created_at BIGINT NOT NULL
);

CREATE TABLE modules (
  serial TEXT PRIMARY KEY NOT NULL,
  key TEXT NOT NULL,
  pac TEXT NOT NULL,
  protocol TEXT NOT NULL DEFAULT 'UDM23',
  account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  registered_at BIGINT,
  imported_at BIGINT NOT NULL,
  last_cpt INTEGER
);
CREATE INDEX modules_account ON modules (account_id, serial);

CREATE TABLE devices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  module_serial TEXT NOT NULL REFERENCES modules (serial) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  serial TEXT NOT NULL UNIQUE,
  uid TEXT,
  category TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  watched INTEGER NOT NULL DEFAULT 0,
  alerts INTEGER NOT NULL DEFAULT 0,
  alerts_ack INTEGER NOT NULL DEFAULT 0,
  losts INTEGER NOT NULL DEFAULT 0,
  msgs INTEGER NOT NULL DEFAULT 0,
  firstseen BIGINT,
  lastseen BIGINT,
  battery TEXT NOT NULL DEFAULT 'UNKNOWN',
  level TEXT NOT NULL DEFAULT 'UNKNOWN',
  network TEXT NOT NULL DEFAULT 'UNKNOWN',
  tamper TEXT NOT NULL DEFAULT 'UNKNOWN',
  temp TEXT NOT NULL DEFAULT 'UNKNOWN',
  status TEXT NOT NULL DEFAULT 'UNDEFINED',
  type TEXT NOT NULL DEFAULT 'OTHER',
  bidirval TEXT
);
CREATE UNIQUE INDEX devices_module_idx ON devices (module_serial, idx);

CREATE TABLE apps (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  callback_url TEXT,
  key TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  reftime BIGINT
);
CREATE INDEX apps_account ON apps (account_id, id);

CREATE TABLE app_modules (
  app_id INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  module_serial TEXT NOT NULL REFERENCES modules (serial) ON DELETE CASCADE,
  attached_at BIGINT NOT NULL,
  PRIMARY KEY (app_id, module_serial)
);
CREATE INDEX app_modules_module ON app_modules (module_serial);

CREATE TABLE raw_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  module_serial TEXT NOT NULL REFERENCES modules (serial) ON DELETE CASCADE,
  seq_number INTEGER,
  time_s BIGINT NOT NULL,
  data TEXT NOT NULL,
  snr DOUBLE PRECISION,
  avg_snr DOUBLE PRECISION,
  lat DOUBLE PRECISION,
  lng DOUBLE PRECISION,
  received_at BIGINT NOT NULL
);
-- One raw message per uplink: Sigfox's sequence number identifies it, or its time when there is none.
CREATE UNIQUE INDEX raw_messages_seq ON raw_messages (module_serial, seq_number) WHERE seq_number IS NOT NULL;
CREATE UNIQUE INDEX raw_messages_time_noseq ON raw_messages (module_serial, time_s) WHERE seq_number IS NULL;
CREATE INDEX raw_messages_history ON raw_messages (module_serial, time_s, id);

CREATE TABLE rinfos (
  raw_id INTEGER NOT NULL REFERENCES raw_messages (id) ON DELETE CASCADE,
  tap TEXT NOT NULL,
  rssi DOUBLE PRECISION,
  snr DOUBLE PRECISION,
  PRIMARY KEY (raw_id, tap)
);

CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  module_serial TEXT NOT NULL REFERENCES modules (serial) ON DELETE CASCADE,
  device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  raw_id INTEGER REFERENCES raw_messages (id) ON DELETE SET NULL,
  when_ms BIGINT NOT NULL,
  type TEXT NOT NULL,
  station TEXT NOT NULL,
  lvl DOUBLE PRECISION,
  frame TEXT NOT NULL,
  frame_type TEXT NOT NULL,
  code TEXT NOT NULL,
  entry_id INTEGER NOT NULL,
  stamp INTEGER NOT NULL,
  cpt INTEGER NOT NULL,
  retry INTEGER NOT NULL,
  custom TEXT NOT NULL,
  contrib TEXT NOT NULL,
  ctxt TEXT NOT NULL
);
-- History reads are keyset range scans on these: cost independent of the table's size.
CREATE INDEX messages_module_when ON messages (module_serial, when_ms, id);
CREATE INDEX messages_device_when ON messages (device_id, when_ms, id);

CREATE TABLE deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid TEXT NOT NULL UNIQUE,
  app_id INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT,
  lease_owner TEXT,
  last_status_code INTEGER,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  delivered_at BIGINT
);
CREATE UNIQUE INDEX deliveries_app_message ON deliveries (app_id, message_id);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_app ON deliveries (app_id, id);
CREATE INDEX deliveries_message ON deliveries (message_id);

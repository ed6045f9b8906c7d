-- Monitoring (issue 15): alerts of watched devices, the lost-contact watchdog's periods and lease,
-- alert emails. Keep in step with ../postgres/0009_monitoring.sql.

-- One row per alarm raised on a device: kept with its time, kind and text, ended by the matching
-- "OK" event (or, for lost contact, the next uplink), acknowledged by the owner.
CREATE TABLE alerts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  module_serial TEXT NOT NULL REFERENCES modules (serial) ON DELETE CASCADE,
  device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  raised_at BIGINT NOT NULL,
  -- the message that raised it (no foreign key: messages are pruned and partitioned by time)
  message_id INTEGER,
  ended_at BIGINT,
  end_message TEXT,
  acked_at BIGINT
);
CREATE INDEX alerts_account ON alerts (account_id, id);
CREATE INDEX alerts_module ON alerts (module_serial, id);
-- At most one open alert per device and kind: a repeated alarm, a second watchdog pass or a
-- restarted process cannot raise it twice.
CREATE UNIQUE INDEX alerts_open ON alerts (device_id, kind) WHERE ended_at IS NULL;

-- The keep-alive interval a device announced (seconds), and the owner's defaults for devices
-- whose frames do not say: the lost-contact watchdog's expected period.
ALTER TABLE devices ADD COLUMN period_s INTEGER;
ALTER TABLE modules ADD COLUMN watch_period_s INTEGER;
ALTER TABLE apps ADD COLUMN watch_period_s INTEGER;
CREATE INDEX devices_watched ON devices (watched, lastseen);

-- Accounts that want their alerts by email.
CREATE TABLE alert_settings (
  account_id INTEGER PRIMARY KEY NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email INTEGER NOT NULL DEFAULT 0
);

-- Named leases: a background job that must run on one process at a time holds its row.
CREATE TABLE leases (
  name TEXT PRIMARY KEY NOT NULL,
  owner TEXT NOT NULL,
  until_ms BIGINT NOT NULL
);

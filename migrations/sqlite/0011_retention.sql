-- Retention (issue 17): an owner's per-module override of how long messages and raw messages are
-- kept (NULL: the operator's default), and time indexes so pruning finds old rows by a range scan.
-- Keep in step with the other dialect's 0011_retention.sql.

CREATE TABLE module_retention (
  module_serial TEXT PRIMARY KEY NOT NULL REFERENCES modules (serial) ON DELETE CASCADE,
  messages_days INTEGER,
  raw_days INTEGER
);

CREATE INDEX messages_when ON messages (when_ms);
CREATE INDEX raw_messages_received ON raw_messages (received_at);

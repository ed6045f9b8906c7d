-- Uplink identity, reception-time ordering (issue 13, items 1 and 2).
-- Keep in step with ../sqlite/0006_uplink_identity.sql.

-- An uplink is (module, sequence number, network time): a wrapped or reset counter makes a new row
-- and no stored row is rewritten to make room. Without a sequence number, (module, time, frame).
-- The time column is in both keys so that the table can be partitioned by time.
DROP INDEX raw_messages_seq;
DROP INDEX raw_messages_time_noseq;
CREATE UNIQUE INDEX raw_messages_identity ON raw_messages (module_serial, seq_number, time_s) WHERE seq_number IS NOT NULL;
CREATE UNIQUE INDEX raw_messages_identity_noseq ON raw_messages (module_serial, time_s, data) WHERE seq_number IS NULL;

-- The module's newest uplink by network time (sequence number and time), for counting real gaps,
-- and the last `when` given to one of its messages, which the next one must exceed.
ALTER TABLE modules ADD COLUMN last_seq INTEGER;
ALTER TABLE modules ADD COLUMN last_time_s BIGINT;
ALTER TABLE modules ADD COLUMN last_when_ms BIGINT;

-- The network's time of a message's uplink (shown in `extra`); `when_ms` is snsr's reception time.
ALTER TABLE messages ADD COLUMN time_s BIGINT NOT NULL DEFAULT 0;
UPDATE messages SET time_s = COALESCE((SELECT raw_messages.time_s FROM raw_messages WHERE raw_messages.id = messages.raw_id), messages.when_ms / 1000);
UPDATE modules SET last_when_ms = (SELECT MAX(messages.when_ms) FROM messages WHERE messages.module_serial = modules.serial);


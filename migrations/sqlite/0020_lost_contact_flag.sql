-- A device whose lost-contact alert is open carries the flag (issue 15), so that ingestion ends the
-- alert only on the uplinks that can end one instead of trying on every uplink of every watched
-- device. Set by the watchdog with the alert, cleared by the uplink that ends it. Keep in step with
-- ../postgres/0020_lost_contact_flag.sql.
ALTER TABLE devices ADD COLUMN lost_contact INTEGER NOT NULL DEFAULT 0;
UPDATE devices SET lost_contact = 1
 WHERE id IN (SELECT device_id FROM alerts WHERE kind = 'lost_contact' AND ended_at IS NULL);

-- Alert callbacks (issue 15): a delivery carries a message or an alert, exactly one of them. Keep in
-- step with ../postgres/0015_alert_deliveries.sql. Dropping message_id's NOT NULL is a table rebuild
-- on SQLite, done before these statements by src/storage/migrate.ts (it keeps every column and index
-- the table has, whichever migrations ran before this one).

-- An alert's deliveries go with it (retention prunes ended alerts; an account's go with the account).
-- The CHECK is tested against the rows already there: every one of them has its message.
ALTER TABLE deliveries ADD COLUMN alert_id INTEGER REFERENCES alerts (id) ON DELETE CASCADE
  CHECK ((message_id IS NULL) <> (alert_id IS NULL));
-- One delivery per alert and app, as (app_id, message_id) for messages; NULLs (message rows) are
-- distinct, so message deliveries never collide here.
CREATE UNIQUE INDEX deliveries_app_alert ON deliveries (app_id, alert_id);
-- Finds an alert's deliveries when it is deleted.
CREATE INDEX deliveries_alert ON deliveries (alert_id);

-- Alert emails: set when an alert is raised for an account that asks for its alerts by email, cleared
-- once the email went out (src/integrations/email/alert-mailer.ts). The rows to send are in a partial
-- index, so finding them costs what is waiting, not the table.
ALTER TABLE alerts ADD COLUMN email_pending INTEGER NOT NULL DEFAULT 0;
CREATE INDEX alerts_email_pending ON alerts (id) WHERE email_pending = 1;

-- Alert callbacks (issue 15): a delivery carries a message or an alert, exactly one of them. Keep in
-- step with ../sqlite/0015_alert_deliveries.sql.
ALTER TABLE deliveries ALTER COLUMN message_id DROP NOT NULL;
-- alerts is not partitioned (messages is, so their deliveries are cascaded by the trigger of 0014):
-- a foreign key takes an alert's deliveries with it when retention prunes it or its account goes.
ALTER TABLE deliveries ADD COLUMN alert_id BIGINT REFERENCES alerts (id) ON DELETE CASCADE;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_one_subject CHECK ((message_id IS NULL) <> (alert_id IS NULL));
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

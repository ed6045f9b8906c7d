-- The developer overview (issue 16) counts an account's open alerts and failed deliveries on every
-- load: partial indexes hold only those rows, so the counts cost what is open or failed, not the
-- whole history. Keep in step with the other dialect's 0018_overview.sql.

CREATE INDEX alerts_account_open ON alerts (account_id, id) WHERE ended_at IS NULL;
CREATE INDEX deliveries_app_failed ON deliveries (app_id, id) WHERE status = 'failed';

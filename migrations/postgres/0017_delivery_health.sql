-- Webhook health (issue 16): how long each delivery's last request took, and an index by app and
-- last change so an app's last day of deliveries is a range scan. Keep in step with
-- ../sqlite/0017_delivery_health.sql.

ALTER TABLE deliveries ADD COLUMN last_latency_ms INTEGER;

CREATE INDEX deliveries_app_updated ON deliveries (app_id, updated_at);

-- Delivery leases across processes (issue 14). Keep in step with ../postgres/0008_delivery_leases.sql.

-- Claims count each app's live leases to hold its in-flight limit across every worker; only rows
-- with a lease are in this index, so the count stays small however long the delivery log grows.
CREATE INDEX deliveries_leased ON deliveries (app_id, lease_until) WHERE lease_owner IS NOT NULL;

-- The outbox's indexes by status, partial (issue 14). deliveries_due (status, next_attempt_at)
-- held every row, delivered ones (most of the table) included, and led with a column of three
-- values: a database without statistics (SQLite until it is analyzed) took "status = ?" for a
-- narrow lookup and walked the whole queue where a few rows named by id were wanted. Each status
-- that is searched now has an index of its own rows, which a query reaches by naming the status.
-- Keep in step with ../sqlite/0021_delivery_queue_indexes.sql.
DROP INDEX deliveries_due;
-- The queue in the order it falls due: a claim's oldest due rows across apps.
CREATE INDEX deliveries_pending ON deliveries (next_attempt_at, id) WHERE status = 'pending';
-- Each app's queue: when one app's backlog fills the head of the queue and the app can take no
-- more, the other apps' oldest due rows, one probe per app instead of a walk past the backlog.
CREATE INDEX deliveries_pending_app ON deliveries (app_id, next_attempt_at, id) WHERE status = 'pending';
-- Pruning walks delivered rows by the time of their last send.
CREATE INDEX deliveries_delivered ON deliveries (next_attempt_at) WHERE status = 'delivered';

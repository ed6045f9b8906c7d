-- Ingest cost: every new message sets its device's `lastseen`, and while `lastseen` was a column of
-- devices_watched each of those updates rewrote an index entry (and on PostgreSQL made the update a
-- non-HOT one: a new entry in every index of devices). The watchdog finds watched devices by the
-- flag and reads `lastseen` from the rows it gets; nothing looks devices up by `lastseen`.
-- Keep in step with the other dialect's 0012_ingest_indexes.sql.
DROP INDEX devices_watched;
CREATE INDEX devices_watched ON devices (watched);

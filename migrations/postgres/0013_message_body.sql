-- A message's wire form (history, recents and callbacks show it), serialized once by ingestion, so a
-- history read sends stored text instead of rebuilding each message from its columns. Nothing in
-- it depends on configuration read at answer time: `ctxt` dates were written at reception already.
-- NULL for rows stored before this column existed (and rows written by tools that do not fill
-- it): reads build those from the other columns, so no backfill is needed.
-- Keep in step with the other dialect's 0013_message_body.sql.

ALTER TABLE messages ADD COLUMN body TEXT;

-- Time partitions (issues 14 and 17) are PostgreSQL's (see ../postgres/0014_time_partitions.sql);
-- SQLite keeps plain tables. Both get this index: deleting a raw message sets its messages' raw_id
-- to NULL (a foreign key's ON DELETE SET NULL here, a trigger there), which without it reads every
-- message for each raw message deleted, so pruning raw messages slowed with the square of the table.

CREATE INDEX messages_raw ON messages (raw_id);

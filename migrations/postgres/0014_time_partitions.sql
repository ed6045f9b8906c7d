-- Time partitions (issues 14 and 17), PostgreSQL only: messages by reception time (when_ms, epoch
-- ms) and raw_messages by network time (time_s, epoch seconds: the column the uplink-identity keys
-- of 0006 already hold, so they stay unique keys), one partition per calendar month (UTC), plus a
-- default partition that takes any row no month partition covers. Maintenance (src/storage/postgres/
-- partitions.ts) creates the current month and the next ones ahead; retention drops whole months.
--
-- The conversion is generic: the new table is made LIKE the old one (every column, whatever other
-- migrations added), rows are copied in one INSERT … SELECT, the identity sequence continues where
-- the old one stood, every index and outgoing foreign key is recreated under its old name, and the
-- primary key becomes (id, time). It runs in the migration's transaction and holds the tables for
-- the time of the copy.
--
-- Foreign keys INTO these tables (rinfos.raw_id, messages.raw_id, deliveries.message_id) cannot
-- reference a partitioned table's id alone; they are dropped, and triggers below keep the cascades:
-- a deleted message takes its deliveries, a deleted raw message its rinfos (messages.raw_id is kept
-- as written, never read back). Dropping a partition fires no trigger: the pruner deletes those rows
-- itself first.

CREATE FUNCTION snsr_partition_by_month(tbl text, key text, per_second bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  old text := tbl || '_unpartitioned';
  fk record;
  idx record;
  m timestamp;
  n integer;
  wanted timestamp[] := '{}';
  defs text[] := '{}';
  def text;
  seq_last bigint;
  seq_called boolean;
BEGIN
  FOR fk IN SELECT conname, conrelid::regclass AS rel FROM pg_constraint WHERE contype = 'f' AND confrelid = tbl::regclass LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.rel, fk.conname);
  END LOOP;
  EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
  EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', old, tbl || '_pkey', old || '_pkey');
  -- Indexes (the primary key apart) and outgoing foreign keys, to recreate on the new table.
  FOR idx IN SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = old::regclass AND NOT i.indisprimary LOOP
    defs := defs || replace(pg_get_indexdef(idx.indexrelid), format(' ON public.%I ', old), format(' ON public.%I ', tbl));
  END LOOP;
  FOR fk IN SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE contype = 'f' AND conrelid = old::regclass LOOP
    defs := defs || format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, fk.conname, fk.definition);
  END LOOP;

  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING GENERATED INCLUDING STORAGE INCLUDING COMMENTS, PRIMARY KEY (id, %I)) PARTITION BY RANGE (%I)', tbl, old, key, key);
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
  -- A month for every month that holds rows (within ten years back), this month and three ahead;
  -- months are UTC calendar months, computed on UTC wall-clock timestamps whatever the session's zone.
  FOR m IN
    EXECUTE format('SELECT DISTINCT date_trunc(''month'', to_timestamp(%I::double precision / %s) AT TIME ZONE ''UTC'') FROM %I WHERE %I >= $1 AND %I < $2', key, per_second, old, key, key)
    USING (extract(epoch FROM now() - interval '10 years') * per_second)::bigint, (extract(epoch FROM now() + interval '4 months') * per_second)::bigint
  LOOP
    wanted := wanted || m;
  END LOOP;
  FOR n IN 0..3 LOOP
    wanted := wanted || (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => n));
  END LOOP;
  FOR m IN SELECT DISTINCT unnest(wanted) LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
      tbl || '_' || to_char(m, '"y"YYYY"m"MM'), tbl,
      (extract(epoch FROM m AT TIME ZONE 'UTC') * per_second)::bigint, (extract(epoch FROM (m + interval '1 month') AT TIME ZONE 'UTC') * per_second)::bigint);
  END LOOP;
  EXECUTE format('INSERT INTO %I SELECT * FROM %I', tbl, old);

  EXECUTE format('SELECT last_value, is_called FROM %s', pg_get_serial_sequence(old, 'id')) INTO seq_last, seq_called;
  PERFORM setval(pg_get_serial_sequence(tbl, 'id'), seq_last, seq_called);
  EXECUTE format('DROP TABLE %I', old);
  EXECUTE format('ALTER SEQUENCE %s RENAME TO %I', pg_get_serial_sequence(tbl, 'id'), tbl || '_id_seq');
  FOREACH def IN ARRAY defs LOOP
    EXECUTE def;
  END LOOP;
END
$$;

SELECT snsr_partition_by_month('raw_messages', 'time_s', 1);
SELECT snsr_partition_by_month('messages', 'when_ms', 1000);
DROP FUNCTION snsr_partition_by_month(text, text, bigint);

-- The cascades the dropped foreign keys did, one statement per delete: a message's deliveries go
-- with it; a raw message's rinfos go with it and its messages forget it (as ON DELETE SET NULL did,
-- so a copy into a database that checks foreign keys finds no dangling raw_id).
CREATE FUNCTION snsr_messages_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM deliveries WHERE message_id IN (SELECT id FROM gone);
  RETURN NULL;
END
$$;
CREATE TRIGGER messages_deleted AFTER DELETE ON messages REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION snsr_messages_deleted();

CREATE FUNCTION snsr_raw_messages_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM rinfos WHERE raw_id IN (SELECT id FROM gone);
  UPDATE messages SET raw_id = NULL WHERE raw_id IN (SELECT id FROM gone);
  RETURN NULL;
END
$$;
CREATE TRIGGER raw_messages_deleted AFTER DELETE ON raw_messages REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION snsr_raw_messages_deleted();

-- Finds the messages of a deleted raw message (above, and on SQLite the foreign key's SET NULL,
-- which without it reads every message for each raw message deleted).
CREATE INDEX messages_raw ON messages (raw_id);

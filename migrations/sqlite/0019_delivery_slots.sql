-- Per-app sending slots with a lifetime (issue 14). Keep in step with ../postgres/0019_delivery_slots.sql.

-- Used by workers sharing a PostgreSQL database; on SQLite one process owns the database and its
-- claims hold each app's limit, so the table stays empty. It exists so both schemas stay one.
CREATE TABLE delivery_slots (
  app_id INTEGER NOT NULL,
  slot INTEGER NOT NULL,
  holder TEXT NOT NULL,
  until_ms INTEGER NOT NULL,
  PRIMARY KEY (app_id, slot)
);
CREATE INDEX delivery_slots_holder ON delivery_slots (holder);

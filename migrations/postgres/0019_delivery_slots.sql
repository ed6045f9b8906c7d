-- Per-app sending slots with a lifetime (issue 14). Keep in step with ../sqlite/0019_delivery_slots.sql.

-- One row per (app, slot) while a worker holds it, until `until_ms` on the database clock. A holder
-- renews its slots as each send starts; a slot past its end may be taken by any worker, so a worker
-- that stalls or dies gives its apps' slots up after one lifetime (SNSR_DELIVERY_LEASE_MS).
CREATE TABLE delivery_slots (
  app_id BIGINT NOT NULL,
  slot INTEGER NOT NULL,
  holder TEXT NOT NULL,
  until_ms BIGINT NOT NULL,
  PRIMARY KEY (app_id, slot)
);
CREATE INDEX delivery_slots_holder ON delivery_slots (holder);

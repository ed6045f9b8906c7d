-- Names, tags and notes the owner gives a module or a child device. They are the owner's: a new
-- registration starts without them (registration-reset.ts). Tags are kept as " tag1 tag2 " (one
-- space each side, lower case), so one column answers "has this tag" with LIKE '% tag %' in both
-- dialects and the module list reads them in the same query as the rest of its columns.
ALTER TABLE devices ADD COLUMN name TEXT;
ALTER TABLE devices ADD COLUMN notes TEXT;
ALTER TABLE devices ADD COLUMN tags TEXT NOT NULL DEFAULT '';

-- Registration epochs and device key rotation (issue 12, items 1-2). Keep in step with
-- ../sqlite/0005_registrations.sql: a test compares them.

-- Counts the module's registrations and unregistrations. Device tokens carry it in their signed
-- part, so every token minted before a change of hands answers 401 afterwards. Existing modules
-- start at 0, which is what tokens minted before this column existed stand for.
ALTER TABLE modules ADD COLUMN registration INTEGER NOT NULL DEFAULT 0;

-- The device key the current owner set in place of the printed one (NULL: the printed key and the
-- PAC are in force). Cleared when the module is unregistered, so the next owner registers it with
-- what is printed on the module.
ALTER TABLE modules ADD COLUMN device_key TEXT;

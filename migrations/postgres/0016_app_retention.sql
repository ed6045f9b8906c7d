-- Per-app retention (issue 17): an app owner's choice of how long the messages and raw messages of
-- every module attached to the app are kept (NULL: no choice). A module's own choice wins over its
-- apps'; among several apps the longest wins (0, forever, longest of all); then the operator's default.
-- Keep in step with the other dialect's 0016_app_retention.sql.

CREATE TABLE app_retention (
  app_id BIGINT PRIMARY KEY NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  messages_days INTEGER,
  raw_days INTEGER
);

-- Rate-limit counters shared by every snsr process when no Redis is configured (SNSR_REDIS_URL):
-- failed authentications per account, serial and address, and request quotas on PostgreSQL.
-- Keep in step with ../postgres/0007_rate_limits.sql.

-- One fixed window per key: count hits until reset_at (epoch ms), then start again from 1.
CREATE TABLE rate_limits (
  key TEXT PRIMARY KEY NOT NULL,
  count BIGINT NOT NULL,
  reset_at BIGINT NOT NULL
);
CREATE INDEX rate_limits_reset ON rate_limits (reset_at);

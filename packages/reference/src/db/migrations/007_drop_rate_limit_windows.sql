-- Rate limits moved out of the database (http/rate-limit.ts: rate-limiter-flexible, in memory or in Redis): no read
-- of the API writes a row any more.
DROP TABLE IF EXISTS rate_limit_windows;

-- Issue 33 (D361): honest storage failures. After a write failed for want of space (SQLSTATE class 53, ENOSPC), a
-- process answers /readyz "not ready" until a real write succeeds again: this table takes that write (one row per
-- process that probed, upserted), so readiness never claims writes work on the strength of a `SELECT 1`.
CREATE TABLE storage_probe (
  process_id text PRIMARY KEY,
  probed_at timestamptz NOT NULL
);

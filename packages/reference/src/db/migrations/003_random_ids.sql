-- Row ids are random (core/ids.ts, core/deps.ts randomIds): the per-kind sequences that fed the former scrambled ids
-- are no longer read.
DROP SEQUENCE IF EXISTS merchant_id_seq;
DROP SEQUENCE IF EXISTS order_id_seq;
DROP SEQUENCE IF EXISTS payment_id_seq;
DROP SEQUENCE IF EXISTS refund_id_seq;
DROP SEQUENCE IF EXISTS settlement_id_seq;
DROP SEQUENCE IF EXISTS transaction_id_seq;

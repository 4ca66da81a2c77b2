-- Issue 22 (D112-D115): settlement runs that stream in short batches, and webhook delivery woken by NOTIFY.

-- A settlement is built by a run in batches, each its own transaction: it is `open` while lines are added (hidden from
-- every read) and `completed` (visible, announced) when the run closes it. A run interrupted by a crash leaves it open;
-- the next run carries on adding to it, so no line is missing or counted twice (D112). One open settlement per
-- merchant and transaction currency.
ALTER TABLE settlements ADD COLUMN status text NOT NULL DEFAULT 'completed' CHECK (status IN ('open', 'completed'));
ALTER TABLE settlements ALTER COLUMN status DROP DEFAULT;
CREATE UNIQUE INDEX settlements_one_open_idx ON settlements (merchant_id, transaction_currency) WHERE status = 'open';
-- Lines of a settlement, kept exact as batches add them: reads never count them (D113).
ALTER TABLE settlements ADD COLUMN number_of_transactions integer NOT NULL DEFAULT 0;
UPDATE settlements s SET number_of_transactions = (SELECT count(*) FROM settlement_transactions t WHERE t.settlement_id = s.id);
ALTER TABLE settlements ALTER COLUMN number_of_transactions DROP DEFAULT;

-- Batch claims walk captured unsettled payments in (currency, created_at, id) order from where the last batch ended.
DROP INDEX payments_unsettled_idx;
CREATE INDEX payments_unsettled_idx ON payments (merchant_id, currency, created_at, id) WHERE status = 'CAPTURED' AND settlement_id IS NULL;
-- What a run has to do, found from small partial indexes (a no-op run reads no payment history).
CREATE INDEX refunds_unsettled_processed_idx ON refunds (merchant_id, payment_id) WHERE status = 'PROCESSED' AND settlement_id IS NULL;
CREATE INDEX refunds_initiated_idx ON refunds (merchant_id, payment_id) WHERE status = 'INITIATED';

-- New outbox events and new deliveries wake the webhook workers of every process (D114): one notification per
-- statement that inserted rows (a statement inserting none, such as a fan-out with nothing to do, stays silent), and
-- PostgreSQL folds identical ones within a transaction.
CREATE FUNCTION paygate_notify_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted) THEN
    PERFORM pg_notify('paygate_webhooks', TG_TABLE_NAME);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER events_notify_webhooks AFTER INSERT ON events REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION paygate_notify_webhooks();
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION paygate_notify_webhooks();

-- A refund processed after its payment was settled is deducted in a later settlement as a `refund` line of that
-- payment, so a payment may now appear in more than one settlement: once as `capture`, then in `refund` lines.
ALTER TABLE settlement_transactions DROP CONSTRAINT settlement_transactions_payment_id_key;
CREATE UNIQUE INDEX settlement_transactions_capture_once ON settlement_transactions (payment_id) WHERE settlement_type = 'capture';
ALTER TABLE settlement_transactions ADD CONSTRAINT settlement_transactions_type_check CHECK (settlement_type IN ('capture', 'refund'));

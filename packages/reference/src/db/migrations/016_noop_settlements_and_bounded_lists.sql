-- Issue 33 (D343): a settlement run with nothing due reads nothing old.

-- Which settlement reserved an INITIATED refund, on the refund itself: "INITIATED and not reserved yet" is then a
-- partial index that is empty when nothing is due, instead of a probe of settlement_reserves per INITIATED refund.
ALTER TABLE refunds ADD COLUMN reserved_by text;
UPDATE refunds r SET reserved_by = sr.held_by FROM settlement_reserves sr WHERE sr.refund_id = r.id;
CREATE INDEX refunds_unreserved_idx ON refunds (merchant_id, payment_id) WHERE status = 'INITIATED' AND reserved_by IS NULL;

-- The planner's estimate of "PROCESSED and not deducted" / "INITIATED and not reserved" / "CAPTURED and not settled"
-- from per-column statistics multiplies two frequencies (hundreds of rows expected where there are none); the
-- combinations' own frequencies (multi-column MCV lists) tell it these partial indexes are (nearly) empty.
CREATE STATISTICS refunds_settlement_state (mcv) ON status, settlement_id, reserved_by FROM refunds;
CREATE STATISTICS payments_settlement_state (mcv) ON status, settlement_id FROM payments;
ANALYZE refunds;
ANALYZE payments;

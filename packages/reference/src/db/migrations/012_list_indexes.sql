-- Issue 22 (D108-D110): every list is served by an index in the order it sorts, starting with the tenant column.
-- Lists page by keyset on (sort column, id), so each index ends with (sort column, id).

-- Partner-wide lists need the partner on the row itself: an index on (partner_id, created_at, id) returns a
-- partner's newest payments without reading, let alone sorting, every payment of every merchant. A merchant never
-- changes partner, so the copy is filled once, on insert, by a trigger (every insert path, the bench's SQL seed too).
CREATE FUNCTION paygate_fill_partner_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.partner_id IS NULL THEN
    SELECT m.partner_id INTO NEW.partner_id FROM merchants m WHERE m.id = NEW.merchant_id;
  END IF;
  RETURN NEW;
END;
$$;

-- buyer_name filters by exact, case-insensitive equality (D109), so the order's buyer name is copied onto its
-- payments, lower-cased, where an index beside (created_at, id) serves it; kept in step when an order's buyer changes.
CREATE FUNCTION paygate_fill_payment_buyer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT lower(o.buyer->>'name') INTO NEW.buyer_name_key FROM orders o WHERE o.id = NEW.order_id;
  RETURN NEW;
END;
$$;

CREATE FUNCTION paygate_sync_payment_buyer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF lower(NEW.buyer->>'name') IS DISTINCT FROM lower(OLD.buyer->>'name') THEN
    UPDATE payments SET buyer_name_key = lower(NEW.buyer->>'name') WHERE order_id = NEW.id;
  END IF;
  RETURN NULL;
END;
$$;

ALTER TABLE payments ADD COLUMN partner_id text, ADD COLUMN buyer_name_key text;
UPDATE payments p SET partner_id = m.partner_id FROM merchants m WHERE m.id = p.merchant_id;
UPDATE payments p SET buyer_name_key = lower(o.buyer->>'name') FROM orders o WHERE o.id = p.order_id;
ALTER TABLE payments ALTER COLUMN partner_id SET NOT NULL;
CREATE TRIGGER payments_fill_partner BEFORE INSERT ON payments FOR EACH ROW EXECUTE FUNCTION paygate_fill_partner_id();
CREATE TRIGGER payments_fill_buyer BEFORE INSERT ON payments FOR EACH ROW EXECUTE FUNCTION paygate_fill_payment_buyer();
CREATE TRIGGER orders_sync_payment_buyer AFTER UPDATE OF buyer ON orders FOR EACH ROW EXECUTE FUNCTION paygate_sync_payment_buyer();

ALTER TABLE refunds ADD COLUMN partner_id text;
UPDATE refunds r SET partner_id = m.partner_id FROM merchants m WHERE m.id = r.merchant_id;
ALTER TABLE refunds ALTER COLUMN partner_id SET NOT NULL;
CREATE TRIGGER refunds_fill_partner BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION paygate_fill_partner_id();

ALTER TABLE settlements ADD COLUMN partner_id text;
UPDATE settlements s SET partner_id = m.partner_id FROM merchants m WHERE m.id = s.merchant_id;
ALTER TABLE settlements ALTER COLUMN partner_id SET NOT NULL;
CREATE TRIGGER settlements_fill_partner BEFORE INSERT ON settlements FOR EACH ROW EXECUTE FUNCTION paygate_fill_partner_id();

-- payments: newest first for a merchant or a partner, alone or with one equality filter the spec offers.
DROP INDEX payments_merchant_idx;
CREATE INDEX payments_merchant_list_idx ON payments (merchant_id, created_at, id);
CREATE INDEX payments_merchant_status_idx ON payments (merchant_id, status, created_at, id);
CREATE INDEX payments_merchant_mop_idx ON payments (merchant_id, mop_type, created_at, id);
CREATE INDEX payments_merchant_currency_idx ON payments (merchant_id, currency, created_at, id);
CREATE INDEX payments_merchant_buyer_idx ON payments (merchant_id, buyer_name_key, created_at, id);
CREATE INDEX payments_partner_list_idx ON payments (partner_id, created_at, id);
CREATE INDEX payments_partner_status_idx ON payments (partner_id, status, created_at, id);
CREATE INDEX payments_partner_mop_idx ON payments (partner_id, mop_type, created_at, id);
CREATE INDEX payments_partner_currency_idx ON payments (partner_id, currency, created_at, id);
CREATE INDEX payments_partner_buyer_idx ON payments (partner_id, buyer_name_key, created_at, id);

-- refunds, settlements (sorted on completed_at, which the old (merchant_id, created_at) index did not serve)
DROP INDEX refunds_merchant_idx;
CREATE INDEX refunds_merchant_list_idx ON refunds (merchant_id, created_at, id);
CREATE INDEX refunds_partner_list_idx ON refunds (partner_id, created_at, id);
DROP INDEX settlements_merchant_idx;
CREATE INDEX settlements_merchant_list_idx ON settlements (merchant_id, completed_at, id);
CREATE INDEX settlements_partner_list_idx ON settlements (partner_id, completed_at, id);

-- webhook deliveries of an endpoint (the (endpoint_id, created_at DESC, id DESC) index of 010 serves the unfiltered
-- list), with the status filter; endpoints and merchants of a tenant.
CREATE INDEX webhook_deliveries_endpoint_status_idx ON webhook_deliveries (endpoint_id, status, created_at, id);
CREATE INDEX webhook_endpoints_partner_list_idx ON webhook_endpoints (partner_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX webhook_endpoints_merchant_list_idx ON webhook_endpoints (merchant_id, created_at, id) WHERE deleted_at IS NULL;
DROP INDEX merchants_partner_idx;
CREATE INDEX merchants_partner_list_idx ON merchants (partner_id, created_at, id);

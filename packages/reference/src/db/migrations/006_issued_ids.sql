-- Every random row id is reserved here first, in the transaction that creates the row (core/deps.ts randomIds).
-- The primary key makes a concurrent twin wait for the first transaction: if that one commits, the twin's
-- INSERT ... ON CONFLICT DO NOTHING returns nothing and it draws again; if it rolls back, the twin gets the id.
-- (A plain "SELECT 1 ... WHERE id = $1" check cannot see a twin that is not committed yet.)
CREATE TABLE issued_ids (
  kind text NOT NULL,
  id text NOT NULL,
  PRIMARY KEY (kind, id)
);
INSERT INTO issued_ids (kind, id) SELECT 'merchant', id FROM merchants;
INSERT INTO issued_ids (kind, id) SELECT 'order', id FROM orders;
INSERT INTO issued_ids (kind, id) SELECT 'payment', id FROM payments;
INSERT INTO issued_ids (kind, id) SELECT 'refund', id FROM refunds;
INSERT INTO issued_ids (kind, id) SELECT 'transaction', transaction_id FROM refunds WHERE transaction_id IS NOT NULL;
INSERT INTO issued_ids (kind, id) SELECT 'settlement', id FROM settlements;

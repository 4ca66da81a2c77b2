/**
 * A merchant's history written straight through SQL (generate_series), for the list EXPLAIN test and the lists
 * benchmark: `n` orders with one payment each, a refund on every 10th payment, a settlement of three lines per 10
 * payments, and a webhook endpoint with a delivery per 10 payments. Seconds for 100k payments where the API would
 * take minutes. Rows look like the gateway's own (same columns, states and ids' shapes); the triggers of migration
 * 012 fill partner_id and buyer_name_key as they do for rows the API writes.
 */

/** What the seed needs of a database handle: Db, a pg.Client or a pg.Pool. */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface SeedHistoryOptions {
  merchantId: string;
  partnerId: string;
  /** Payments (and orders) to write. */
  payments: number;
  /** Distinguishes the ids of several seeds in one database (digits only: ids keep the gateway's shapes). */
  idPrefix: string;
  /** The first payment's created_at; each next one is a second later. */
  startIso?: string;
}

export interface SeededHistory {
  endpointId: string;
  /** A buyer name that the seed gave to some payments (buyer_name filter with matches). */
  buyerName: string;
  /** The reference_id of one seeded order, and its payment id. */
  referenceId: string;
  paymentId: string;
  /** The reference_id of an order whose payment has a refund. */
  refundReferenceId: string;
}

/** Mop types the seed uses in turn; QR is never used (a filter value with no match). */
const MOPS = `ARRAY['UPI', 'CREDIT_CARD', 'DEBIT_CARD', 'NET_BANKING']`;

export async function seedHistory(db: SqlRunner, o: SeedHistoryOptions): Promise<SeededHistory> {
  if (!/^\d{1,6}$/.test(o.idPrefix)) throw new Error('idPrefix: 1-6 digits');
  const start = o.startIso ?? '2026-01-01T00:00:00Z';
  const pad = 16 - o.idPrefix.length; // OD / PR / RF + 16 digits
  const id = (letters: string, expr: string) => `'${letters}${o.idPrefix}' || lpad((${expr})::text, ${pad}, '0')`;
  const at = (expr: string) => `$3::timestamptz + ((${expr}) * interval '1 second')`;
  const params = [o.merchantId, o.payments, start];
  await db.query(
    `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                         buyer, product, is_testing, expires_at, created_at, updated_at)
     SELECT ${id('OD', 'i')}, $1, 'seed-${o.idPrefix}-' || i, 1000 + i, CASE WHEN i % 10 = 0 THEN 'USD' ELSE 'INR' END,
            'payment_successful', 'Payment successful', 'hosted_payment', (${MOPS})[1 + i % 4],
            jsonb_build_object('name', 'Buyer ' || (i % 50), 'email', 'buyer' || i || '@example.com', 'phone', '+9198765' || lpad((i % 100000)::text, 5, '0')),
            '{"name": "Widget", "quantity": 1}'::jsonb, true, ${at('i')} + interval '1 day', ${at('i')}, ${at('i')}
     FROM generate_series(1, $2::int) AS i`,
    params,
  );
  await db.query(
    `INSERT INTO payments (id, order_id, merchant_id, status, status_message, mop_type, collection_mode, amount_minor, currency,
                           bank_ref_num, settlement_status, completed_at, created_at, updated_at)
     SELECT ${id('PR', 'i')}, ${id('OD', 'i')}, $1, CASE WHEN i % 20 = 0 THEN 'FAILED' ELSE 'CAPTURED' END, 'seeded',
            (${MOPS})[1 + i % 4], 'HOSTED_PAYMENT', 1000 + i, CASE WHEN i % 10 = 0 THEN 'USD' ELSE 'INR' END,
            'BRN' || i, CASE WHEN i % 20 = 0 THEN 'not_applicable' ELSE 'pending' END, ${at('i')}, ${at('i')}, ${at('i')}
     FROM generate_series(1, $2::int) AS i`,
    params,
  );
  await db.query(
    `INSERT INTO refunds (id, payment_id, merchant_id, amount_minor, currency, status, message, transaction_id, refunded_at, created_at, updated_at)
     SELECT ${id('RF', 'i')}, ${id('PR', 'i')}, $1, 100, CASE WHEN i % 10 = 0 THEN 'USD' ELSE 'INR' END, 'PROCESSED',
            'Refund processed successfully', ${id('TX', 'i')}, ${at('i + 60')}, ${at('i + 30')}, ${at('i + 60')}
     FROM generate_series(3, $2::int, 10) AS i`,
    params,
  );
  // a settlement per 10 payments, holding the captures of three of them (lines 0..2)
  await db.query(
    `INSERT INTO settlements (id, merchant_id, transaction_currency, settlement_currency, forex_rate_cents, forex_rate_num, forex_rate_den,
                              gross_minor, fee_minor, tax_minor, refunds_minor, net_minor, settlement_amount_cents, utr_number,
                              completed_at, created_at, status, number_of_transactions)
     SELECT ${id('ST', 'k')}, $1, 'INR', 'INR', 100, 1, 1, 3000, 30, 6, 0, 2964, 2964, 'UTR${o.idPrefix}' || k, ${at('k * 10 + 5')}, ${at('k * 10 + 4')},
            'completed', 3
     FROM generate_series(1, $2::int / 10) AS k`,
    params,
  );
  await db.query(
    `INSERT INTO settlement_transactions (settlement_id, payment_id, settlement_type, transaction_amount, fee_minor, tax_minor, refunds_minor,
                                          net_minor, mop_type, transaction_currency, forex_rate_cents, position)
     SELECT ${id('ST', 'k')}, ${id('PR', 'k * 10 - 9 + j')}, 'capture', 1000, 10, 2, 0, 988, 'UPI', 'INR', 100, j
     FROM generate_series(1, $1::int / 10) AS k, generate_series(0, 2) AS j`,
    [o.payments],
  );
  const endpointId = `we_seed${o.idPrefix.padEnd(20, '0')}`;
  await db.query(
    `INSERT INTO webhook_endpoints (id, owner_kind, partner_id, merchant_id, url, events, secret_sealed, created_at)
     VALUES ($1, 'merchant', $2, $3, 'https://receiver.example/hooks', '["PAYMENT_CAPTURED"]'::jsonb, 'sealed-not-used', $4)`,
    [endpointId, o.partnerId, o.merchantId, start],
  );
  await db.query(
    `WITH ev AS (
       INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at, fanned_out_at)
       SELECT gen_random_uuid(), 'PAYMENT_CAPTURED', $4, $1, '{}'::json, ${at('i')}, ${at('i')}
       FROM generate_series(1, $2::int, 10) AS i
       RETURNING sequence_number, created_at)
     INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempt, next_attempt_at, created_at, updated_at)
     SELECT sequence_number, $5, 'succeeded', 1, created_at, created_at, created_at FROM ev`,
    [...params, o.partnerId, endpointId],
  );
  const refunded = Math.floor(o.payments / 20) * 10 + 3; // refunds are on payments 3, 13, 23, ...
  return {
    endpointId,
    buyerName: 'Buyer 7',
    refundReferenceId: `seed-${o.idPrefix}-${refunded}`,
    referenceId: `seed-${o.idPrefix}-${Math.ceil(o.payments / 2)}`,
    paymentId: `PR${o.idPrefix}${String(Math.ceil(o.payments / 2)).padStart(pad, '0')}`,
  };
}

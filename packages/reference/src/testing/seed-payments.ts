import pg from 'pg';

/**
 * Seed `count` captured, unsettled payments (each with its paid order) for one merchant straight through SQL: how the
 * settlement benchmark and fault tests get 100k payments in seconds. Ids are `OD9<n>` / `PR9<n>` from `firstSerial`
 * (digits only, as the spec's patterns ask), reserved in issued_ids like any id the gateway draws. Amounts vary (100.00
 * to 199.99 INR), so sums are not trivially count x amount.
 */
export async function seedCapturedPayments(databaseUrl: string, merchantId: string, count: number, firstSerial = 1): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const chunk = 50_000;
    for (let from = firstSerial; from < firstSerial + count; from += chunk) {
      const to = Math.min(from + chunk, firstSerial + count) - 1;
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                             buyer, product, is_testing, expires_at, created_at, updated_at)
         SELECT 'OD9' || lpad(g::text, 12, '0'), $1, 'seed-' || g, 10000 + (g * 7919) % 10000, 'INR', 'payment_successful', 'Payment successful',
                'hosted_payment', 'UPI', '{"name": "Seed Buyer"}'::jsonb, '{"name": "Seed"}'::jsonb, true,
                now() + interval '1 day', now() - interval '1 hour' + g * interval '1 millisecond', now()
         FROM generate_series($2::bigint, $3::bigint) g`,
        [merchantId, from, to],
      );
      await client.query(
        `INSERT INTO payments (id, order_id, merchant_id, status, status_message, mop_type, collection_mode, amount_minor, currency,
                               bank_ref_num, settlement_status, completed_at, created_at, updated_at)
         SELECT 'PR9' || lpad(g::text, 12, '0'), 'OD9' || lpad(g::text, 12, '0'), $1, 'CAPTURED', 'Payment successful', 'UPI', 'hosted_payment',
                10000 + (g * 7919) % 10000, 'INR', 'BRN' || g, 'ready_for_settlement', now(), now() - interval '1 hour' + g * interval '1 millisecond', now()
         FROM generate_series($2::bigint, $3::bigint) g`,
        [merchantId, from, to],
      );
      await client.query(
        `INSERT INTO issued_ids (kind, id) SELECT k, p || lpad(g::text, 12, '0') FROM generate_series($1::bigint, $2::bigint) g,
           (VALUES ('order', 'OD9'), ('payment', 'PR9')) AS v(k, p)`,
        [from, to],
      );
      await client.query('COMMIT');
    }
    await client.query('ANALYZE orders; ANALYZE payments');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/**
 * The baseline of the POST order goal: the createOrder (hosted) transaction's statements, as
 * packages/reference/src/orders/service.ts sends them, straight through `pg` with the gateway's default pool size.
 * Shared by `npm run bench` (section `post`) and bench/tools/post-order-cpu.ts, so both judge against the same loop.
 */
import { randomBytes, randomInt } from 'node:crypto';
import pg from 'pg';
import { createHostedOrderBody } from './fixtures.js';

export interface PgLoopResult {
  rps: number;
  p50: number;
  p99: number;
  /** CPU seconds of this process (user + system) per transaction: the pg client side of the loop. */
  cpuPerTx: number;
}

export interface PgLoopOptions {
  url: string;
  merchantId: string;
  workers: number;
  poolSize: number;
}

/** What the loop runs, for its row's name. */
export const PG_LOOP_DESCRIPTION = 'createOrder transaction (BEGIN, merchant, id, order + session, COMMIT)';

/** A pool and a driver of the loop: `drive(seconds)` as often as wanted, then `end()`. */
export function pgCreateOrderLoop(o: PgLoopOptions): { drive(seconds: number): Promise<PgLoopResult>; end(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: o.url, max: o.poolSize, options: '-c TimeZone=UTC' });
  const body = createHostedOrderBody() as { buyer: unknown; product: unknown; invoice: unknown; return_url: string };
  const run = Date.now();
  let n = 0;
  const one = async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows: m } = await client.query<{ encryption_key_version: number }>(
        `SELECT kyc_status, company_details->>'brand_name' AS brand_name, partner_id, encryption_key_version,
                coalesce((SELECT mc.offset_seconds FROM merchant_clocks mc WHERE mc.merchant_id = id), 0) AS clock_offset_seconds
         FROM merchants WHERE id = $1`,
        [o.merchantId],
      );
      const orderId = `OD${String(randomInt(1e8)).padStart(8, '0')}${String(randomInt(1e8)).padStart(8, '0')}`;
      await client.query('INSERT INTO issued_ids (kind, id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id', ['order', orderId]);
      const now = new Date().toISOString();
      await client.query(
        `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, mop_type,
                             upi_flow_type, vpa, upi_app_name, intent_uri, buyer, product, invoice, return_url, is_testing,
                             expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'payment_pending', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)
         ON CONFLICT ON CONSTRAINT orders_reference_unique DO NOTHING
         RETURNING id`,
        [
          orderId,
          o.merchantId,
          `pgloop-${run}-${n++}`,
          150000,
          'INR',
          'Awaiting payment',
          'hosted_payment',
          'UPI',
          null,
          null,
          null,
          null,
          JSON.stringify(body.buyer),
          JSON.stringify(body.product),
          JSON.stringify(body.invoice),
          body.return_url,
          true,
          now,
          now,
        ],
      );
      await client.query(
        'INSERT INTO checkout_sessions (id, order_id, expires_at, created_at, encryption_key_version) VALUES ($1, $2, $3, $4, $5)',
        [`session_${randomBytes(32).toString('base64url')}`, orderId, now, now, m[0]!.encryption_key_version],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  return {
    async drive(seconds) {
      const latencies: number[] = [];
      const cpu = process.cpuUsage();
      const end = performance.now() + seconds * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: o.workers }, async () => {
          while (performance.now() < end) {
            const t = performance.now();
            await one();
            latencies.push(performance.now() - t);
            done++;
          }
        }),
      );
      const used = process.cpuUsage(cpu);
      latencies.sort((a, b) => a - b);
      return {
        rps: done / seconds,
        p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
        p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
        cpuPerTx: (used.user + used.system) / 1e6 / Math.max(done, 1),
      };
    },
    end: () => pool.end(),
  };
}

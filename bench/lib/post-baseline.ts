/**
 * The baseline of the POST order goal: the statements the gateway sends for one hosted order, straight through `pg`
 * with the gateway's default pool size. Shared by `npm run bench` (section `post`) and bench/tools/post-order-cpu.ts,
 * so both judge against the same loop.
 *
 * D174: the loop sends the gateway's own statement text (imported from orders/service.ts, so the two cannot drift) as
 * a named prepared statement, as the gateway's pool does (D86 named prepared statements on PostgreSQL), with the parameters the gateway binds for the
 * benchmark's request (a partner naming its merchant: the `owned` variant). Before D174 it sent six unnamed
 * statements (BEGIN, merchant, id, order, session, COMMIT) while the gateway sent five prepared ones: a baseline
 * doing more work than the gateway, which flattered the ratio.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createHostedOrderBody } from './fixtures.js';
import { newRandomId, newSessionId } from '../../packages/reference/src/core/ids.js';
import { normalizeOrderInput, type CreateOrderInput } from '../../packages/reference/src/orders/input.js';
import { HOSTED_ORDER_SQL, hostedOrderValues } from '../../packages/reference/src/orders/service.js';

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
  /** The partner owning the merchant (the gateway checks it in the same statement). */
  partnerId: string;
  workers: number;
  poolSize: number;
}

/** What the loop runs, for its row's name. */
export const PG_LOOP_DESCRIPTION = "the gateway's hosted-order statement (merchant, id, order, session: one round trip, D175)";

/** One unit of the loop: send one order's statements on `pool`. */
export type PgOrderStatements = (pool: pg.Pool, merchantId: string, partnerId: string, referenceId: string) => Promise<void>;

const body = createHostedOrderBody() as CreateOrderInput;

/**
 * The gateway's statement for a hosted order (orders/service.ts `HOSTED_ORDER_SQL.owned`) with the parameters it binds
 * (`hostedOrderValues`, from the same request body), prepared once per connection.
 */
export const gatewayStatements: PgOrderStatements = async (pool, merchantId, partnerId, referenceId) => {
  const input = { ...body, reference_id: referenceId };
  const { rows } = await pool.query<{ created: boolean }>({
    name: 'bench_hosted_order',
    text: HOSTED_ORDER_SQL.owned,
    values: hostedOrderValues({
      orderId: newRandomId('order'),
      merchantId,
      input,
      n: normalizeOrderInput(input),
      isTesting: true,
      now: new Date().toISOString(),
      sessionId: newSessionId(),
      owner: partnerId,
    }),
  });
  if (rows[0]?.created !== true) throw new Error(`pg-alone order not created: ${JSON.stringify(rows[0])}`);
};

/** A pool and a driver of the loop: `drive(seconds)` as often as wanted, then `end()`. */
export function pgCreateOrderLoop(
  o: PgLoopOptions,
  statements: PgOrderStatements = gatewayStatements,
): { drive(seconds: number): Promise<PgLoopResult>; end(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: o.url, max: o.poolSize, options: '-c TimeZone=UTC' });
  const run = randomUUID(); // unique per loop: two loops of one process never share a reference_id
  let n = 0;
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
            await statements(pool, o.merchantId, o.partnerId, `pgloop-${run}-${n++}`);
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

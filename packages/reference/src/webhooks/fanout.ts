import { formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { merchantNowSql } from '../core/merchant-clock.js';
import { insertSql, Placeholders, sql } from '../db/insert.js';

/**
 * The deliveries of the claimed events `ev` (one per subscribed endpoint), pending from the event's merchant's now:
 * the webhook_deliveries row's one column list (D460, "An INSERT is built from its table's column list"). `$2` is the gateway's now, as in {@link fanOutEvents}.
 */
const INSERT_DELIVERIES = insertSql(
  'webhook_deliveries',
  {
    event_id: sql('ev.sequence_number'),
    endpoint_id: sql('w.id'),
    status: sql("'pending'"),
    next_attempt_at: sql('t.now'),
    created_at: sql('t.now'),
    updated_at: sql('t.now'),
  },
  new Placeholders<never>(),
  {
    from: `ev JOIN webhook_endpoints w
         ON w.partner_id = ev.partner_id AND (w.merchant_id IS NULL OR w.merchant_id = ev.merchant_id)
        AND w.deleted_at IS NULL AND w.disabled_at IS NULL AND w.events @> jsonb_build_array(ev.type)
        AND w.events_after_position < ev.position
       CROSS JOIN LATERAL (SELECT ${merchantNowSql('$2', 'ev.merchant_id')} AS now) t
       ORDER BY ev.position, w.id`,
    tail: `ON CONFLICT ON CONSTRAINT webhook_deliveries_event_endpoint DO NOTHING
       RETURNING 1`,
  },
);

/**
 * Turn new outbox events into one delivery per subscribed endpoint: partner endpoints receive every event of their
 * merchants, merchant endpoints their own; each only events created after it was registered (D79 410 Gone disables an endpoint, enable endpoint), none while it is
 * disabled (410 Gone). Up to `limit` events are claimed with SKIP LOCKED and, in the same statement, fanned out with
 * one INSERT ... SELECT and marked fanned out (D114: a batch costs one round trip, not two per event); (event,
 * endpoint) is unique, so a replay cannot duplicate deliveries. Returns events processed.
 */
export async function fanOutEvents(deps: ServiceDeps, limit = 100): Promise<number> {
  const now = formatIso(deps.clock.now());
  // delivery times are on the event's merchant's sandbox clock, so moving that clock moves its retries (D38 per-merchant sandbox clocks)
  const { rows } = await deps.db.query<{ events: number }>(
    `WITH ev AS (
       SELECT sequence_number, type, partner_id, merchant_id, position FROM events
       WHERE fanned_out_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), ins AS (
       ${INSERT_DELIVERIES}
     ), marked AS (
       UPDATE events e SET fanned_out_at = $2 FROM ev WHERE e.sequence_number = ev.sequence_number RETURNING 1
     )
     SELECT (SELECT count(*) FROM marked) AS events, (SELECT count(*) FROM ins) AS deliveries`,
    [limit, now],
  );
  return rows[0]?.events ?? 0;
}

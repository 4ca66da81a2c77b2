import { formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { merchantNowSql } from '../core/merchant-clock.js';

/**
 * Turn new outbox events into one delivery per subscribed endpoint: partner endpoints receive every event of their
 * merchants, merchant endpoints their own; each only events created after it was registered (D79), none while it is
 * disabled (410 Gone). Events are claimed with SKIP LOCKED and marked fanned out in the same
 * transaction; (event, endpoint) is unique, so a replay cannot duplicate deliveries. Returns events processed.
 */
export async function fanOutEvents(deps: ServiceDeps, limit = 100): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const now = formatIso(deps.clock.now());
    const { rows } = await tx.query<{ sequence_number: string; type: string; partner_id: string; merchant_id: string; position: string }>(
      `SELECT sequence_number, type, partner_id, merchant_id, position FROM events
       WHERE fanned_out_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    for (const e of rows) {
      // delivery times are on the event's merchant's sandbox clock, so moving that clock moves its retries (D38)
      await tx.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
         SELECT $1, w.id, 'pending', t.now, t.now, t.now FROM webhook_endpoints w, (SELECT ${merchantNowSql('$5', '$4')} AS now) t
         WHERE w.deleted_at IS NULL AND w.disabled_at IS NULL AND w.events @> jsonb_build_array($2::text)
           AND w.events_after_position < $6::bigint
           AND w.partner_id = $3 AND (w.merchant_id IS NULL OR w.merchant_id = $4)
         ON CONFLICT ON CONSTRAINT webhook_deliveries_event_endpoint DO NOTHING`,
        [e.sequence_number, e.type, e.partner_id, e.merchant_id, now, e.position],
      );
      await tx.query('UPDATE events SET fanned_out_at = $2 WHERE sequence_number = $1', [e.sequence_number, now]);
    }
    return rows.length;
  });
}

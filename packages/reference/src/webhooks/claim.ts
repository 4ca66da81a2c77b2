import { formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { latestNowSql, merchantNowSql, merchantOffsetSql } from '../core/merchant-clock.js';

/**
 * Fair webhook claim (D342 fair webhook claim across endpoints): one merchant's outage or backlog never delays another merchant's deliveries, and a claim
 * costs the same whatever any endpoint's backlog.
 *
 * 1. Endpoints with due work: a skip scan over the endpoints that have pending or in-flight deliveries (one index
 *    descent per endpoint, never a walk over one endpoint's entries), each with the due time of its oldest due
 *    delivery (one index probe). Disabled endpoints and failing ones backed off until `retry_after` (endpoint-health.ts)
 *    are left out without reading their deliveries. The endpoints whose oldest due work waited longest come first, at
 *    most `room` of them: a round robin by waiting time.
 * 2. Each of them is locked for the claim (`pg_try_advisory_xact_lock`, transaction-scoped, so it holds behind a
 *    transaction pooler too): an endpoint another process is claiming from right now is skipped this time.
 * 3. In a second statement (a fresh snapshot, taken after the locks: it sees every claim committed before), each
 *    endpoint's share is fixed BEFORE the global window: what its in-flight deliveries (status `delivering` with a live
 *    lease, in any process) leave of the per-endpoint cap, and at most an even part of the room; a failing endpoint
 *    gets one delivery, a probe. Then at most `room` deliveries in all, oldest endpoints first.
 * So an old backlog of one endpoint fills at most its share, and the cap holds across processes.
 */

/** Advisory lock class of an endpoint's claim (the two-int form: apart from the idempotency keys' bigint locks). */
const CLAIM_LOCK_CLASS = 0x7067_6377; // "pgcw"

export interface ClaimedRow {
  id: number;
  attempt: number;
  event_id: string;
  payload: unknown;
  url: string;
  endpoint_id: string;
  secret_sealed: string;
  endpoint_deleted: boolean;
  clock_offset_seconds: number;
}

export interface FairClaimOptions {
  /** Deliveries to claim at most. */
  room: number;
  /** Most deliveries of one endpoint in flight at once, across processes. */
  perEndpointCap: number;
  /** Seconds a claimed delivery stays claimed (a sender that died frees it after this). */
  leaseSeconds: number;
  /**
   * Deliveries of each endpoint this process counts in flight (for a caller that knows better than the database: a
   * delivery sent and not yet recorded). The larger of this and the database's count is used.
   */
  busy?: ReadonlyMap<string, number>;
}

export async function claimFairly(deps: ServiceDeps, options: FairClaimOptions): Promise<ClaimedRow[]> {
  const room = Math.max(0, Math.floor(options.room));
  const cap = Math.max(1, Math.floor(options.perEndpointCap));
  if (room === 0) return [];
  const base = formatIso(deps.clock.now());
  const latestNow = latestNowSql('$1');
  const busy = [...(options.busy ?? new Map<string, number>())].filter(([, n]) => n > 0);
  return deps.db.transaction(async (tx) => {
    const { rows: endpoints } = await tx.query<{ id: string; failing: boolean }>(
      `WITH RECURSIVE active AS (
         (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status IN ('pending', 'delivering') ORDER BY d.endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
                 WHERE d.status IN ('pending', 'delivering') AND d.endpoint_id > a.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
         FROM active a WHERE a.endpoint_id IS NOT NULL
       ), heads AS (
         SELECT w.id, w.failing_since IS NOT NULL AS failing, least(
           (SELECT d.next_attempt_at FROM webhook_deliveries d
            WHERE d.endpoint_id = w.id AND d.status IN ('pending', 'delivering') AND d.status = 'pending' AND d.next_attempt_at <= ${latestNow}
            ORDER BY d.next_attempt_at LIMIT 1),
           (SELECT d.lease_expires_at FROM webhook_deliveries d
            WHERE d.endpoint_id = w.id AND d.status = 'delivering' AND d.lease_expires_at <= ${latestNow}
            ORDER BY d.lease_expires_at LIMIT 1)) AS head
         FROM active a JOIN webhook_endpoints w ON w.id = a.endpoint_id
         -- the backoff is on the gateway's clock; a sandbox merchant's clock moved ahead (D38) ends it too (its
         -- deliveries are then due on that clock: this is the latest "now" of any merchant, the gateway's in production)
         WHERE w.disabled_at IS NULL AND (w.retry_after IS NULL OR w.retry_after <= ${latestNow})
       ), oldest AS (
         SELECT id, failing, head FROM heads WHERE head IS NOT NULL ORDER BY head, id LIMIT $2
       )
       SELECT id, failing FROM oldest WHERE pg_try_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext(oldest.id)) ORDER BY head, id`,
      [base, room],
    );
    if (endpoints.length === 0) return [];
    const merchantNow = merchantNowSql('$1', 'e.merchant_id');
    // Each endpoint's probes end at a constant LIMIT (the cap, an integer we computed, inlined): with a LIMIT the
    // planner cannot see (the share), it estimated a tenth of the endpoint's backlog and read all of it by bitmap scan
    // to sort it; with a small constant one it walks the endpoint's due index in order and stops.
    const { rows } = await tx.query<ClaimedRow>(
      `WITH ep AS (
         SELECT u.id, u.failing, u.ord, greatest(coalesce(b.n, 0), (
           SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries d
                                 WHERE d.endpoint_id = u.id AND d.status = 'delivering' AND d.lease_expires_at > ${latestNow} LIMIT $5) f
         )) AS in_flight
         FROM unnest($2::text[], $3::boolean[]) WITH ORDINALITY AS u(id, failing, ord)
           LEFT JOIN unnest($7::text[], $8::int[]) AS b(endpoint_id, n) ON b.endpoint_id = u.id
       ), shares AS (
         SELECT id, ord, greatest(0, least($5::int - in_flight, CASE WHEN failing THEN 1 ELSE greatest(1, $4::int / count(*) OVER ()) END)) AS share
         FROM ep
       ), picked AS (
         SELECT c.id, s.ord, c.at FROM shares s CROSS JOIN LATERAL (
           SELECT x.id, x.at FROM (
             (SELECT d.id, d.next_attempt_at AS at FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id
              WHERE d.endpoint_id = s.id AND d.status IN ('pending', 'delivering') AND d.status = 'pending'
                AND d.next_attempt_at <= ${latestNow} AND d.next_attempt_at <= ${merchantNow}
              ORDER BY d.next_attempt_at LIMIT ${cap})
             UNION ALL
             (SELECT d.id, d.lease_expires_at AS at FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id
              WHERE d.endpoint_id = s.id AND d.status = 'delivering' AND d.lease_expires_at <= ${latestNow} AND d.lease_expires_at <= ${merchantNow}
              ORDER BY d.lease_expires_at LIMIT ${cap})
           ) x ORDER BY x.at LIMIT s.share
         ) c WHERE s.share > 0
       ), windowed AS (
         SELECT id FROM picked ORDER BY ord, at LIMIT $4
       ), locked AS (
         SELECT d.id FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id
         WHERE d.id IN (SELECT id FROM windowed)
           AND ((d.status = 'pending' AND d.next_attempt_at <= ${merchantNow}) OR (d.status = 'delivering' AND d.lease_expires_at <= ${merchantNow}))
         FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries d SET status = 'delivering', attempt = d.attempt + 1,
              lease_expires_at = ${merchantNow} + $6::int * interval '1 second', updated_at = ${merchantNow}
       FROM locked, events e, webhook_endpoints w
       WHERE d.id = locked.id AND e.sequence_number = d.event_id AND w.id = d.endpoint_id
       RETURNING d.id, d.attempt, d.event_id, e.payload, w.url, d.endpoint_id, w.secret_sealed,
                 (w.deleted_at IS NOT NULL) AS endpoint_deleted, ${merchantOffsetSql('e.merchant_id')} AS clock_offset_seconds`,
      [
        base,
        endpoints.map((e) => e.id),
        endpoints.map((e) => e.failing),
        room,
        cap,
        options.leaseSeconds,
        busy.map(([id]) => id),
        busy.map(([, n]) => n),
      ],
    );
    return rows;
  });
}

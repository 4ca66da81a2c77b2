import { addSeconds, formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import type { AttemptResult, ClaimedDelivery } from './deliveries.js';
import { SECRET_UNAVAILABLE_ERROR } from './deliveries.js';

/**
 * Endpoint-level backoff (D342 fair webhook claim across endpoints): an endpoint whose attempt failed (non-2xx, network error, timeout) is marked failing
 * and is not claimed from again before `retry_after`; then the claim gives it one delivery, a probe, until an attempt
 * succeeds and clears the mark. A failing endpoint with a backlog of 50,000 due deliveries costs one attempt per
 * backoff instead of a stream of failures, and its backlog is never read meanwhile (claim.ts skips it). Deliveries keep
 * their own retry schedule; the endpoint's backoff only holds them back while the endpoint is down.
 */

/** The longest an endpoint is backed off between probes, whatever the retry schedule. */
export const MAX_ENDPOINT_BACKOFF_SECONDS = 60;

/**
 * The backoff after a failed attempt: the schedule's first delay less its jitter (never later than the earliest
 * retry any delivery of the endpoint can have drawn), at most {@link MAX_ENDPOINT_BACKOFF_SECONDS}.
 */
export function endpointBackoffSeconds(schedule: readonly number[], jitter: number): number {
  const first = schedule[0] ?? 0;
  return Math.max(0, Math.min(MAX_ENDPOINT_BACKOFF_SECONDS, first * (1 - Math.max(0, Math.min(1, jitter)))));
}

/** Whether an attempt says something about the receiver (not a deleted endpoint or a secret this process cannot open). */
function aboutReceiver(d: ClaimedDelivery, result: AttemptResult): boolean {
  return !d.endpoint_deleted && result.error !== SECRET_UNAVAILABLE_ERROR;
}

/**
 * Record what a batch of attempts says of their endpoints, in one statement: any success clears an endpoint's failing
 * mark; otherwise a failure marks it failing until now + backoff. Endpoints whose mark does not change are not written
 * (a healthy endpoint's successes cost no write).
 */
export async function noteEndpointHealth(
  deps: ServiceDeps,
  items: readonly { d: ClaimedDelivery; result: AttemptResult }[],
  backoffSeconds: number,
): Promise<void> {
  const byEndpoint = new Map<string, boolean>();
  for (const { d, result } of items) {
    if (!aboutReceiver(d, result)) continue;
    byEndpoint.set(d.endpoint_id, (byEndpoint.get(d.endpoint_id) ?? false) || result.ok);
  }
  if (byEndpoint.size === 0) return;
  const now = deps.clock.now();
  await deps.db.query(
    `UPDATE webhook_endpoints w
     SET failing_since = CASE WHEN u.ok THEN NULL ELSE coalesce(w.failing_since, $3::timestamptz) END,
         retry_after = CASE WHEN u.ok THEN NULL ELSE $4::timestamptz END
     FROM unnest($1::text[], $2::boolean[]) AS u(id, ok)
     WHERE w.id = u.id AND (NOT u.ok OR w.failing_since IS NOT NULL)`,
    [[...byEndpoint.keys()], [...byEndpoint.values()], formatIso(now), formatIso(addSeconds(now, backoffSeconds))],
  );
}

import { buildWebhookHeaders } from '@paygate/webhooks';
import { addSeconds, formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { openWebhookSecret } from './endpoints.js';
import { retryDelayMs } from './retry.js';

export interface ClaimedDelivery {
  id: number;
  attempt: number;
  event_id: string;
  payload: unknown;
  url: string;
  /** The endpoint's signing secret, opened from its sealed column; null when it does not open (wrong master key). */
  secret: string | null;
  endpoint_deleted: boolean;
}

interface ClaimedRow extends Omit<ClaimedDelivery, 'secret'> {
  endpoint_id: string;
  secret_sealed: string;
}

/** Recorded as the attempt's error when the signing secret cannot be opened (nothing is sent unsigned). */
export const SECRET_UNAVAILABLE_ERROR = 'signing secret does not open with this PAYGATE_MASTER_KEY';

/** A claimed delivery whose sender died becomes claimable again after this lease. */
export const DELIVERY_LEASE_SECONDS = 60;
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Claim due deliveries (pending and due, or delivering with an expired lease) with FOR UPDATE SKIP LOCKED, marking
 * them `delivering` with a lease and the next attempt number, so two processes never send the same attempt.
 */
export async function claimDueDeliveries(deps: ServiceDeps, limit = 20): Promise<ClaimedDelivery[]> {
  return deps.db.transaction(async (tx) => {
    const at = deps.clock.now();
    const now = formatIso(at);
    const { rows } = await tx.query<{ id: number }>(
      `SELECT id FROM webhook_deliveries
       WHERE (status = 'pending' AND next_attempt_at <= $1) OR (status = 'delivering' AND lease_expires_at <= $1)
       ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const { rows: claimed } = await tx.query<ClaimedRow>(
      `UPDATE webhook_deliveries d SET status = 'delivering', attempt = d.attempt + 1, lease_expires_at = $2, updated_at = $3
       FROM events e, webhook_endpoints w
       WHERE d.id = ANY($1::bigint[]) AND e.sequence_number = d.event_id AND w.id = d.endpoint_id
       RETURNING d.id, d.attempt, d.event_id, e.payload, w.url, d.endpoint_id, w.secret_sealed,
                 (w.deleted_at IS NOT NULL) AS endpoint_deleted`,
      [ids, formatIso(addSeconds(at, DELIVERY_LEASE_SECONDS)), now],
    );
    const out: ClaimedDelivery[] = [];
    const opened = new Map<string, string | null>();
    for (const row of claimed) {
      let secret = opened.get(row.endpoint_id);
      if (secret === undefined) {
        try {
          secret = row.endpoint_deleted ? null : openWebhookSecret(deps.secrets, row);
        } catch {
          secret = null; // recorded as a failed attempt (SECRET_UNAVAILABLE_ERROR) and retried on schedule
        }
        opened.set(row.endpoint_id, secret);
      }
      out.push({ id: row.id, attempt: row.attempt, event_id: row.event_id, payload: row.payload, url: row.url, secret, endpoint_deleted: row.endpoint_deleted });
    }
    return out;
  });
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  startedAt: number;
}

/**
 * POST one delivery with the Standard Webhooks headers (webhook-id = msg_<sequence_number>, stable across retries;
 * webhook-timestamp = real unix seconds so receivers' tolerance checks work even when sandbox time is shifted).
 * 2xx = success; anything else, a network error or the 10 s timeout = failure. Redirects are not followed.
 */
export async function sendDelivery(
  deps: ServiceDeps,
  d: ClaimedDelivery,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<AttemptResult> {
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  if (d.endpoint_deleted) return { ok: false, statusCode: null, error: 'endpoint deleted', durationMs: 0, startedAt };
  if (d.secret === null) return { ok: false, statusCode: null, error: SECRET_UNAVAILABLE_ERROR, durationMs: 0, startedAt };
  const body = JSON.stringify(d.payload);
  const headers = buildWebhookHeaders({ secret: d.secret, msgId: `msg_${d.event_id}`, timestamp: new Date(), payload: body });
  try {
    const res = await (options.fetch ?? fetch)(d.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Paygate-Webhooks/1.0' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined); // drain so the connection is reused
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, error: ok ? null : `HTTP ${res.status}`, durationMs: Math.round(performance.now() - t0), startedAt };
  } catch (err) {
    const e = err as Error;
    const error = e.name === 'TimeoutError' ? `timeout after ${options.timeoutMs ?? DELIVERY_TIMEOUT_MS} ms` : `${e.name}: ${e.message}`;
    return { ok: false, statusCode: null, error: error.slice(0, 500), durationMs: Math.round(performance.now() - t0), startedAt };
  }
}

/**
 * Record the attempt and move the delivery on: succeeded; or pending again at now + schedule[attempt-1] +-jitter;
 * or failed (given up) after the last delay, or when the endpoint was deleted. Only the current claim may record.
 */
export async function recordAttempt(
  deps: ServiceDeps,
  d: ClaimedDelivery,
  result: AttemptResult,
  schedule: readonly number[],
  jitter = 0.1,
): Promise<'succeeded' | 'retry' | 'failed'> {
  return deps.db.transaction(async (tx) => {
    const at = deps.clock.now();
    const now = formatIso(at);
    const inserted = await tx.query(
      `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, attempt) DO NOTHING RETURNING id`,
      [d.id, d.attempt, formatIso(result.startedAt), result.durationMs, result.statusCode, result.error],
    );
    if (inserted.rows.length === 0) return 'failed';
    const delay = result.ok || d.endpoint_deleted ? null : retryDelayMs(schedule, d.attempt, jitter);
    const outcome = result.ok ? 'succeeded' : delay === null ? 'failed' : 'retry';
    await tx.query(
      `UPDATE webhook_deliveries SET status = $3, next_attempt_at = $4, lease_expires_at = NULL, last_status_code = $5,
              last_error = $6, updated_at = $7
       WHERE id = $1 AND attempt = $2 AND status = 'delivering'`,
      [
        d.id,
        d.attempt,
        outcome === 'retry' ? 'pending' : outcome,
        outcome === 'retry' ? formatIso(addSeconds(at, (delay ?? 0) / 1000)) : now,
        result.statusCode,
        result.error,
        now,
      ],
    );
    return outcome;
  });
}

// D171: signing alone, not the package index (its generated event validators: start-up cost)
import { buildWebhookHeaders } from '@paygate/webhooks/runtime/signing.js';
import { addSeconds, formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import type { Db } from '../db/db.js';
import { shifted } from '../core/merchant-clock.js';
import { claimFairly } from './claim.js';
import { openWebhookSecret } from './endpoints.js';
import { boundedRetryDelayMs, parseRetryAfterMs, RETRY_AFTER_STATUSES, retryDelayMs } from './retry.js';
import { createWebhookTransport, type WebhookTransport } from './transport.js';
import { insertInto, insertSql, Placeholders, sql, VALUE } from '../db/insert.js';

export interface ClaimedDelivery {
  id: number;
  attempt: number;
  event_id: string;
  payload: unknown;
  url: string;
  endpoint_id: string;
  /** The endpoint's signing secret, opened from its sealed column; null when it does not open (wrong master key). */
  secret: string | null;
  endpoint_deleted: boolean;
  /** The sandbox clock offset of the event's merchant: its retries run on that clock (D38 per-merchant sandbox clocks). */
  clock_offset_seconds: number;
}

/** Recorded as the attempt's error when the signing secret cannot be opened (nothing is sent unsigned). */
export const SECRET_UNAVAILABLE_ERROR = 'signing secret does not open with this PAYGATE_MASTER_KEY';

/** A claimed delivery whose sender died becomes claimable again after this lease. */
export const DELIVERY_LEASE_SECONDS = 60;
export const DELIVERY_TIMEOUT_MS = 10_000;

/** SQL type of webhook_deliveries.id (one place to change if the key type changes). */
const DELIVERY_ID_TYPE = 'bigint';

export interface ClaimOptions {
  /** Most deliveries of one endpoint in flight at once, across processes (the database's count of live leases). */
  perEndpointCap?: number;
  /** Deliveries of each endpoint this process has in flight now; the larger of this and the database's count is used. */
  busy?: ReadonlyMap<string, number>;
}

/**
 * Claim due deliveries (pending and due, or delivering with an expired lease, each on the sandbox clock of the event's
 * merchant) with FOR UPDATE SKIP LOCKED, marking them `delivering` with a lease and the next attempt number, so two
 * processes never send the same attempt. Fair webhook claim (claim.ts, D342): each endpoint with due work gets its
 * share before the window of `limit` is filled, failing endpoints one probe after their backoff, and the cost does
 * not grow with any endpoint's backlog.
 */
export async function claimDueDeliveries(deps: ServiceDeps, limit = 20, options: ClaimOptions = {}): Promise<ClaimedDelivery[]> {
  const claimed = await claimFairly(deps, {
    room: limit,
    perEndpointCap: options.perEndpointCap ?? limit,
    leaseSeconds: DELIVERY_LEASE_SECONDS,
    ...(options.busy ? { busy: options.busy } : {}),
  });
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
    out.push({
      id: row.id,
      attempt: row.attempt,
      event_id: row.event_id,
      payload: row.payload,
      url: row.url,
      endpoint_id: row.endpoint_id,
      secret,
      endpoint_deleted: row.endpoint_deleted,
      clock_offset_seconds: row.clock_offset_seconds,
    });
  }
  return out;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** The receiver's Retry-After in ms from the attempt (429/503 only), null otherwise. */
  retryAfterMs?: number | null;
  error: string | null;
  durationMs: number;
  startedAt: number;
}

/** The transport used when none is given: public destinations only (D35 webhooks never reach private addresses). */
let defaultTransport: WebhookTransport | undefined;

/**
 * POST one delivery with the Standard Webhooks headers (webhook-id = msg_ + the event UUID (sequence_number), stable across retries;
 * webhook-timestamp = real unix seconds so receivers' tolerance checks work even when sandbox time is shifted).
 * 2xx = success; anything else, a network error, a destination the SSRF guard refuses or the 10 s timeout = failure,
 * recorded with its reason. Redirects are not followed.
 */
export async function sendDelivery(
  deps: ServiceDeps,
  d: ClaimedDelivery,
  options: { transport?: WebhookTransport; timeoutMs?: number } = {},
): Promise<AttemptResult> {
  const startedAt = shifted(deps.clock.now(), d.clock_offset_seconds);
  const t0 = performance.now();
  if (d.endpoint_deleted) return { ok: false, statusCode: null, error: 'endpoint deleted', durationMs: 0, startedAt };
  if (d.secret === null) return { ok: false, statusCode: null, error: SECRET_UNAVAILABLE_ERROR, durationMs: 0, startedAt };
  const body = JSON.stringify(d.payload);
  const headers = buildWebhookHeaders({ secret: d.secret, msgId: `msg_${d.event_id}`, timestamp: new Date(), payload: body });
  const transport = options.transport ?? (defaultTransport ??= createWebhookTransport());
  try {
    const res = await transport.post(
      d.url,
      { ...headers, 'content-type': 'application/json', 'user-agent': 'Paygate-Webhooks/1.0' },
      body,
      options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    );
    const ok = res.status >= 200 && res.status < 300;
    const retryAfterMs = RETRY_AFTER_STATUSES.has(res.status) ? parseRetryAfterMs(res.retryAfter, Date.now()) : null;
    return {
      ok,
      statusCode: res.status,
      retryAfterMs,
      error: ok ? null : `HTTP ${res.status}`,
      durationMs: Math.round(performance.now() - t0),
      startedAt,
    };
  } catch (err) {
    const e = err as Error;
    const error = e.name === 'TimeoutError' || e.name === 'DestinationRefusedError' ? e.message : `${e.name}: ${e.message}`;
    return { ok: false, statusCode: null, error: error.slice(0, 500), durationMs: Math.round(performance.now() - t0), startedAt };
  }
}

export type AttemptOutcome = 'succeeded' | 'retry' | 'failed';

/** Where an attempt moves its delivery (the retry delay drawn here, jitter included), or null for a 410 Gone. */
function planAttempt(deps: ServiceDeps, d: ClaimedDelivery, result: AttemptResult, schedule: readonly number[], jitter: number) {
  const at = shifted(deps.clock.now(), d.clock_offset_seconds); // the event's merchant's clock: retries follow it
  const delay =
    result.ok || d.endpoint_deleted
      ? null
      : boundedRetryDelayMs(schedule, retryDelayMs(schedule, d.attempt, jitter), result.retryAfterMs ?? null);
  const outcome: AttemptOutcome = result.ok ? 'succeeded' : delay === null ? 'failed' : 'retry';
  return {
    outcome,
    status: outcome === 'retry' ? 'pending' : outcome,
    now: formatIso(at),
    nextAt: outcome === 'retry' ? formatIso(addSeconds(at, (delay ?? 0) / 1000)) : formatIso(at),
  };
}

/** One attempt at a delivery: the webhook_delivery_attempts row's one column list (D460, "An INSERT is built from its table's column list"). */
const ATTEMPT_COLUMNS = {
  delivery_id: VALUE,
  attempt: VALUE,
  started_at: VALUE,
  duration_ms: VALUE,
  status_code: VALUE,
  error: VALUE,
} as const;
const INSERT_ATTEMPT = insertInto('webhook_delivery_attempts', ATTEMPT_COLUMNS, {
  tail: 'ON CONFLICT (delivery_id, attempt) DO NOTHING RETURNING id',
});
/** The same columns taken from the batch's `u` rows (same-named columns of {@link recordAttempts}' statement). */
const INSERT_ATTEMPTS_FROM_U = insertSql('webhook_delivery_attempts', ATTEMPT_COLUMNS, new Placeholders<never>(), {
  override: Object.fromEntries(Object.keys(ATTEMPT_COLUMNS).map((column) => [column, sql(column)])),
  from: 'u',
  tail: 'ON CONFLICT (delivery_id, attempt) DO NOTHING RETURNING delivery_id, attempt',
});

/**
 * Record many attempts at once (D114 transactional outbox kept over a job queue): one statement inserts every attempt row and moves each delivery on, exactly as
 * {@link recordAttempt} does one by one (an attempt already recorded, or a delivery no longer claimed by this attempt,
 * changes nothing and counts as 'failed'). A 410 Gone answer also disables its endpoint: those go through
 * recordAttempt, in their own transaction. Outcomes come back in the order given.
 */
export async function recordAttempts(
  deps: ServiceDeps,
  items: readonly { d: ClaimedDelivery; result: AttemptResult }[],
  schedule: readonly number[],
  jitter = 0.1,
): Promise<AttemptOutcome[]> {
  const outcomes: AttemptOutcome[] = new Array<AttemptOutcome>(items.length).fill('failed');
  const batch: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.result.statusCode === GONE_STATUS) outcomes[i] = await recordAttempt(deps, item.d, item.result, schedule, jitter);
    else batch.push(i);
  }
  if (batch.length === 0) return outcomes;
  const plans = batch.map((i) => planAttempt(deps, items[i]!.d, items[i]!.result, schedule, jitter));
  const col = <T>(f: (item: { d: ClaimedDelivery; result: AttemptResult }, k: number) => T) => batch.map((i, k) => f(items[i]!, k));
  const { rows } = await deps.db.query<{ k: number }>(
    `WITH u AS (
       SELECT * FROM unnest($1::${DELIVERY_ID_TYPE}[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[],
                            $8::timestamptz[], $9::timestamptz[], $10::int[])
         AS u(delivery_id, attempt, started_at, duration_ms, status_code, error, status, next_at, now, k)
     ), ins AS (
       ${INSERT_ATTEMPTS_FROM_U}
     ), moved AS (
       UPDATE webhook_deliveries d SET status = u.status, next_attempt_at = u.next_at, lease_expires_at = NULL,
              last_status_code = u.status_code, last_error = u.error, updated_at = u.now
       FROM u JOIN ins ON ins.delivery_id = u.delivery_id AND ins.attempt = u.attempt
       WHERE d.id = u.delivery_id AND d.attempt = u.attempt AND d.status = 'delivering'
       RETURNING d.id
     )
     SELECT u.k FROM u JOIN ins ON ins.delivery_id = u.delivery_id AND ins.attempt = u.attempt`,
    [
      col(({ d }) => d.id),
      col(({ d }) => d.attempt),
      col(({ result }) => formatIso(result.startedAt)),
      col(({ result }) => result.durationMs),
      col(({ result }) => result.statusCode),
      col(({ result }) => result.error),
      plans.map((p) => p.status),
      plans.map((p) => p.nextAt),
      plans.map((p) => p.now),
      batch.map((_, k) => k),
    ],
  );
  for (const { k } of rows) outcomes[batch[k]!] = plans[k]!.outcome;
  return outcomes;
}

/** A 410 Gone answer: the receiver says the endpoint is gone for good (D79). */
export const GONE_STATUS = 410;

/**
 * Record the attempt and move the delivery on: succeeded; or pending again at now + schedule[attempt-1] +-jitter
 * (later when a 429/503 asked for it with Retry-After, within the schedule's largest delay, D79); or failed (given
 * up) after the last delay, when the endpoint was deleted, or on 410 Gone, which also disables the endpoint and
 * fails its other pending deliveries. Only the current claim may record.
 */
export async function recordAttempt(
  deps: ServiceDeps,
  d: ClaimedDelivery,
  result: AttemptResult,
  schedule: readonly number[],
  jitter = 0.1,
): Promise<'succeeded' | 'retry' | 'failed'> {
  return deps.db.transaction(async (tx) => {
    const at = shifted(deps.clock.now(), d.clock_offset_seconds); // the event's merchant's clock: retries follow it
    const now = formatIso(at);
    const inserted = await tx.query(
      INSERT_ATTEMPT.text,
      INSERT_ATTEMPT.values({
        delivery_id: d.id,
        attempt: d.attempt,
        started_at: formatIso(result.startedAt),
        duration_ms: result.durationMs,
        status_code: result.statusCode,
        error: result.error,
      }),
    );
    if (inserted.rows.length === 0) return 'failed';
    const gone = result.statusCode === GONE_STATUS;
    const delay =
      result.ok || d.endpoint_deleted || gone
        ? null
        : boundedRetryDelayMs(schedule, retryDelayMs(schedule, d.attempt, jitter), result.retryAfterMs ?? null);
    if (gone) await disableEndpoint(tx, d.endpoint_id, `HTTP 410 Gone from the receiver`, now);
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

/**
 * Disable an endpoint (410 Gone): no new deliveries, its pending ones fail now (D79). Re-enabled by
 * POST /webhooks/endpoints/{endpoint_id}/enable; failed deliveries can then be redelivered.
 */
async function disableEndpoint(tx: Db, endpointId: string, reason: string, now: string): Promise<void> {
  await tx.query('UPDATE webhook_endpoints SET disabled_at = $2, disabled_reason = $3 WHERE id = $1 AND disabled_at IS NULL', [
    endpointId,
    now,
    reason,
  ]);
  await tx.query(
    `UPDATE webhook_deliveries SET status = 'failed', lease_expires_at = NULL, last_error = $2, updated_at = $3
     WHERE endpoint_id = $1 AND status = 'pending'`,
    [endpointId, `endpoint disabled: ${reason}`, now],
  );
}

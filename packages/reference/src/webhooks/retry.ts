/** Next retry delay in ms after failed attempt number `attempt` (1-based), or null to give up. +-jitter (fraction). */
export function retryDelayMs(
  schedule: readonly number[],
  attempt: number,
  jitter = 0.1,
  random: () => number = Math.random,
): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const factor = 1 + jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(base * 1000 * factor));
}

/** Statuses whose `Retry-After` is honoured (RFC 9110 section 10.2.3: 503, and 429 per RFC 6585). */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * A `Retry-After` value in ms from `nowMs`: delay-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2026 07:28:00 GMT`,
 * in the past = 0). Null when absent or unparseable (then only the schedule counts).
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/[A-Za-z]/.test(trimmed)) return null; // a bare number that is not delay-seconds (negative, fraction)
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * The delay before the next attempt when the receiver asked for `retryAfterMs` (D79 410 Gone disables an endpoint, enable endpoint): never sooner than the schedule's
 * own delay (`scheduledMs`, jitter included), and a longer request is capped at the schedule's largest delay, so a
 * receiver cannot park its deliveries for days. Null (give up) stays null: Retry-After never adds attempts.
 */
export function boundedRetryDelayMs(schedule: readonly number[], scheduledMs: number | null, retryAfterMs: number | null): number | null {
  if (scheduledMs === null || retryAfterMs === null) return scheduledMs;
  const maxMs = Math.max(...schedule) * 1000;
  return Math.max(scheduledMs, Math.min(retryAfterMs, maxMs));
}

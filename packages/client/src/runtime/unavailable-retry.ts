/**
 * How long the transport waits before re-sending a request answered 503 Service Unavailable (D93 client retries 503 only when safe).
 *
 * Which requests are re-sent at all is the transport's rule (idempotent methods: GET, HEAD, PUT, DELETE, OPTIONS;
 * a POST only with an `Idempotency-Key`, so the server runs it at most once), as is the bound on attempts
 * (`maxRetries`). This module decides only the wait for a 503, which says "the server is fine, its dependency is
 * not": every client of a gateway whose database blipped gets it at the same moment, so waiting exactly `Retry-After`
 * would bring them all back in the same instant. The wait is therefore
 *   max(Retry-After, exponential backoff of this attempt) + up to 20 % jitter of that,
 * never shorter than the server asked, growing while the outage lasts, and spread out. `undefined` leaves the
 * decision to the transport's general policy (not a 503, or a Retry-After beyond what a client should wait).
 */

/** Longest `Retry-After` a 503 is waited for (ms): beyond it the 503 is returned to the caller. */
export const MAX_UNAVAILABLE_WAIT_MS = 60_000;
const JITTER_FRACTION = 0.2;

export interface UnavailableRetryInput {
  status: number;
  /** The parsed `Retry-After` (ms), if the response had a valid one. */
  retryAfterMs: number | undefined;
  /** 0 for the first re-send. */
  attempt: number;
  /** The transport's exponential backoff for this attempt (ms). */
  backoffMs: number;
  random?: () => number;
}

/** The wait (ms) before re-sending after a 503, or undefined when this module has no say (see above). */
export function unavailableRetryDelay(input: UnavailableRetryInput): number | undefined {
  if (input.status !== 503) return undefined;
  if (input.retryAfterMs !== undefined && input.retryAfterMs > MAX_UNAVAILABLE_WAIT_MS) return undefined;
  const base = Math.max(input.retryAfterMs ?? 0, input.backoffMs);
  const jitter = (input.random ?? Math.random)() * JITTER_FRACTION * base;
  return Math.min(MAX_UNAVAILABLE_WAIT_MS, Math.round(base + jitter));
}

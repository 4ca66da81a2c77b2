/**
 * When the supervisor (`paygate serve --workers N`) restarts a worker that died, and when it gives up (D100 worker processes under a supervisor).
 *
 * - Each worker slot backs off on its own: the first restart after a death waits `initialDelayMs`, each further
 *   death of the same slot doubles the wait up to `maxDelayMs`. A worker that served for `stableAfterMs` before it
 *   died starts the slot over at `initialDelayMs` (one crash a day is not a crash loop).
 * - The crash loop is bounded for the whole fleet: more than `maxRestarts` deaths within `windowMs` and the
 *   supervisor stops restarting, drains the workers still up and exits 1, so whatever supervises the supervisor
 *   (systemd, a container runtime, an orchestrator) sees a failed service instead of a gateway that flaps forever.
 *
 * Pure: the clock is injected (`now`), the caller owns the timers.
 */
export interface RestartPolicyOptions {
  /** Wait before the first restart of a slot (default 200 ms). */
  initialDelayMs?: number;
  /** Longest wait between restarts of one slot (default 10 s). */
  maxDelayMs?: number;
  /** A worker that ran this long before it died restarts after `initialDelayMs` again (default 30 s). */
  stableAfterMs?: number;
  /** Deaths allowed within `windowMs` before the supervisor gives up (default 10). */
  maxRestarts?: number;
  /** The sliding window of `maxRestarts` (default 60 s). */
  windowMs?: number;
  /** Milliseconds since some fixed point (default `Date.now`). */
  now?: () => number;
}

export const DEFAULT_RESTART_POLICY = {
  initialDelayMs: 200,
  maxDelayMs: 10_000,
  stableAfterMs: 30_000,
  maxRestarts: 10,
  windowMs: 60_000,
} as const;

export type RestartDecision =
  | { action: 'restart'; delayMs: number /** deaths of this slot in a row (1 for the first) */; attempt: number }
  | { action: 'give-up' /** deaths within the window, this one included */; deaths: number; windowMs: number };

export interface RestartPolicy {
  /** A worker of `slot` started (forked) now. */
  started(slot: number): void;
  /** A worker of `slot` died (while the supervisor was not stopping): restart it after a delay, or give up. */
  died(slot: number): RestartDecision;
}

export function createRestartPolicy(options: RestartPolicyOptions = {}): RestartPolicy {
  const initialDelayMs = options.initialDelayMs ?? DEFAULT_RESTART_POLICY.initialDelayMs;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_RESTART_POLICY.maxDelayMs;
  const stableAfterMs = options.stableAfterMs ?? DEFAULT_RESTART_POLICY.stableAfterMs;
  const maxRestarts = options.maxRestarts ?? DEFAULT_RESTART_POLICY.maxRestarts;
  const windowMs = options.windowMs ?? DEFAULT_RESTART_POLICY.windowMs;
  const now = options.now ?? Date.now;
  const startedAt = new Map<number, number>();
  const streak = new Map<number, number>();
  let deaths: number[] = [];

  return {
    started(slot) {
      startedAt.set(slot, now());
    },
    died(slot) {
      const at = now();
      deaths = deaths.filter((t) => at - t < windowMs);
      deaths.push(at);
      if (deaths.length > maxRestarts) return { action: 'give-up', deaths: deaths.length, windowMs };
      const began = startedAt.get(slot);
      const ranStable = began !== undefined && at - began >= stableAfterMs;
      const attempt = ranStable ? 1 : (streak.get(slot) ?? 0) + 1;
      streak.set(slot, attempt);
      // 2^(attempt-1) grows past any sane cap long before it overflows; the exponent is clamped anyway
      const delayMs = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempt - 1, 30));
      return { action: 'restart', delayMs, attempt };
    },
  };
}

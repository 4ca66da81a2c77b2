import { describe, expect, it } from 'vitest';
import { createRestartPolicy, DEFAULT_RESTART_POLICY, type RestartDecision } from './restart-policy.js';

/** A policy on a clock the test moves by hand. */
function onClock(options: Parameters<typeof createRestartPolicy>[0] = {}) {
  let t = 1_000_000;
  const policy = createRestartPolicy({ ...options, now: () => t });
  return { policy, advance: (ms: number) => (t += ms) };
}

describe('restart policy (D100)', () => {
  it.each<[string, number[], number[]]>([
    // deaths of one slot, each this long after its (re)start -> the delays before the restarts
    ['quick deaths double the wait', [50, 50, 50, 50], [200, 400, 800, 1600]],
    ['the wait stops growing at maxDelayMs', [10, 10, 10, 10, 10, 10, 10, 10], [200, 400, 800, 1600, 3200, 6400, 10_000, 10_000]],
    ['a worker that served stableAfterMs starts the slot over', [50, 50, 30_000, 50], [200, 400, 200, 400]],
  ])('%s', (_name, lifetimes, delays) => {
    // a window long enough that the crash-loop bound does not interfere
    const { policy, advance } = onClock({ maxRestarts: 100 });
    const got: number[] = [];
    for (const lived of lifetimes) {
      policy.started(0);
      advance(lived);
      const decision = policy.died(0);
      if (decision.action !== 'restart') throw new Error(`expected a restart, got ${JSON.stringify(decision)}`);
      got.push(decision.delayMs);
      advance(decision.delayMs);
    }
    expect(got).toEqual(delays);
  });

  it('backs off per slot: one crashing worker does not slow the restart of another', () => {
    const { policy, advance } = onClock();
    policy.started(0);
    policy.started(1);
    advance(10);
    expect(policy.died(0)).toMatchObject({ action: 'restart', delayMs: 200, attempt: 1 });
    policy.started(0);
    advance(10);
    expect(policy.died(0)).toMatchObject({ action: 'restart', delayMs: 400, attempt: 2 });
    expect(policy.died(1)).toMatchObject({ action: 'restart', delayMs: 200, attempt: 1 });
  });

  it('gives up when more than maxRestarts workers die within the window, whichever slots they were', () => {
    const { policy, advance } = onClock({ maxRestarts: 3, windowMs: 60_000 });
    const decisions: RestartDecision[] = [];
    for (let i = 0; i < 4; i++) {
      policy.started(i % 2);
      advance(1_000);
      decisions.push(policy.died(i % 2));
    }
    expect(decisions.slice(0, 3).map((d) => d.action)).toEqual(['restart', 'restart', 'restart']);
    expect(decisions[3]).toEqual({ action: 'give-up', deaths: 4, windowMs: 60_000 });
  });

  it('forgets deaths older than the window: a slow trickle of crashes never gives up', () => {
    const { policy, advance } = onClock({ maxRestarts: 2, windowMs: 10_000 });
    for (let i = 0; i < 20; i++) {
      policy.started(0);
      advance(5_001); // two deaths at most in any 10 s
      expect(policy.died(0).action).toBe('restart');
    }
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_RESTART_POLICY).toEqual({
      initialDelayMs: 200,
      maxDelayMs: 10_000,
      stableAfterMs: 30_000,
      maxRestarts: 10,
      windowMs: 60_000,
    });
    const { policy, advance } = onClock();
    const actions: string[] = [];
    for (let i = 0; i < 11; i++) {
      policy.started(0);
      advance(100);
      actions.push(policy.died(0).action);
    }
    expect(actions.filter((a) => a === 'restart')).toHaveLength(10);
    expect(actions[10]).toBe('give-up');
  });
});

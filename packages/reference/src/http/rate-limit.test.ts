import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { hitRateLimit } from './rate-limit.js';

describe.each(testTargets())('rate limit on %s', (target) => {
  let t: TestDb;
  let clock: ManualClock;
  beforeAll(async () => {
    t = await openTestDb(target);
    clock = new ManualClock('2026-11-21T10:00:00Z');
  });
  afterAll(async () => t?.dispose());

  it('fixed window of 100 per 10 s per credential', async () => {
    clock.set('2026-11-21T11:00:02Z');
    const decisions = [];
    for (let i = 0; i < 101; i++) decisions.push(await hitRateLimit(t.db, clock, 'cred-rl'));
    expect(decisions[0]).toEqual({ allowed: true, limit: 100, remaining: 99, resetSeconds: 8 });
    expect(decisions[99]).toMatchObject({ allowed: true, remaining: 0 });
    expect(decisions[100]).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 8 });
    expect(await hitRateLimit(t.db, clock, 'cred-other')).toMatchObject({ allowed: true });
    clock.advance(8);
    expect(await hitRateLimit(t.db, clock, 'cred-rl')).toMatchObject({ allowed: true, remaining: 99, resetSeconds: 10 });
  });
});

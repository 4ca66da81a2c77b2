import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { loadSandboxClock } from './sandbox-clock.js';

describe.each(testTargets())('sandbox clock on %s', (target) => {
  let t: TestDb;
  let clock: ManualClock;
  beforeAll(async () => {
    t = await openTestDb(target);
    clock = new ManualClock('2026-11-21T10:00:00Z');
  });
  afterAll(async () => t?.dispose());

  it('sandbox clock offset is stored in the database and shared', async () => {
    const a = await loadSandboxClock(t.db, clock);
    const b = await loadSandboxClock(t.db, clock);
    const before = a.now();
    expect(await a.advance(3600)).toBe(3600);
    expect(a.now() - before).toBe(3600 * 1_000_000);
    expect(b.offsetSeconds()).toBe(0);
    await b.refresh();
    expect(b.now()).toBe(a.now());
    await expect(a.advance(-5)).rejects.toMatchObject({ code: 'ERR_VALIDATION_400' });
    await a.reset();
    expect(await b.refresh()).toBe(0);
  });
});

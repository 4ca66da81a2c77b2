import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, ManualClock, type Micros } from '../core/clock.js';
import { DomainError } from '../core/errors.js';
import type { ChannelListener, Db } from '../db/db.js';
import { LISTENER_APPLICATION_NAME } from '../db/postgres.js';
import { approvedMerchant, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { CREDENTIAL_CHANNEL, CredentialCache } from './cache.js';
import { issueMerchantCredentials, revokePreviousCredentials, type VerifiedCredential } from './service.js';

/** A Db that only listens: the tests drive its listener by hand. Any query is a test bug. */
function listeningDb(): Db & { listener(): ChannelListener; channels: string[]; stopped: number } {
  let current: ChannelListener | undefined;
  const fake = {
    kind: 'pglite' as const,
    channels: [] as string[],
    stopped: 0,
    query: () => Promise.reject(new Error('the cache under test must not query')),
    exec: () => Promise.reject(new Error('the cache under test must not query')),
    transaction: () => Promise.reject(new Error('the cache under test must not query')),
    close: () => Promise.resolve(),
    async listen(channel: string, listener: ChannelListener) {
      fake.channels.push(channel);
      current = listener;
      listener.onReady();
      return async () => {
        fake.stopped++;
      };
    },
    listener() {
      if (!current) throw new Error('nobody listens');
      return current;
    },
  };
  return fake;
}

const partner = (clientId: string): VerifiedCredential => ({ principal: { kind: 'partner', clientId, partnerId: 'p1' }, validUntil: null });

/** A cache over a counting verification: `a`/`b` with secret `good` verify; anything else is refused. */
async function harness(options: { ttlMs?: number; validUntil?: Micros | null } = {}) {
  const clock = new ManualClock('2026-11-21T10:00:00Z');
  const db = listeningDb();
  const calls: string[] = [];
  let gate: Promise<void> | undefined;
  const cache = new CredentialCache(db, {
    ttlMs: options.ttlMs ?? 5_000,
    now: () => clock.now(),
    async verify(clientId, secret) {
      calls.push(clientId);
      await gate;
      if (secret !== 'good') throw new DomainError('ERR_AUTH_000', 'Invalid credentials');
      return { ...partner(clientId), validUntil: options.validUntil ?? null };
    },
  });
  await cache.start();
  return { clock, db, calls, cache, hold: (p: Promise<void>) => (gate = p) };
}

describe('CredentialCache', () => {
  it('listens on the credentials channel and reuses a verification for the TTL, not longer', async () => {
    const { cache, calls, clock, db } = await harness({ ttlMs: 5_000 });
    expect(db.channels).toEqual([CREDENTIAL_CHANNEL]);
    expect(await cache.verify('a', 'good')).toEqual(partner('a'));
    expect(await cache.verify('a', 'good')).toEqual(partner('a'));
    expect(calls).toEqual(['a']);
    clock.advance(4.999);
    await cache.verify('a', 'good');
    expect(calls).toEqual(['a']);
    clock.advance(0.001);
    await cache.verify('a', 'good');
    expect(calls).toEqual(['a', 'a']);
  });

  it("never outlives the secret's validUntil (a rotated secret's overlap end)", async () => {
    const start = new ManualClock('2026-11-21T10:00:00Z').now();
    const { cache, calls, clock } = await harness({ ttlMs: 60_000, validUntil: addSeconds(start, 2) });
    await cache.verify('a', 'good');
    clock.advance(1.999);
    await cache.verify('a', 'good');
    expect(calls).toHaveLength(1);
    clock.advance(0.001);
    await cache.verify('a', 'good');
    expect(calls).toHaveLength(2); // the database decides again at validUntil (and refuses it there)
  });

  it.each([
    ['a wrong secret', 'a', 'bad'],
    ['an unknown client id', 'zz', 'bad'],
  ])('does not cache a refusal (%s): every attempt reaches the database', async (_label, id, secret) => {
    const { cache, calls } = await harness();
    for (let i = 0; i < 3; i++) await expect(cache.verify(id, secret)).rejects.toMatchObject({ code: 'ERR_AUTH_000' });
    expect(calls).toEqual([id, id, id]);
    expect(cache.size).toBe(0);
  });

  it.each([
    [undefined, 'good'],
    ['a', undefined],
    ['', 'good'],
  ])('missing credentials (%j, %j) are refused without a lookup', async (id, secret) => {
    const { cache, calls } = await harness();
    await expect(cache.verify(id, secret)).rejects.toMatchObject({ code: 'ERR_AUTH_000', message: 'Missing credentials' });
    expect(calls).toEqual([]);
  });

  it('a cached secret does not vouch for another secret of the same client id', async () => {
    const { cache, calls } = await harness();
    await cache.verify('a', 'good');
    await expect(cache.verify('a', 'bad')).rejects.toMatchObject({ code: 'ERR_AUTH_000' });
    expect(calls).toEqual(['a', 'a']);
  });

  it('a notification drops that client id only', async () => {
    const { cache, calls, db } = await harness();
    await cache.verify('a', 'good');
    await cache.verify('b', 'good');
    db.listener().onNotify('a');
    await cache.verify('a', 'good');
    await cache.verify('b', 'good');
    expect(calls).toEqual(['a', 'b', 'a']);
  });

  it('a lookup in flight when a notification arrives is answered but not cached (it may have read the old row)', async () => {
    const { cache, calls, db, hold } = await harness();
    let release!: () => void;
    hold(new Promise<void>((r) => (release = r)));
    const pending = cache.verify('a', 'good');
    db.listener().onNotify('a');
    release();
    expect(await pending).toEqual(partner('a'));
    expect(cache.size).toBe(0);
    hold(Promise.resolve());
    await cache.verify('a', 'good');
    expect(calls).toEqual(['a', 'a']);
  });

  it('while the listener is lost the cache is flushed and bypassed; on reconnect it is flushed and serves again', async () => {
    const { cache, calls, db } = await harness();
    await cache.verify('a', 'good');
    db.listener().onLost(new Error('connection terminated'));
    expect(cache.serving).toBe(false);
    expect(cache.size).toBe(0);
    await cache.verify('a', 'good');
    await cache.verify('a', 'good');
    expect(calls).toEqual(['a', 'a', 'a']); // every request reads the database while notifications cannot arrive
    db.listener().onReady();
    expect(cache.serving).toBe(true);
    await cache.verify('a', 'good');
    await cache.verify('a', 'good');
    expect(calls).toEqual(['a', 'a', 'a', 'a']);
  });

  it('TTL 0 turns the cache off: no listener, every request verified', async () => {
    const { cache, calls, db } = await harness({ ttlMs: 0 });
    expect(db.channels).toEqual([]);
    await cache.verify('a', 'good');
    await cache.verify('a', 'good');
    expect(calls).toEqual(['a', 'a']);
    expect(cache.serving).toBe(false);
  });

  it('stop() stops listening and empties the cache', async () => {
    const { cache, db } = await harness();
    await cache.verify('a', 'good');
    await cache.stop();
    expect(db.stopped).toBe(1);
    expect(cache.size).toBe(0);
    expect(cache.serving).toBe(false);
  });
});

/** The trigger (migration 008) and each adapter's listener, on a real database. */
describe.each(testTargets())('credential change notifications on %s', (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(target);
  });
  afterAll(async () => t?.dispose());

  const until = async (what: string, check: () => boolean, ms = 5_000) => {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(10);
    }
  };

  it('rotation with overlap 0 and revoking the previous set invalidate the cached credential at once', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00Z');
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: `cache-${target}` });
    const cache = new CredentialCache(t.db, { ttlMs: 3_600_000, now: () => clock.now() });
    await cache.start();
    try {
      await until('the listener', () => cache.serving);
      const first = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
      await cache.verify(first.client_id, first.client_secret);
      expect(cache.size).toBe(1);
      await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: 0 });
      await until('the notification', () => cache.size === 0);
      await expect(cache.verify(first.client_id, first.client_secret)).rejects.toMatchObject({ code: 'ERR_AUTH_000' });

      const second = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
      const third = await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: 600 });
      expect((await cache.verify(second.client_id, second.client_secret)).validUntil).toBe(addSeconds(clock.now(), 600));
      await revokePreviousCredentials(deps, m.partnerId, m.merchantId);
      await until('the notification', () => cache.size === 0);
      await expect(cache.verify(second.client_id, second.client_secret)).rejects.toMatchObject({ code: 'ERR_AUTH_000' });
      expect((await cache.verify(third.client_id, third.client_secret)).principal.clientId).toBe(third.client_id);
    } finally {
      await cache.stop();
    }
  });

  // PGlite's listener is in-process and cannot drop; registered only where it can
  if (target === 'postgres')
    it('a dropped listener connection flushes and bypasses the cache, then reconnects and serves again', async () => {
      const clock = new ManualClock('2026-11-21T10:00:00Z');
      const deps = testDeps(t.db, clock);
      const m = await approvedMerchant(deps, { partnerId: 'cache-reconnect' });
      const issued = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
      const cache = new CredentialCache(t.db, { ttlMs: 3_600_000, now: () => clock.now() });
      await cache.start();
      try {
        await cache.verify(issued.client_id, issued.client_secret);
        expect(cache.size).toBe(1);
        const { rows } = await t.db.query<{ killed: boolean }>(
          `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
          [LISTENER_APPLICATION_NAME],
        );
        expect(rows.map((r) => r.killed)).toEqual([true]);
        await until('the loss to be noticed', () => !cache.serving);
        expect(cache.size).toBe(0);
        await until('the reconnect', () => cache.serving);
        await cache.verify(issued.client_id, issued.client_secret);
        expect(cache.size).toBe(1);
        // and the new connection receives notifications
        await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: 0 });
        await until('the notification', () => cache.size === 0);
      } finally {
        await cache.stop();
      }
    });
});

/** Polling instead of notifications (D352 notifications through a pooler: direct or polling): a database whose notifications cannot be had (a transaction pooler). */
describe.each(testTargets())('credential cache polling row versions on %s (no notifications)', (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(target);
  });
  afterAll(async () => t?.dispose());

  /** `t.db` with LISTEN refused, as behind PgBouncer without DATABASE_DIRECT_URL. */
  const noNotifications = (): Db => ({
    ...t.db,
    kind: t.db.kind,
    query: (sql, params) => t.db.query(sql, params),
    listen: () => Promise.reject(new Error('no notifications through a transaction pooler')),
  });

  it('serves from the cache once a poll confirmed the row, and drops the entry at the first poll after a rotation', async () => {
    const clock = new ManualClock('2026-11-21T10:00:00Z');
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: `poll-${target}` });
    let misses = 0;
    const db = noNotifications();
    const cache = new CredentialCache(db, {
      ttlMs: 3_600_000,
      now: () => clock.now(),
      pollMs: 3_600_000, // driven by hand below: cache.poll()
      verify: async (id, secret, now) => {
        misses++;
        const { verifyCredential } = await import('./service.js');
        return verifyCredential(db, id, secret, now);
      },
    });
    await cache.start(); // LISTEN refused: start still succeeds, on polling alone
    try {
      expect(cache.serving).toBe(false); // no poll yet: every request reads the database
      await cache.poll();
      expect(cache.serving).toBe(true);
      const first = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
      await cache.verify(first.client_id, first.client_secret);
      expect(cache.size).toBe(1);
      // the first poll that sees this client id cannot vouch for a verification it did not precede: dropped, re-read
      await cache.poll();
      expect(cache.size).toBe(0);
      await cache.verify(first.client_id, first.client_secret);
      await cache.poll(); // confirmed: unchanged since a poll that preceded the verification
      expect(cache.size).toBe(1);
      const before = misses;
      await cache.verify(first.client_id, first.client_secret);
      await cache.poll();
      await cache.verify(first.client_id, first.client_secret);
      expect(misses).toBe(before); // answered from the cache

      await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: 0 }); // ends the first set
      await cache.poll();
      expect(cache.size).toBe(0);
      await expect(cache.verify(first.client_id, first.client_secret)).rejects.toMatchObject({ code: 'ERR_AUTH_000' });
    } finally {
      await cache.stop();
    }
  });

  it('a failed poll flushes and stops serving until a poll succeeds', async () => {
    let fail = false;
    const db: Db = { ...noNotifications(), query: (sql, params) => (fail ? Promise.reject(new Error('down')) : t.db.query(sql, params)) };
    const cache = new CredentialCache(db, { ttlMs: 60_000, pollMs: 3_600_000, verify: async (id) => partner(id) });
    await cache.start();
    try {
      await cache.poll();
      await cache.verify('a', 'x');
      expect(cache.size).toBe(1);
      fail = true;
      await cache.poll();
      expect(cache.serving).toBe(false);
      expect(cache.size).toBe(0);
      fail = false;
      await cache.poll();
      expect(cache.serving).toBe(true);
    } finally {
      await cache.stop();
    }
  });
});

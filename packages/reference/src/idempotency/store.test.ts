import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransactionScopes, type ScopedDb } from '../db/ambient.js';
import type { Db } from '../db/db.js';
import { ManualClock } from '../core/clock.js';
import { approvedMerchant, testDeps, testSecrets } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import {
  claimIdempotencyKey,
  idempotencyLockId,
  idempotencyScope,
  isValidIdempotencyKey,
  recordIdempotentOutcome,
  requestFingerprint,
  type StoredResponse,
} from './store.js';

const ok = (body: string): StoredResponse => ({
  status: 200,
  contentType: 'application/json',
  body,
  headers: { Location: '/pg/orders/OD1' },
});

describe.each(testTargets())('idempotency keys on %s', (target) => {
  let t: TestDb;
  let db: ScopedDb;
  let clock: ManualClock;
  beforeAll(async () => {
    t = await openTestDb(target);
    db = withTransactionScopes(t.db);
    clock = new ManualClock('2026-11-21T10:00:00Z');
  });
  afterAll(async () => t?.dispose());
  const deps = () => ({ clock, secrets: testSecrets });
  /** One request: claim, then (unless it fails) record, in one transaction, as the HTTP wrapper does. */
  const request = (scope: string, key: string, fp: string, response: StoredResponse | Error) =>
    db.transactionScope(async (tx) => {
      const claim = await claimIdempotencyKey(tx, deps(), scope, key, fp);
      if (claim.kind === 'replay') return claim;
      if (response instanceof Error) throw response;
      await recordIdempotentOutcome(tx, deps(), { scope, key, fingerprint: fp }, response);
      return claim;
    });

  it('fingerprints method, path and body; lock ids are 64-bit and differ by scope and key', () => {
    const a = requestFingerprint('POST', '/pg/refunds', '{"a":1}');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint('post', '/pg/refunds', '{"a":1}')).toBe(a);
    expect(requestFingerprint('POST', '/pg/refunds', '{"a":2}')).not.toBe(a);
    expect(requestFingerprint('POST', '/pg/refunds/', '{"a":1}')).not.toBe(a);
    const id = BigInt(idempotencyLockId('merchant:MID1', 'k'));
    expect(id >= -(2n ** 63n) && id < 2n ** 63n).toBe(true);
    expect(idempotencyLockId('merchant:MID1', 'k')).not.toBe(idempotencyLockId('merchant:MID2', 'k'));
    expect(idempotencyLockId('a', 'b\0c')).not.toBe(idempotencyLockId('a\0b', 'c'));
  });

  it('new -> proceed and recorded with the write; same request -> replay; other request -> 422; expiry after 24 h', async () => {
    const fp = requestFingerprint('POST', '/pg/orders/', '{"x":1}');
    const text = '{"success":true,"data":{"order_id":"OD1","z":1,"a":2}}';
    expect(await request('merchant:M1', 'key-1', fp, ok(text))).toEqual({ kind: 'proceed' });
    expect(await request('merchant:M1', 'key-1', fp, ok('never stored'))).toEqual({ kind: 'replay', ...ok(text) });
    await expect(request('merchant:M1', 'key-1', 'other', ok('x'))).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_422', status: 422 });
    // the same key in another account is independent
    expect(await request('merchant:M2', 'key-1', 'other', ok('x'))).toEqual({ kind: 'proceed' });
    clock.advance(24 * 3600);
    expect(await request('merchant:M1', 'key-1', 'a-new-request', ok('y'))).toEqual({ kind: 'proceed' });
    await expect(request('merchant:M1', 'x'.repeat(256), fp, ok('z'))).rejects.toMatchObject({ code: 'ERR_VALIDATION_400' });
  });

  it('a request that fails before commit leaves nothing: its writes and its key roll back together, and a retry runs once', async () => {
    const fp = 'fp-crash';
    await expect(
      db.transactionScope(async (tx) => {
        await claimIdempotencyKey(tx, deps(), 'merchant:M3', 'key-c', fp);
        // a service writing through the root handle joins the scope's transaction
        await db.query(`INSERT INTO partners (id, name, created_at) VALUES ('PT_ROLLED_BACK', 'x', now())`);
        await recordIdempotentOutcome(tx, deps(), { scope: 'merchant:M3', key: 'key-c', fingerprint: fp }, ok('{}'));
        throw new Error('process died before commit');
      }),
    ).rejects.toThrow('process died');
    expect((await t.db.query(`SELECT 1 FROM partners WHERE id = 'PT_ROLLED_BACK'`)).rows).toHaveLength(0);
    expect((await t.db.query(`SELECT 1 FROM idempotency_keys WHERE scope = 'merchant:M3'`)).rows).toHaveLength(0);
    expect(await request('merchant:M3', 'key-c', fp, ok('{"second":true}'))).toEqual({ kind: 'proceed' });
    expect(await request('merchant:M3', 'key-c', fp, ok('{}'))).toMatchObject({ kind: 'replay', body: '{"second":true}' });
  });

  it('stores the response text sealed, bound to scope and key', async () => {
    const secretBody = '{"success":true,"data":{"client_secret":"cs_abc123","encryption_key":"ek_test_xyz"}}';
    await request('partner:P1', 'key-s', 'fp', { status: 201, contentType: 'application/json', body: secretBody, headers: {} });
    const { rows } = await t.db.query<{ row: string; response_sealed: string }>(
      `SELECT to_jsonb(k)::text AS row, response_sealed FROM idempotency_keys k WHERE scope = 'partner:P1'`,
    );
    expect(rows[0]!.row).not.toMatch(/cs_abc|ek_test|client_secret/);
    expect(() => testSecrets.open(rows[0]!.response_sealed, 'idempotency:partner:P1:other')).toThrow();
    expect(await request('partner:P1', 'key-s', 'fp', ok('x'))).toMatchObject({ kind: 'replay', status: 201, body: secretBody });
  });

  it('scopes a key to the account the request acts for, checking a partner’s X-Merchant-ID', async () => {
    const d = testDeps(t.db);
    const m = await approvedMerchant(d, { partnerId: 'PT_IDEM', brand: 'Scoped' });
    const partner = { kind: 'partner' as const, clientId: 'pk_old', partnerId: 'PT_IDEM' };
    const merchant = { kind: 'merchant' as const, clientId: 'ck_any', partnerId: 'PT_IDEM', merchantId: m.merchantId };
    expect(await idempotencyScope(t.db, merchant, undefined, '127.0.0.1')).toBe(`merchant:${m.merchantId}`);
    expect(await idempotencyScope(t.db, { ...merchant, clientId: 'ck_rotated' }, undefined, '127.0.0.1')).toBe(`merchant:${m.merchantId}`);
    expect(await idempotencyScope(t.db, partner, m.merchantId, '127.0.0.1')).toBe(`merchant:${m.merchantId}`);
    expect(await idempotencyScope(t.db, partner, undefined, '127.0.0.1')).toBe('partner:PT_IDEM');
    expect(await idempotencyScope(t.db, undefined, undefined, '10.1.2.3')).toBe('ip:10.1.2.3');
    await expect(idempotencyScope(t.db, { ...partner, partnerId: 'PT_OTHER' }, m.merchantId, '127.0.0.1')).rejects.toMatchObject({
      code: 'ERR_MERCHANT_404',
    });
  });

  // registered on PostgreSQL only: PGlite has no second session to retry from
  if (target === 'postgres')
    it('a retry while the first execution can still commit gets 409, however long it runs', async () => {
      const second: Db = await t.openSecond();
      try {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let claimed!: () => void;
        const isClaimed = new Promise<void>((resolve) => (claimed = resolve));
        const first = db.transactionScope(async (tx) => {
          await claimIdempotencyKey(tx, deps(), 'merchant:M9', 'key-slow', 'fp');
          claimed();
          await held; // a lock wait or a slow disk: no wall-clock lease ends it
          await recordIdempotentOutcome(tx, deps(), { scope: 'merchant:M9', key: 'key-slow', fingerprint: 'fp' }, ok('{"first":true}'));
        });
        await isClaimed;
        clock.advance(3600);
        const retry = withTransactionScopes(second);
        await expect(
          retry.transactionScope((tx) => claimIdempotencyKey(tx, deps(), 'merchant:M9', 'key-slow', 'fp')),
        ).rejects.toMatchObject({
          code: 'ERR_IDEMPOTENCY_409',
        });
        release();
        await first;
        expect(await retry.transactionScope((tx) => claimIdempotencyKey(tx, deps(), 'merchant:M9', 'key-slow', 'fp'))).toMatchObject({
          kind: 'replay',
          body: '{"first":true}',
        });
      } finally {
        await second.close();
      }
    });
});

describe("isValidIdempotencyKey: the contract's rule (pattern and length read from the spec)", () => {
  it.each([
    ['a UUID', '8e03978e-40d5-43e8-bc93-6894a57f9324', true],
    ['visible ASCII punctuation', 'k!~#', true],
    ['255 characters', 'k'.repeat(255), true],
    ['a space (the spec forbids it)', 'a key', false],
    ['empty', '', false],
    ['256 characters', 'k'.repeat(256), false],
    ['non-ASCII', 'clé', false],
  ])('%s', (_name, key, valid) => {
    expect(isValidIdempotencyKey(key)).toBe(valid);
  });
});

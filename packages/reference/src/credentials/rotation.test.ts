import { verifyCallback } from '@paygate/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeCheckoutSession } from '../checkout/service.js';
import { addSeconds, ManualClock, parseIso } from '../core/clock.js';
import { createOrder } from '../orders/service.js';
import { approvedMerchant, orderInput, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  issueMerchantCredentials,
  revokePreviousCredentials,
  verifyCredential,
  type IssuedCredentials,
} from './service.js';

/** Credential rotation with an overlap window (D36), on PGlite and (with PAYGATE_TEST_DATABASE_URL) PostgreSQL. */
describe.each(testTargets())('credential rotation on %s', (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(target);
  });
  afterAll(async () => t?.dispose());

  const setup = async (name: string) => {
    const clock = new ManualClock('2026-11-21T10:00:00Z');
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: `rot-${name}` });
    const verify = (c: IssuedCredentials) => verifyCredential(t.db, c.client_id, c.client_secret, clock.now());
    const valid = async (c: IssuedCredentials) =>
      verify(c).then(
        () => true,
        () => false,
      );
    return { clock, deps, m, verify, valid };
  };

  /** A hosted order's session, completed: the callback fields (with hash) its return_url receives. */
  const openSession = async (deps: ReturnType<typeof testDeps>, merchantId: string) => {
    const created = await createOrder(deps, merchantId, orderInput(), { isTesting: true });
    if (created.kind !== 'hosted') throw new Error('expected a hosted order');
    return {
      complete: async () => (await completeCheckoutSession(deps, created.session_id, { outcome: 'success', mopType: 'UPI' })).callback,
    };
  };

  it('the replaced secret works for the overlap window (default 24 h), then never; its validity end is returned', async () => {
    const { clock, deps, m, verify, valid } = await setup('overlap');
    const a = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    expect(a.previous_expires_at).toBeNull(); // first issue: nothing to overlap with
    expect(await verify(a)).toEqual({
      principal: { kind: 'merchant', clientId: a.client_id, partnerId: m.partnerId, merchantId: m.merchantId },
      validUntil: null,
    });

    const b = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    const end = addSeconds(clock.now(), DEFAULT_ROTATION_OVERLAP_SECONDS);
    expect(b.previous_expires_at).not.toBeNull();
    expect(parseIso(b.previous_expires_at as string)).toBe(end);
    expect((await verify(a)).validUntil).toBe(end); // a cache of this answer must not outlive it
    expect((await verify(b)).validUntil).toBeNull();

    clock.advance(DEFAULT_ROTATION_OVERLAP_SECONDS - 1);
    expect(await valid(a)).toBe(true);
    clock.advance(1);
    await expect(verify(a)).rejects.toMatchObject({ code: 'ERR_AUTH_000', message: 'Invalid credentials', status: 401 });
    expect(await valid(b)).toBe(true);
  });

  it.each([
    [3600, true],
    [0, false],
  ])('overlap_seconds %i: the replaced set overlaps: %s', async (overlap, overlaps) => {
    const { clock, deps, m, valid } = await setup(`o${overlap}`);
    const a = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    const b = await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: overlap });
    expect(b.previous_expires_at === null).toBe(!overlaps);
    expect(await valid(a)).toBe(overlaps);
    clock.advance(overlap);
    expect(await valid(a)).toBe(false);
    expect(await valid(b)).toBe(true);
  });

  it.each([-1, 604_801, 1.5, Number.NaN])('refuses overlap_seconds %s with 400 naming the field', async (overlap) => {
    const { deps, m } = await setup(`bad${String(overlap).replace(/\W/g, '')}`);
    await expect(issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: overlap })).rejects.toMatchObject({
      code: 'ERR_VALIDATION_400',
      details: { overlap_seconds: 'must be an integer from 0 to 604800' },
    });
  });

  it('at most two sets are valid: a set still overlapping is revoked by the next rotation; immediate revocation ends the window', async () => {
    const { deps, m, valid } = await setup('chain');
    const a = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    const b = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    const c = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    expect([await valid(a), await valid(b), await valid(c)]).toEqual([false, true, true]);
    await expect(revokePreviousCredentials(deps, m.partnerId, m.merchantId)).resolves.toEqual({
      merchant_id: m.merchantId,
      revoked_client_ids: [b.client_id],
    });
    expect([await valid(b), await valid(c)]).toEqual([false, true]);
    await expect(revokePreviousCredentials(deps, m.partnerId, m.merchantId)).resolves.toEqual({
      merchant_id: m.merchantId,
      revoked_client_ids: [],
    });
    await expect(revokePreviousCredentials(deps, 'someone-else', m.merchantId)).rejects.toMatchObject({ code: 'ERR_MERCHANT_404' });
  });

  it('each session is signed with the key current when it was created, while that key is valid', async () => {
    const { clock, deps, m } = await setup('callbacks');
    // opened before any credentials: the key the merchant was created with was never shown, so it is not kept
    const beforeIssue = await openSession(deps, m.merchantId);
    const a = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    const signed0 = await beforeIssue.complete();
    expect(verifyCallback(signed0, a.encryption_key)).toBe(true);

    const underA = await openSession(deps, m.merchantId);
    const b = await issueMerchantCredentials(deps, m.partnerId, m.merchantId); // 24 h overlap
    const underB = await openSession(deps, m.merchantId);
    const signedA = await underA.complete();
    const signedB = await underB.complete();
    expect(verifyCallback(signedA, a.encryption_key)).toBe(true); // opened before the rotation: the old key
    expect(verifyCallback(signedA, b.encryption_key)).toBe(false);
    expect(verifyCallback(signedB, b.encryption_key)).toBe(true);
    expect(verifyCallback(signedB, a.encryption_key)).toBe(false);

    // immediate revocation: a session opened under the revoked key is signed with the current one
    const underB2 = await openSession(deps, m.merchantId);
    const c = await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    await revokePreviousCredentials(deps, m.partnerId, m.merchantId);
    expect(verifyCallback(await underB2.complete(), c.encryption_key)).toBe(true);

    // an overlap of 0 likewise
    const underC = await openSession(deps, m.merchantId);
    const d = await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: 0 });
    expect(verifyCallback(await underC.complete(), d.encryption_key)).toBe(true);

    // and once the overlap window is over (a short one; the session itself lives 15 minutes)
    const underD = await openSession(deps, m.merchantId);
    const e = await issueMerchantCredentials(deps, m.partnerId, m.merchantId, { overlapSeconds: 60 });
    const underE = await openSession(deps, m.merchantId);
    clock.advance(61);
    expect(verifyCallback(await underD.complete(), e.encryption_key)).toBe(true);
    expect(verifyCallback(await underE.complete(), e.encryption_key)).toBe(true);
  });

  it('concurrent rotations serialise: one current set, at most one overlapping, every issued secret accounted for', async () => {
    const { clock, deps, m } = await setup('race');
    await issueMerchantCredentials(deps, m.partnerId, m.merchantId);
    const second = target === 'postgres' ? await t.openSecond() : t.db;
    const issued = await Promise.all([
      issueMerchantCredentials(deps, m.partnerId, m.merchantId),
      issueMerchantCredentials({ ...deps, db: second }, m.partnerId, m.merchantId),
      issueMerchantCredentials(deps, m.partnerId, m.merchantId),
    ]);
    const outcomes = await Promise.all(
      issued.map((c) =>
        verifyCredential(t.db, c.client_id, c.client_secret, clock.now()).then(
          (v) => v.validUntil,
          () => 'invalid' as const,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === null)).toHaveLength(1); // the last rotation's set
    expect(outcomes.filter((o) => typeof o === 'number')).toHaveLength(1); // the set it replaced, overlapping
    expect(outcomes.filter((o) => o === 'invalid')).toHaveLength(1);
    const { rows } = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM credentials WHERE merchant_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
      [m.merchantId, '2026-11-21T10:00:00.000000Z'],
    );
    expect(rows[0]?.n).toBe(2);
    const { rows: key } = await t.db.query<{ encryption_key_version: number }>(
      'SELECT encryption_key_version FROM merchants WHERE id = $1',
      [m.merchantId],
    );
    expect(key[0]?.encryption_key_version).toBe(5); // created (1), then four issues
  });
});

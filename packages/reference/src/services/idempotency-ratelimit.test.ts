import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../domain/time.js';
import { approvedMerchant, testDeps, testSecrets } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { beginIdempotent, completeIdempotent, releaseIdempotent, requestFingerprint, sealLegacyIdempotencyResponses } from './idempotency.js';
import { hitRateLimit } from './rate-limit.js';
import { loadSandboxClock } from './sandbox-clock.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints } from './webhook-endpoints.js';

describe.each(testTargets())('idempotency, rate limit, sandbox clock, webhook endpoints on %s', (target) => {
  let t: TestDb;
  let clock: ManualClock;
  beforeAll(async () => {
    t = await openTestDb(target);
    clock = new ManualClock('2026-11-21T10:00:00Z');
  });
  afterAll(async () => t?.dispose());

  it('fingerprints method, path and body', () => {
    const a = requestFingerprint('POST', '/pg/refunds', '{"a":1}');
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint('post', '/pg/refunds', '{"a":1}')).toBe(a);
    expect(requestFingerprint('POST', '/pg/refunds', '{"a":2}')).not.toBe(a);
    expect(requestFingerprint('POST', '/pg/refunds/', '{"a":1}')).not.toBe(a);
  });

  it('in flight -> 409, done -> replay, other request -> 422, release -> proceed, expiry after 24 h', async () => {
    const fp = requestFingerprint('POST', '/pg/orders/', '{"x":1}');
    const d = { db: t.db, clock, secrets: testSecrets };
    expect(await beginIdempotent(d, 'cred-1', 'key-1', fp)).toEqual({ kind: 'proceed' });
    await expect(beginIdempotent(d, 'cred-1', 'key-1', fp)).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_409', status: 409 });
    await expect(beginIdempotent(d, 'cred-1', 'key-1', 'other')).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_422', status: 422 });
    // the same key of another credential is independent
    expect(await beginIdempotent(d, 'cred-2', 'key-1', 'other')).toEqual({ kind: 'proceed' });

    const text = '{"success":true,"data":{"order_id":"OD1","z":1,"a":2}}';
    await completeIdempotent(d, 'cred-1', 'key-1', { status: 200, contentType: 'application/json', body: text, headers: { Location: '/pg/orders/OD1' } });
    expect(await beginIdempotent(d, 'cred-1', 'key-1', fp)).toEqual({
      kind: 'replay',
      status: 200,
      contentType: 'application/json',
      body: text,
      headers: { Location: '/pg/orders/OD1' },
    });
    await expect(beginIdempotent(d, 'cred-1', 'key-1', 'other')).rejects.toMatchObject({ code: 'ERR_IDEMPOTENCY_422' });

    expect(await beginIdempotent(d, 'cred-1', 'key-2', fp)).toEqual({ kind: 'proceed' });
    await releaseIdempotent(t.db, 'cred-1', 'key-2');
    expect(await beginIdempotent(d, 'cred-1', 'key-2', 'different-now')).toEqual({ kind: 'proceed' });
    // an abandoned in-flight claim can be taken over after 60 s
    clock.advance(61);
    expect(await beginIdempotent(d, 'cred-1', 'key-2', 'different-now')).toEqual({ kind: 'proceed' });

    clock.advance(24 * 3600);
    expect(await beginIdempotent(d, 'cred-1', 'key-1', 'a-new-request')).toEqual({ kind: 'proceed' });
    await expect(beginIdempotent(d, 'cred-1', 'x'.repeat(256), fp)).rejects.toMatchObject({ code: 'ERR_VALIDATION_400' });
  });

  it('stores the response text sealed (bound to credential and key) and seals legacy plaintext rows', async () => {
    const d = { db: t.db, clock, secrets: testSecrets };
    const secretBody = '{"success":true,"data":{"client_secret":"cs_abc123","encryption_key":"ek_test_xyz"}}';
    expect(await beginIdempotent(d, 'cred-s', 'key-s', 'fp')).toEqual({ kind: 'proceed' });
    await completeIdempotent(d, 'cred-s', 'key-s', { status: 201, contentType: 'application/json', body: secretBody, headers: {} });
    const { rows } = await t.db.query<{ row: string; response_sealed: string }>(
      `SELECT to_jsonb(k)::text AS row, response_sealed FROM idempotency_keys k WHERE credential_id = 'cred-s'`,
    );
    expect(rows[0]!.row).not.toMatch(/cs_abc|ek_test|client_secret/);
    // a sealed response moved to another key does not open
    expect(() => testSecrets.open(rows[0]!.response_sealed, 'idempotency:cred-s:other')).toThrow();
    expect(await beginIdempotent(d, 'cred-s', 'key-s', 'fp')).toMatchObject({ kind: 'replay', status: 201, body: secretBody });

    // rows written before migration 002 (plaintext jsonb): the start-up step seals and clears them
    await t.db.query(
      `INSERT INTO idempotency_keys (credential_id, key, fingerprint, status, response_status, response_body, locked_at, created_at, expires_at)
       VALUES ('cred-legacy', 'k', 'fp', 'done', 200, '{"data":{"secret":"whsec_legacy"}}', $1, $1, $2)`,
      ['2026-11-21T10:00:00Z', '2099-01-01T00:00:00Z'],
    );
    expect(await t.db.transaction((tx) => sealLegacyIdempotencyResponses(tx, testSecrets))).toBe(1);
    const after = await t.db.query<{ row: string }>(`SELECT to_jsonb(k)::text AS row FROM idempotency_keys k WHERE credential_id = 'cred-legacy'`);
    expect(after.rows[0]!.row).not.toContain('whsec_legacy');
    expect(await beginIdempotent(d, 'cred-legacy', 'k', 'fp')).toMatchObject({ kind: 'replay', body: '{"data":{"secret":"whsec_legacy"}}' });
  });

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

  it('webhook endpoints: create with whsec_ secret, list by owner, delete', async () => {
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: 'pw' });
    const partnerEp = await createWebhookEndpoint(deps, m.partnerScope, { url: 'https://hooks.example/p', events: ['PAYMENT_FAILED', 'PAYMENT_SETTLED'] }, { allowInsecure: false });
    expect(partnerEp.id).toMatch(/^we_[A-Za-z0-9_-]{24}$/);
    expect(partnerEp.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(partnerEp.merchant_id).toBeNull();
    const merchantEp = await createWebhookEndpoint(deps, m.merchantScope, { url: 'http://127.0.0.1:9/m', events: ['MERCHANT_APPROVED'] }, { allowInsecure: true });
    expect(merchantEp.merchant_id).toBe(m.merchantId);
    await expect(createWebhookEndpoint(deps, m.partnerScope, { url: 'http://x.example', events: ['PAYMENT_FAILED'] }, { allowInsecure: false })).rejects.toMatchObject({ details: { url: 'must use https' } });
    await expect(createWebhookEndpoint(deps, m.partnerScope, { url: 'https://x.example', events: ['NOPE'] }, { allowInsecure: false })).rejects.toMatchObject({ details: { events: expect.any(String) } });

    expect((await listWebhookEndpoints(deps, m.partnerScope)).results.map((e) => e.id).sort()).toEqual([partnerEp.id, merchantEp.id].sort());
    const merchantList = await listWebhookEndpoints(deps, m.merchantScope);
    expect(merchantList.results.map((e) => e.id)).toEqual([merchantEp.id]);
    expect(merchantList.results[0]).not.toHaveProperty('secret');
    await expect(deleteWebhookEndpoint(deps, m.merchantScope, partnerEp.id)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
    await expect(deleteWebhookEndpoint(deps, m.partnerScope, partnerEp.id)).resolves.toEqual({ id: partnerEp.id, deleted: true });
    await expect(deleteWebhookEndpoint(deps, m.partnerScope, partnerEp.id)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
  });
});

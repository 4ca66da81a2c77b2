import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { approvedMerchant, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints } from './endpoints.js';

describe.each(testTargets())('webhook endpoints on %s', (target) => {
  let t: TestDb;
  let clock: ManualClock;
  beforeAll(async () => {
    t = await openTestDb(target);
    clock = new ManualClock('2026-11-21T10:00:00Z');
  });
  afterAll(async () => t?.dispose());

  it('webhook endpoints: create with whsec_ secret, list by owner, delete', async () => {
    const deps = testDeps(t.db, clock);
    const m = await approvedMerchant(deps, { partnerId: 'pw' });
    const partnerEp = await createWebhookEndpoint(deps, m.partnerScope, { url: 'https://hooks.example/p', events: ['PAYMENT_FAILED', 'PAYMENT_SETTLED'] }, { allowInsecure: false, allowPrivateDestinations: false });
    expect(partnerEp.id).toMatch(/^we_[A-Za-z0-9_-]{24}$/);
    expect(partnerEp.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(partnerEp.merchant_id).toBeNull();
    const merchantEp = await createWebhookEndpoint(deps, m.merchantScope, { url: 'http://127.0.0.1:9/m', events: ['MERCHANT_APPROVED'] }, { allowInsecure: true, allowPrivateDestinations: true });
    expect(merchantEp.merchant_id).toBe(m.merchantId);
    await expect(createWebhookEndpoint(deps, m.partnerScope, { url: 'http://x.example', events: ['PAYMENT_FAILED'] }, { allowInsecure: false, allowPrivateDestinations: false })).rejects.toMatchObject({ details: { url: 'must use https' } });

    expect((await listWebhookEndpoints(deps, m.partnerScope)).results.map((e) => e.id).sort()).toEqual([partnerEp.id, merchantEp.id].sort());
    const merchantList = await listWebhookEndpoints(deps, m.merchantScope);
    expect(merchantList.results.map((e) => e.id)).toEqual([merchantEp.id]);
    expect(merchantList.results[0]).not.toHaveProperty('secret');
    await expect(deleteWebhookEndpoint(deps, m.merchantScope, partnerEp.id)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
    await expect(deleteWebhookEndpoint(deps, m.partnerScope, partnerEp.id)).resolves.toEqual({ id: partnerEp.id, deleted: true });
    await expect(deleteWebhookEndpoint(deps, m.partnerScope, partnerEp.id)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
  });
});

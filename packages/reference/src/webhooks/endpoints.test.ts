import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { approvedMerchant, testDeps } from '../testing/fixtures.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import {
  checkWebhookUrl,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  privateDestinationReason,
} from './endpoints.js';

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
    const partnerEp = await createWebhookEndpoint(
      deps,
      m.partnerScope,
      { url: 'https://hooks.example/p', events: ['PAYMENT_FAILED', 'PAYMENT_SETTLED'] },
      { allowInsecure: false, allowPrivateDestinations: false },
    );
    expect(partnerEp.id).toMatch(/^we_[A-Za-z0-9_-]{24}$/);
    expect(partnerEp.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(partnerEp.merchant_id).toBeNull();
    const merchantEp = await createWebhookEndpoint(
      deps,
      m.merchantScope,
      { url: 'http://127.0.0.1:9/m', events: ['MERCHANT_APPROVED'] },
      { allowInsecure: true, allowPrivateDestinations: true },
    );
    expect(merchantEp.merchant_id).toBe(m.merchantId);
    await expect(
      createWebhookEndpoint(
        deps,
        m.partnerScope,
        { url: 'http://x.example', events: ['PAYMENT_FAILED'] },
        { allowInsecure: false, allowPrivateDestinations: false },
      ),
    ).rejects.toMatchObject({ details: { url: 'must use https' } });

    expect((await listWebhookEndpoints(deps, m.partnerScope)).results.map((e) => e.id).sort()).toEqual(
      [partnerEp.id, merchantEp.id].sort(),
    );
    const merchantList = await listWebhookEndpoints(deps, m.merchantScope);
    expect(merchantList.results.map((e) => e.id)).toEqual([merchantEp.id]);
    expect(merchantList.results[0]).not.toHaveProperty('secret');
    await expect(deleteWebhookEndpoint(deps, m.merchantScope, partnerEp.id)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
    await expect(deleteWebhookEndpoint(deps, m.partnerScope, partnerEp.id)).resolves.toEqual({ id: partnerEp.id, deleted: true });
    await expect(deleteWebhookEndpoint(deps, m.partnerScope, partnerEp.id)).rejects.toMatchObject({ code: 'ERR_WEBHOOK_404' });
  });
});

describe('webhook endpoint URLs in production (SSRF guard at the API, D35)', () => {
  it.each([
    ['https://127.0.0.1/hook', '127.0.0.1 is loopback'],
    ['https://127.1:8443/hook', '127.0.0.1 is loopback'],
    ['https://0x7f000001/hook', '127.0.0.1 is loopback'],
    ['https://2130706433/hook', '127.0.0.1 is loopback'],
    ['https://[::1]/hook', '::1 is loopback'],
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1 is ipv4Mapped'],
    ['https://10.0.0.7/hook', '10.0.0.7 is private'],
    ['https://192.168.1.20/hook', '192.168.1.20 is private'],
    ['https://172.16.5.4/hook', '172.16.5.4 is private'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is linkLocal'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254 is uniqueLocal'],
    ['https://[fe80::1]/', 'fe80::1 is linkLocal'],
    ['https://100.64.0.1/', '100.64.0.1 is carrierGradeNat'],
    ['https://0.0.0.0/', '0.0.0.0 is unspecified'],
    ['https://localhost/hook', 'localhost is local or internal'],
    ['https://localhost./hook', 'localhost is local or internal'],
    ['https://api.localhost/hook', 'api.localhost is local or internal'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal is local or internal'],
    ['https://printer.local/', 'printer.local is local or internal'],
    ['https://router.home.arpa/', 'router.home.arpa is local or internal'],
    ['https://intranet/hook', 'intranet is local or internal'],
  ])('refuses %s with 400 naming url', (url, reason) => {
    expect(() => checkWebhookUrl(url, { allowInsecure: false, allowPrivateDestinations: false })).toThrow(
      expect.objectContaining({ code: 'ERR_VALIDATION_400', status: 400, details: { url: expect.stringContaining(reason) } }),
    );
    // the sandbox keeps allowing them for local receivers (http too)
    expect(checkWebhookUrl(url, { allowInsecure: true, allowPrivateDestinations: true })).toBe(url);
  });

  it.each([
    'https://shop.example/webhooks/paygate',
    'https://93.184.215.14/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://hooks.example.com:8443/x?y=1',
  ])('accepts the public destination %s (names are checked again when a delivery connects)', (url) => {
    expect(checkWebhookUrl(url, { allowInsecure: false, allowPrivateDestinations: false })).toBe(url);
  });

  it('classifies hosts as the URL parser leaves them', () => {
    expect(privateDestinationReason(new URL('https://[::ffff:10.0.0.1]/').hostname)).toMatch(/ipv4Mapped/);
    expect(privateDestinationReason(new URL('https://EXAMPLE.com/').hostname)).toBeUndefined();
  });
});

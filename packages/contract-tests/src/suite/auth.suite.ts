/**
 * Authentication and authorisation (Schemathesis ignored_auth, missing_required_header, unsupported_method,
 * use_after_free, ensure_resource_availability), for every operation of the spec:
 * - without credentials / with a wrong secret: 401, never data;
 * - with another tenant's credentials (another merchant; in-process also another partner): 404 (or 403 for
 *   merchant credentials on partner-only operations), never data;
 * - undeclared methods on known paths: 405 or 404 in the error envelope;
 * - a deleted webhook endpoint is gone (404 on delete, absent from the list);
 * - created resources are readable right after creation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTargets, type GatewayTarget } from '../support/gateway.js';
import { dataOf, openPaygate, type Credentials, type Paygate } from '../support/paygate.js';
import { MISSING_IDS, prepareWorld, validRequest, type World } from '../support/requests.js';
import { fillPath, HTTP_METHODS, operations } from '../support/spec.js';
import { useCoverage } from './coverage.js';
import type { CheckedResponse } from '../support/conformance.js';

useCoverage('auth');

const PARTNER_ONLY = new Set(operations.filter((o) => o.responses.has('403') && o.secured).map((o) => o.operationId));

function expectNoData(res: CheckedResponse): void {
  expect(res.json, res.text).toMatchObject({ success: false });
  expect(res.json).not.toHaveProperty('data');
}

/** Paths of the world's own resources that a foreign tenant must not see. */
const TENANT_SCOPED = operations.filter((o) => o.secured && (o.path.includes('{') || o.method !== 'get'));

describe.each(gatewayTargets())('auth [%s]', (target: GatewayTarget) => {
  let pg: Paygate;
  let w: World;
  let otherPartner: Credentials | undefined;

  beforeAll(async () => {
    pg = await openPaygate(target);
    w = await prepareWorld(pg);
    const rt = pg.gw.runtime;
    if (rt) {
      // A second partner, seeded the way the runtime seeds its own (in-process only).
      const { ensurePartnerCredential } = await import('@paygate/reference');
      otherPartner = { clientId: `partner_other_${Date.now()}`, clientSecret: 'other-partner-secret-0123456789' };
      await ensurePartnerCredential(rt.deps, { ...otherPartner, partnerId: 'other-partner', partnerName: 'Other partner' });
    }
  });
  afterAll(() => pg?.close());

  it.each(operations.filter((o) => o.secured).map((o) => [o.operationId, o] as const))(
    '%s: no credentials, wrong secret, unknown client -> 401',
    async (_id, op) => {
      const r = await validRequest(pg, w, op);
      const who = r.who ?? pg.partner;
      for (const creds of [
        undefined,
        { clientId: who.clientId, clientSecret: 'wrong-secret-0000000000' },
        { clientId: 'nobody', clientSecret: who.clientSecret },
      ]) {
        const res = await pg.call(r.method, r.path, creds, r.req);
        expect(res.status, `${op.operationId}: ${res.text}`).toBe(401);
        expect(res.error?.code).toBe('ERR_AUTH_000');
        expectNoData(res);
      }
      // only one of the two headers
      const half = await pg.call(r.method, r.path, undefined, { ...r.req, headers: { 'x-client-id': who.clientId } });
      expect(half.status).toBe(401);
    },
  );

  it.each(TENANT_SCOPED.filter((o) => !PARTNER_ONLY.has(o.operationId)).map((o) => [o.operationId, o] as const))(
    "%s: another merchant's credentials never see this merchant's resources",
    async (_id, op) => {
      const r = await validRequest(pg, w, op);
      if (!r.path.match(/\/((OD|PR|RF|ST)\d+|we_|dlv_|doc_|session_)/)) return; // no resource of `m` in the path (e.g. create operations)
      const res = await pg.call(r.method, r.path, w.other.credentials, r.req);
      // A checkout session of another tenant is, to this caller, an invalid session: the seed's ERR_AUTH_000 with details.session_id.
      const expected = r.path.includes('/session_') ? [401, 404] : [404];
      expect(expected, `${op.operationId} ${r.path}: ${res.text}`).toContain(res.status);
      if (res.status === 401) expect(res.error?.details?.['session_id']).toBeDefined();
      expectNoData(res);
    },
  );

  it.each(operations.filter((o) => PARTNER_ONLY.has(o.operationId)).map((o) => [o.operationId, o] as const))(
    '%s: merchant credentials on a partner-only operation -> 403',
    async (_id, op) => {
      const r = await validRequest(pg, w, op);
      const res = await pg.call(r.method, r.path, w.m.credentials, r.req);
      expect(res.status, res.text).toBe(403);
      expectNoData(res);
    },
  );

  it("another partner sees none of this partner's merchants or their resources", async () => {
    if (!otherPartner) return;
    const o = otherPartner;
    for (const path of [
      `/partners/merchants/${w.m.merchantId}/`,
      `/pg/orders/${w.paidOrderId}`,
      `/pg/payments/${w.paymentId}/`,
      `/pg/refunds/${w.refundId}`,
      `/pg/settlements/${w.settlementId}`,
    ]) {
      const res = await pg.call('GET', path, o);
      expect(res.status, `${path}: ${res.text}`).toBe(404);
      expectNoData(res);
    }
    const list = dataOf<{ count: number }>(await pg.expectStatus(200, 'GET', '/partners/merchants/', o));
    expect(list.count).toBe(0);
    const payments = dataOf<{ count: number }>(
      await pg.expectStatus(200, 'GET', '/pg/payments/', o, { query: { merchant_id: w.m.merchantId } }),
    );
    expect(payments.count).toBe(0);
    const del = await pg.call('DELETE', `/webhooks/endpoints/${w.endpointId}`, o);
    expect(del.status).toBe(404);
    const order = await pg.call('POST', '/pg/orders/', o, { json: { amount: '1.00' }, headers: { 'x-merchant-id': w.m.merchantId } });
    expect([400, 404]).toContain(order.status);
  });

  it('X-Merchant-ID of another merchant with merchant credentials is refused', async () => {
    const res = await pg.call('GET', `/pg/orders/${w.paidOrderId}`, w.m.credentials, { headers: { 'x-merchant-id': w.other.merchantId } });
    expect([400, 403, 404]).toContain(res.status);
    expectNoData(res);
  });

  it('missing required header: X-Merchant-ID on order creation with partner credentials', async () => {
    const res = await pg.call(
      'POST',
      '/pg/orders/',
      pg.partner,
      (await validRequest(pg, w, operations.find((o) => o.operationId === 'createOrder')!)).req,
    );
    expect(res.status, res.text).toBe(400);
    // D41: one spelling, the header's name in lower case
    expect(Object.keys(res.error?.details ?? {})).toContain('x-merchant-id');
  });

  it('unsupported methods on every known path: 405 (or 404) in the error envelope', async () => {
    const paths = [...new Set(operations.map((o) => o.path))];
    for (const template of paths) {
      const declared = new Set(operations.filter((o) => o.path === template).map((o) => o.method));
      const params: Record<string, string> = {
        merchant_id: w.m.merchantId,
        order_id: w.paidOrderId,
        payment_id: w.paymentId,
        refund_id: w.refundId,
        settlement_id: w.settlementId,
        endpoint_id: w.endpointId,
        delivery_id: w.deliveryId,
        session_id: `session_${'A'.repeat(43)}`,
        document_id: MISSING_IDS['document_id']!,
      };
      const path = fillPath(template, params);
      for (const method of HTTP_METHODS.filter((m) => !declared.has(m) && m !== 'head' && m !== 'options' && m !== 'trace')) {
        const res = await pg.call(method, path, pg.partner, method === 'get' || method === 'delete' ? {} : { json: {} });
        expect([404, 405], `${method.toUpperCase()} ${path}: ${res.status} ${res.text}`).toContain(res.status);
        expect(res.error?.code).toMatch(/^ERR_REQUEST_40[45]$/);
      }
    }
  });

  it('A19: one webhook endpoint is only deleted (to change it, delete it and register a new one): GET, PATCH, PUT are 405', async () => {
    for (const method of ['get', 'patch', 'put']) {
      const res = await pg.call(
        method,
        `/webhooks/endpoints/${w.endpointId}`,
        w.m.credentials,
        method === 'get' ? {} : { json: { url: 'https://shop.example/changed' } },
      );
      expect(res.status, `${method.toUpperCase()}: ${res.text}`).toBe(405);
      expect(res.error?.code).toBe('ERR_REQUEST_405');
      expect(res.headers.get('allow')).toBe('DELETE');
    }
  });

  it('use after free: a deleted webhook endpoint is gone', async () => {
    const created = await pg.expectStatus(201, 'POST', '/webhooks/endpoints', w.m.credentials, {
      json: { url: 'https://shop.example/x', events: ['PAYMENT_FAILED'] },
    });
    const id = dataOf<{ id: string }>(created).id;
    const listed = dataOf<{ results: { id: string }[] }>(await pg.expectStatus(200, 'GET', '/webhooks/endpoints', w.m.credentials));
    expect(listed.results.map((e) => e.id)).toContain(id); // ensure_resource_availability
    await pg.expectStatus(200, 'DELETE', `/webhooks/endpoints/${id}`, w.m.credentials);
    const again = await pg.expectStatus(404, 'DELETE', `/webhooks/endpoints/${id}`, w.m.credentials);
    expect(again.error?.code).toBe('ERR_WEBHOOK_404');
    const after = dataOf<{ results: { id: string }[] }>(await pg.expectStatus(200, 'GET', '/webhooks/endpoints', w.m.credentials));
    expect(after.results.map((e) => e.id)).not.toContain(id);
  });

  it('use after free: rotated merchant credentials work through the overlap window only, then never again', async () => {
    const acct = await pg.onboard();
    await pg.expectStatus(200, 'GET', '/pg/payments/', acct.credentials);
    // rotation keeps the old set for the overlap window (default 24 h, D36)
    const next = await pg.issueCredentials(acct.merchantId);
    await pg.expectStatus(200, 'GET', '/pg/payments/', acct.credentials);
    // immediate revocation ends the window: the old set is dead, the new one works
    const revoked = dataOf<{ revoked_client_ids: string[] }>(
      await pg.expectStatus(200, 'DELETE', `/partners/merchants/${acct.merchantId}/credentials/previous`, pg.partner),
    );
    expect(revoked.revoked_client_ids).toEqual([acct.credentials.clientId]);
    expect((await pg.call('GET', '/pg/payments/', acct.credentials)).status).toBe(401);
    await pg.expectStatus(200, 'GET', '/pg/payments/', next.credentials);
    // a rotation with overlap_seconds 0 revokes at once
    await pg.expectStatus(201, 'POST', `/partners/merchants/${acct.merchantId}/credentials`, pg.partner, { json: { overlap_seconds: 0 } });
    expect((await pg.call('GET', '/pg/payments/', next.credentials)).status).toBe(401);
  });

  it('ensure_resource_availability: every created resource is readable right after creation', async () => {
    const merchantId = await pg.createMerchant();
    await pg.expectStatus(200, 'GET', `/partners/merchants/${merchantId}/`, pg.partner);
    const { orderId, paymentId } = await pg.paidOrder(w.m, '10.00');
    await pg.expectStatus(200, 'GET', `/pg/orders/${orderId}`, w.m.credentials);
    await pg.expectStatus(200, 'GET', `/pg/payments/${paymentId}/`, w.m.credentials);
    const refund = dataOf<{ refund_id: string }>(
      await pg.expectStatus(200, 'POST', '/pg/refunds', w.m.credentials, { json: { payment_id: paymentId, refund_amount: '1.00' } }),
    );
    await pg.expectStatus(200, 'GET', `/pg/refunds/${refund.refund_id}`, w.m.credentials);
    await pg.expectStatus(200, 'GET', `/pg/settlements/${w.settlementId}`, w.m.credentials);
  });
});

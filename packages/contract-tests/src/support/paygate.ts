/**
 * Contract-test context: a gateway (in-process or remote), a conformance-checking request function, and helpers
 * that build valid requests from the spec's own examples.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createChecker, type ApiRequest, type CheckedResponse, type Checker } from './conformance.js';
import { startGateway, type Gateway, type GatewayTarget, type StartGatewayOptions } from './gateway.js';
import { resolvePointer, type Json, type JsonObject } from './spec.js';

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export interface MerchantAccount {
  merchantId: string;
  credentials: Credentials;
  encryptionKey: string;
}

export function authHeaders(c: Credentials | undefined): Record<string, string> {
  return c ? { 'x-client-id': c.clientId, 'x-client-secret': c.clientSecret } : {};
}

function clone<T extends Json>(v: T): T {
  return structuredClone(v);
}

/** The createMerchant request example from the spec. */
export function merchantBody(): JsonObject {
  return clone(resolvePointer('#/paths/~1partners~1merchants~1/post/requestBody/content/application~1json/example') as JsonObject);
}

/**
 * A createOrder request example from the spec (`hosted`, `intent`, `collection`), with a fresh reference_id.
 * The optional `invoice` group is dropped unless `withInvoice` (see flows.test.ts: an order created with an invoice
 * reads back non-conformant, a gateway bug reported by its own test; the other flows should not all fail on it).
 */
export function orderBody(
  overrides: JsonObject = {},
  example: 'hosted' | 'intent' | 'collection' = 'hosted',
  withInvoice = false,
): JsonObject {
  const base = clone(
    resolvePointer(`#/paths/~1pg~1orders~1/post/requestBody/content/application~1json/examples/${example}/value`) as JsonObject,
  );
  if (!withInvoice) delete base['invoice'];
  return { ...base, reference_id: `ref-${randomUUID()}`, ...overrides };
}

export interface Paygate {
  gw: Gateway;
  api: Checker;
  partner: Credentials;
  /** Request as `who` (undefined = no credentials). */
  call(method: string, path: string, who: Credentials | undefined, req?: ApiRequest): Promise<CheckedResponse>;
  /** Partner call asserting the status. */
  expectStatus(status: number, method: string, path: string, who: Credentials | undefined, req?: ApiRequest): Promise<CheckedResponse>;
  createMerchant(body?: JsonObject): Promise<string>;
  approve(merchantId: string): Promise<void>;
  issueCredentials(merchantId: string): Promise<{ credentials: Credentials; encryptionKey: string }>;
  /** Merchant created, approved and given credentials. */
  onboard(): Promise<MerchantAccount>;
  createOrder(who: Credentials, body?: JsonObject, headers?: Record<string, string>): Promise<CheckedResponse>;
  /** Hosted order paid through the sandbox checkout completion; returns order and payment id. */
  paidOrder(m: MerchantAccount, amount?: string): Promise<{ orderId: string; paymentId: string }>;
  close(): Promise<void>;
}

export async function openPaygate(target: GatewayTarget, options: Omit<StartGatewayOptions, 'target'> = {}): Promise<Paygate> {
  // The brief's 100 requests / 10 s would throttle the suite itself; 429 is tested on a gateway of its own.
  const gw = await startGateway({ target, validateResponses: false, rateLimit: { limit: 1_000_000 }, ...options });
  // against a deployment, its rate limit is waited out (bounded) instead of failing tests on 429 bodies (D125 paygate contract checks any API against its spec)
  const api = createChecker({ baseUrl: gw.baseUrl, ...(gw.runtime === null ? { rateLimit: { maxWaitMs: 30_000 } } : {}) });
  const partner = gw.partner;
  const call: Paygate['call'] = (method, path, who, req = {}) =>
    api.request(method, path, { ...req, headers: { ...authHeaders(who), ...req.headers } });
  const expectStatus: Paygate['expectStatus'] = async (status, method, path, who, req) => {
    const res = await call(method, path, who, req);
    expect(res.status, `${method} ${path}: ${res.text.slice(0, 400)}`).toBe(status);
    return res;
  };
  const self: Paygate = {
    gw,
    api,
    partner,
    call,
    expectStatus,
    async createMerchant(body = merchantBody()) {
      const res = await expectStatus(201, 'POST', '/partners/merchants/', partner, { json: body });
      return (res.json as { data: { id: string } }).data.id;
    },
    async approve(merchantId) {
      await expectStatus(200, 'POST', `/sandbox/merchants/${merchantId}/kyc`, partner, { json: { status: 'APPROVED' } });
    },
    async issueCredentials(merchantId) {
      const res = await expectStatus(201, 'POST', `/partners/merchants/${merchantId}/credentials`, partner);
      const d = (res.json as { data: { client_id: string; client_secret: string; encryption_key: string } }).data;
      return { credentials: { clientId: d.client_id, clientSecret: d.client_secret }, encryptionKey: d.encryption_key };
    },
    async onboard() {
      const merchantId = await self.createMerchant();
      await self.approve(merchantId);
      const { credentials, encryptionKey } = await self.issueCredentials(merchantId);
      return { merchantId, credentials, encryptionKey };
    },
    createOrder(who, body = orderBody(), headers = {}) {
      return call('POST', '/pg/orders/', who, { json: body, headers });
    },
    async paidOrder(m, amount = '1500.00') {
      const created = await self.createOrder(m.credentials, orderBody({ amount }));
      expect(created.status, created.text).toBe(200);
      const { order_id: orderId, session_id: sessionId } = (created.json as { data: { order_id: string; session_id: string } }).data;
      await expectStatus(200, 'POST', `/sandbox/checkout/${sessionId}/complete`, m.credentials, {
        json: { outcome: 'success', mop_type: 'UPI' },
      });
      const order = await expectStatus(200, 'GET', `/pg/orders/${orderId}`, m.credentials);
      const paymentId = (order.json as { data: { payments: { payment_id: string }[] } }).data.payments[0]!.payment_id;
      return { orderId, paymentId };
    },
    close: () => gw.close(),
  };
  return self;
}

/** `data` of a success envelope. */
export function dataOf<T = Record<string, unknown>>(res: CheckedResponse): T {
  return (res.json as { data: T }).data;
}

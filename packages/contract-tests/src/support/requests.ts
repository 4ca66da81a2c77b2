/**
 * Valid requests for every operation of the spec, against a prepared world (merchant, order, payment, refund,
 * settlement, webhook endpoint). Bodies come from the spec's own examples where it has them. The table is keyed by the
 * generated `OperationId`, so an operation new in the spec fails the type check until it has its entry here.
 */
import { randomUUID } from 'node:crypto';
import type { ApiRequest } from './conformance.js';
import type { Credentials, MerchantAccount, Paygate } from './paygate.js';
import { dataOf, merchantBody, orderBody } from './paygate.js';
import { fillPath, type OperationSpec } from './spec.js';
import type { OperationId } from '@paygate/contract';

export interface World {
  m: MerchantAccount;
  /** Another merchant of the same partner (other tenant for merchant credentials). */
  other: MerchantAccount;
  pendingOrderId: string;
  paidOrderId: string;
  paymentId: string;
  refundId: string;
  settlementId: string;
  endpointId: string;
  /** An endpoint of `m` with one delivery (a PAYMENT_FAILED after its registration), and that delivery's id. */
  deliveryEndpointId: string;
  deliveryId: string;
  /** A fresh, unused checkout session of `m` (call `freshSession`). */
}

export interface BuiltRequest {
  method: string;
  path: string;
  who: Credentials | undefined;
  req: ApiRequest;
}

/** A tiny valid PDF. */
export function pdfBlob(): Blob {
  return new Blob([Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1')], { type: 'application/pdf' });
}

export function multipart(fields: Record<string, string>, file: Blob = pdfBlob(), name = 'doc.pdf'): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  f.set('file', file, name);
  return f;
}

export async function prepareWorld(pg: Paygate): Promise<World> {
  const m = await pg.onboard();
  const other = await pg.onboard();
  const pending = await pg.createOrder(m.credentials);
  const { orderId: paidOrderId, paymentId } = await pg.paidOrder(m, '2000.00');
  const refund = await pg.expectStatus(200, 'POST', '/pg/refunds', m.credentials, {
    json: { payment_id: paymentId, refund_amount: '10.00' },
  });
  await pg.paidOrder(m, '50.00');
  const run = await pg.expectStatus(200, 'POST', '/sandbox/settlements/run', pg.partner, { json: { merchant_id: m.merchantId } });
  const ep = await pg.expectStatus(201, 'POST', '/webhooks/endpoints', m.credentials, {
    json: { url: 'https://shop.example/hooks', events: ['PAYMENT_FAILED'] },
  });
  const delivery = await worldDelivery(pg, m);
  return {
    m,
    other,
    pendingOrderId: dataOf<{ order_id: string }>(pending).order_id,
    paidOrderId,
    paymentId,
    refundId: dataOf<{ refund_id: string }>(refund).refund_id,
    settlementId: dataOf<{ settlements: { settlement_id: string }[] }>(run).settlements[0]!.settlement_id,
    endpointId: dataOf<{ id: string }>(ep).id,
    ...delivery,
  };
}

/**
 * An endpoint of `m` and a delivery to it: a failed payment after the endpoint's registration, fanned out by the
 * worker (in-process: a tick, whose attempt to the closed port 9 fails at once; remote: its own worker, polled).
 */
async function worldDelivery(pg: Paygate, m: MerchantAccount): Promise<{ deliveryEndpointId: string; deliveryId: string }> {
  const runtime = pg.gw.runtime;
  const url = runtime ? 'http://127.0.0.1:9/paygate' : 'https://shop.example/paygate-deliveries';
  const ep = await pg.expectStatus(201, 'POST', '/webhooks/endpoints', m.credentials, { json: { url, events: ['PAYMENT_FAILED'] } });
  const endpointId = dataOf<{ id: string }>(ep).id;
  const order = dataOf<{ session_id: string }>(await pg.createOrder(m.credentials));
  await pg.expectStatus(200, 'POST', `/sandbox/checkout/${order.session_id}/complete`, m.credentials, {
    json: { outcome: 'failure', mop_type: 'UPI' },
  });
  for (let i = 0; i < 20; i++) {
    if (runtime) await runtime.worker.tick();
    else await new Promise((resolve) => setTimeout(resolve, 500));
    const page = dataOf<{ results: { id: string }[] }>(
      await pg.expectStatus(200, 'GET', `/webhooks/endpoints/${endpointId}/deliveries`, m.credentials),
    );
    const first = page.results[0];
    if (first) return { deliveryEndpointId: endpointId, deliveryId: first.id };
  }
  throw new Error(`no delivery reached webhook endpoint ${endpointId} within 10 s: is the gateway's worker running?`);
}

export async function freshSession(pg: Paygate, m: MerchantAccount): Promise<{ orderId: string; sessionId: string }> {
  const res = await pg.createOrder(m.credentials);
  const d = dataOf<{ order_id: string; session_id: string }>(res);
  return { orderId: d.order_id, sessionId: d.session_id };
}

/** What one entry of the table gets: the harness, the world, the variant asked for and the operation's path filler. */
interface RequestInputs {
  pg: Paygate;
  w: World;
  variant: number;
  path: (params?: Record<string, string>) => string;
  /** The world's merchant's credentials. */
  m: Credentials;
  /** The partner's credentials. */
  P: Credentials;
}

/**
 * A valid request per operation of Paygate's spec, keyed by the generated `OperationId`: a new operation in the spec
 * is a type error here until it has its entry (issue 35: a table of samples, not a switch).
 */
const VALID_REQUESTS: { readonly [K in OperationId]: (inputs: RequestInputs) => BuiltRequest | Promise<BuiltRequest> } = {
  getCheckoutPage: async ({ pg, w, path }) => {
    const { sessionId } = await freshSession(pg, w.m);
    return { method: 'GET', path: path({ session_id: sessionId }), who: undefined, req: {} };
  },
  submitCheckoutPage: async ({ pg, w, variant, path }) => {
    const { sessionId } = await freshSession(pg, w.m);
    return {
      method: 'POST',
      path: path({ session_id: sessionId }),
      who: undefined,
      req: { body: new URLSearchParams({ outcome: variant ? 'failure' : 'cancel' }) },
    };
  },
  listMerchants: ({ variant, path, P }) => {
    return { method: 'GET', path: path(), who: P, req: { query: { page: 1, page_size: 10 + variant } } };
  },
  createMerchant: ({ variant, path, P }) => {
    const body = merchantBody();
    (body['company_details'] as Record<string, unknown>)['brand_name'] = `Brand ${variant} ${randomUUID().slice(0, 8)}`;
    return { method: 'POST', path: path(), who: P, req: { json: body } };
  },
  getMerchant: ({ w, path, P }) => {
    return { method: 'GET', path: path({ merchant_id: w.m.merchantId }), who: P, req: {} };
  },
  updateMerchant: ({ w, variant, path, P }) => {
    return {
      method: 'PATCH',
      path: path({ merchant_id: w.m.merchantId }),
      who: P,
      req: { json: { company_details: { commodity: `Textiles ${variant}` } } },
    };
  },
  createMerchantCredentials: async ({ pg, variant, path, P }) => {
    // never rotate the world's merchants' credentials: a throwaway merchant per request
    return {
      method: 'POST',
      path: path({ merchant_id: await pg.createMerchant() }),
      who: P,
      req: variant ? { json: { overlap_seconds: 60 } } : {},
    };
  },
  revokePreviousMerchantCredentials: async ({ pg, path, P }) => {
    return { method: 'DELETE', path: path({ merchant_id: await pg.createMerchant() }), who: P, req: {} };
  },
  uploadMerchantDocument: ({ w, variant, path, P }) => {
    return {
      method: 'PATCH',
      path: path({ merchant_id: w.m.merchantId }),
      who: P,
      req: { body: multipart({ document_type: variant ? 'BANK_PROOF' : 'TAX_REGISTRATION' }) },
    };
  },
  createOrder: ({ variant, path, m }) => {
    return { method: 'POST', path: path(), who: m, req: { json: orderBody({ amount: `${100 + variant}.00` }) } };
  },
  getOrder: ({ w, path, m }) => {
    return { method: 'GET', path: path({ order_id: w.pendingOrderId }), who: m, req: {} };
  },
  updateOrder: ({ w, variant, path, m }) => {
    return {
      method: 'PATCH',
      path: path({ order_id: w.pendingOrderId }),
      who: m,
      req: { json: { buyer: { pan_number: variant ? 'ABCDE1234G' : 'ABCDE1234F' } } },
    };
  },
  uploadOrderDocument: ({ w, variant, path, m }) => {
    return {
      method: 'POST',
      path: path({ order_id: w.paidOrderId }),
      who: m,
      req: { body: multipart({ document_type: 'air_waybill', identifier: `AWB${variant}${Date.now()}` }) },
    };
  },
  listPayments: ({ variant, path, m }) => {
    return { method: 'GET', path: path(), who: m, req: { query: { page_size: 5 + variant, status: 'CAPTURED' } } };
  },
  getPayment: ({ w, path, m }) => {
    return { method: 'GET', path: path({ payment_id: w.paymentId }), who: m, req: {} };
  },
  listRefunds: ({ w, variant, path, m }) => {
    return { method: 'GET', path: path(), who: m, req: { query: { payment_id: w.paymentId, page_size: 5 + variant } } };
  },
  createRefund: ({ w, variant, path, m }) => {
    return { method: 'POST', path: path(), who: m, req: { json: { payment_id: w.paymentId, refund_amount: `1.0${variant}` } } };
  },
  getRefund: ({ w, path, m }) => {
    return { method: 'GET', path: path({ refund_id: w.refundId }), who: m, req: {} };
  },
  listSettlements: ({ variant, path, m }) => {
    return { method: 'GET', path: path(), who: m, req: { query: { page_size: 5 + variant } } };
  },
  getSettlement: ({ w, path, m }) => {
    return { method: 'GET', path: path({ settlement_id: w.settlementId }), who: m, req: {} };
  },
  listSettlementTransactions: ({ w, variant, path, m }) => {
    return { method: 'GET', path: path({ settlement_id: w.settlementId }), who: m, req: { query: { page: 1 + variant, page_size: 5 } } };
  },
  completeCheckoutSession: async ({ pg, w, variant, path, m }) => {
    const { sessionId } = await freshSession(pg, w.m);
    return {
      method: 'POST',
      path: path({ session_id: sessionId }),
      who: m,
      req: { json: { outcome: variant ? 'failure' : 'success', mop_type: 'UPI' } },
    };
  },
  advanceSandboxClock: ({ w, variant, path, P }) => {
    return { method: 'POST', path: path(), who: P, req: { json: { seconds: 1 + variant, merchant_id: w.m.merchantId } } };
  },
  getSandboxClock: ({ w, path, P }) => {
    return { method: 'GET', path: path(), who: P, req: { query: { merchant_id: w.m.merchantId } } };
  },
  setMerchantKycStatus: async ({ pg, variant, path, P }) => {
    return {
      method: 'POST',
      path: path({ merchant_id: await pg.createMerchant() }),
      who: P,
      req: { json: { status: variant ? 'REJECTED' : 'APPROVED', reason: `review ${variant}` } },
    };
  },
  completeOrderPayment: async ({ pg, variant, path, m }) => {
    const res = await pg.createOrder(m, orderBody({}, 'intent'));
    return {
      method: 'POST',
      path: path({ order_id: dataOf<{ order_id: string }>(res).order_id }),
      who: m,
      req: { json: { outcome: variant ? 'failure' : 'success' } },
    };
  },
  completeRefund: async ({ pg, w, variant, path, m }) => {
    const r = await pg.expectStatus(200, 'POST', '/pg/refunds', m, { json: { payment_id: w.paymentId, refund_amount: '1.00' } });
    return {
      method: 'POST',
      path: path({ refund_id: dataOf<{ refund_id: string }>(r).refund_id }),
      who: m,
      req: { json: { outcome: variant ? 'failed' : 'processed' } },
    };
  },
  runSettlements: ({ w, variant, path, P }) => {
    return {
      method: 'POST',
      path: path(),
      who: P,
      req: { json: variant ? { merchant_id: w.other.merchantId } : { merchant_id: w.m.merchantId } },
    };
  },
  downloadDocument: async ({ pg, w, variant, m, P }) => {
    // an air waybill uploaded to the world's paid order (they append): its `file` URL is the document's one URL
    const up = await pg.expectStatus(200, 'POST', fillPath('/pg/orders/{order_id}/documents/', { order_id: w.paidOrderId }), m, {
      body: multipart({ document_type: 'air_waybill', identifier: `AWB-doc-${randomUUID().slice(0, 8)}` }),
    });
    const file = dataOf<{ air_waybills: { file: string }[] }>(up).air_waybills.at(-1)!.file;
    return { method: 'GET', path: new URL(file).pathname, who: variant ? P : m, req: {} };
  },
  getCheckoutSdk: ({ path }) => {
    return { method: 'GET', path: path(), who: undefined, req: {} };
  },
  listWebhookEndpoints: ({ variant, path, m }) => {
    return { method: 'GET', path: path(), who: m, req: { query: { page_size: 5 + variant } } };
  },
  createWebhookEndpoint: ({ variant, path, m }) => {
    return {
      method: 'POST',
      path: path(),
      who: m,
      req: { json: { url: `https://shop.example/hooks/${variant}`, events: ['PAYMENT_SETTLED'] } },
    };
  },
  deleteWebhookEndpoint: async ({ pg, path, m }) => {
    const ep = await pg.expectStatus(201, 'POST', '/webhooks/endpoints', m, {
      json: { url: 'https://shop.example/tmp', events: ['PAYMENT_FAILED'] },
    });
    return { method: 'DELETE', path: path({ endpoint_id: dataOf<{ id: string }>(ep).id }), who: m, req: {} };
  },
  listWebhookDeliveries: ({ w, variant, path, m }) => {
    return { method: 'GET', path: path({ endpoint_id: w.deliveryEndpointId }), who: m, req: { query: { page_size: 5 + variant } } };
  },
  enableWebhookEndpoint: ({ w, path, m }) => {
    return { method: 'POST', path: path({ endpoint_id: w.endpointId }), who: m, req: {} };
  },
  redeliverWebhookDelivery: ({ w, path, m }) => {
    return { method: 'POST', path: path({ delivery_id: w.deliveryId }), who: m, req: {} };
  },
};

/**
 * A request for `op` that passes validation and authorisation (its outcome may still be a business 4xx, e.g. a
 * refund beyond the refundable amount). `variant` changes the body so two variants differ in fingerprint.
 */
export async function validRequest(pg: Paygate, w: World, op: OperationSpec, variant = 0): Promise<BuiltRequest> {
  const entry = (VALID_REQUESTS as Readonly<Record<string, (inputs: RequestInputs) => BuiltRequest | Promise<BuiltRequest>>>)[
    op.operationId
  ];
  if (entry === undefined)
    throw new Error(`validRequest: no valid request known for operation ${op.operationId} (new in the spec? add it to VALID_REQUESTS)`);
  const path = (params: Record<string, string> = {}) => fillPath(op.path, params);
  return entry({ pg, w, variant, path, m: w.m.credentials, P: pg.partner });
}

/** A well-shaped id that does not exist, per path parameter name. */
export const MISSING_IDS: Readonly<Record<string, string>> = {
  merchant_id: '99999999999',
  order_id: 'OD9999999999999999',
  payment_id: 'PR9999999999999999',
  refund_id: 'RF9999999999999999',
  settlement_id: 'ST9999999999999999',
  endpoint_id: 'we_AAAAAAAAAAAAAAAAAAAAAAAA',
  delivery_id: 'dlv_AAAAAAAAAAAAAAAAAAAAAA',
  document_id: `doc_${'A'.repeat(32)}`,
  session_id: `session_${'A'.repeat(43)}`,
};

/**
 * API helpers shared by the browser end-to-end tests (test/e2e) and the fault tests (test/faults): realistic request
 * bodies and the sandbox steps that put a gateway into the states a test needs. Everything goes through the public
 * HTTP API with the typed client (no database shortcuts).
 */
import { randomUUID } from 'node:crypto';
import { createPaygateClient, type components, type PaygateClient, type Result } from '@paygate/client';

type Schemas = components['schemas'];

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export interface MerchantAccess {
  merchantId: string;
  /** Merchant API credentials issued by POST /partners/merchants/{id}/credentials. */
  credentials: Credentials;
  /** The merchant's encryption key: signs the return-URL callback hash. */
  encryptionKey: string;
  /** Typed client authenticated as the merchant. */
  client: PaygateClient;
}

/** Typed client; `maxRetries: 0` by default so a test sees every answer exactly as the gateway gave it. */
export function clientFor(baseUrl: string, creds: Credentials, options: { maxRetries?: number; merchantId?: string } = {}): PaygateClient {
  return createPaygateClient({
    baseUrl,
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    maxRetries: options.maxRetries ?? 0,
    ...(options.merchantId !== undefined ? { merchantId: options.merchantId } : {}),
  });
}

/** The data of a successful call, or an error naming the operation, status and error envelope. */
export function expectOk<T>(what: string, result: Result<T>): T {
  if (!result.ok) throw new Error(`${what}: HTTP ${result.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export function merchantRequest(brand: string, country = 'IN'): Schemas['CreateMerchantRequest'] {
  return {
    settlement_details: {
      bank_account_number: '50100123456789',
      bank_account_name: `${brand} Exports Private Limited`,
      bank_swift_code: 'HDFCINBBXXX',
      bank_name: 'HDFC Bank',
      bank_branch_name: 'Fort, Mumbai',
      bank_address: 'Manekji Wadia Building, Nanik Motwani Marg, Fort',
      bank_city: 'Mumbai',
      bank_state: 'Maharashtra',
      bank_country: country,
      bank_pincode: '400001',
      routing_number: 'HDFC0000060',
    },
    company_details: {
      legal_name: `${brand} Exports Private Limited`,
      brand_name: brand,
      registration_number: 'U74999MH2020PTC123456',
      international_org_type: 'PRIVATE_LIMITED',
      tax_id: '27AAACA1234A1Z5',
      website: 'https://shop.example',
      monthly_avg_transaction_value: '250000.00',
      monthly_avg_transaction_volume: '1200',
      communication_address: '12 Marine Drive',
      communication_city: 'Mumbai',
      communication_state: 'Maharashtra',
      communication_country: 'IN',
      communication_pincode: '400002',
      same_as_registered_address: true,
      registered_address: '12 Marine Drive',
      registered_city: 'Mumbai',
      registered_state: 'Maharashtra',
      registered_country: 'IN',
      registered_pincode: '400002',
      business_category: 'RETAIL',
      business_mode: 'B2C',
      commodity: 'Handicrafts',
      payment_terms: 'IMMEDIATE',
      hs_codes: ['4602'],
      category: 'Home decor',
      description_of_products_and_services: 'Handmade cane baskets',
      agreement_details: 'Standard merchant agreement v3',
      purpose_code: 'P0103',
    },
  };
}

export function orderRequest(overrides: Partial<Schemas['CreateOrderRequest']> = {}): Schemas['CreateOrderRequest'] {
  return {
    amount: '1500.00',
    currency: 'INR',
    reference_id: `ref-${randomUUID()}`,
    buyer: {
      name: 'Priya Sharma',
      email: 'priya@example.com',
      phone: '+919812345678',
      address: { line_1: '4 Carter Road', line_2: 'Bandra West', city: 'Mumbai', state: 'Maharashtra', postal_code: '400050' },
    },
    product: {
      name: 'Cane basket',
      description: 'Large handwoven cane basket',
      hs_code: '4602',
      hs_code_description: 'Basketwork',
      type_of_goods: 'goods',
    },
    collection_mode: 'hosted_payment',
    upi_app_name: 'others',
    ...overrides,
  };
}

/**
 * Partner creates a merchant, approves its KYC (sandbox) and issues merchant credentials. Every step is checked.
 * Three partner requests (count them against the 100 / 10 s rate limit).
 */
export async function onboardMerchant(baseUrl: string, partner: PaygateClient, brand = 'Acme'): Promise<MerchantAccess> {
  const created = expectOk('createMerchant', await partner.merchants.create(merchantRequest(brand)));
  const merchantId = created.data.id;
  expectOk('setMerchantKycStatus APPROVED', await partner.sandbox.setMerchantKycStatus(merchantId, { status: 'APPROVED' }));
  const issued = expectOk('createMerchantCredentials', await partner.merchantCredentials.create(merchantId)).data;
  const credentials = { clientId: issued.client_id, clientSecret: issued.client_secret };
  return { merchantId, credentials, encryptionKey: issued.encryption_key, client: clientFor(baseUrl, credentials) };
}

/** Create a hosted order as the merchant; returns its order id and checkout session id. */
export async function createHostedOrder(
  merchant: MerchantAccess,
  overrides: Partial<Schemas['CreateOrderRequest']> = {},
): Promise<{ orderId: string; sessionId: string }> {
  const data = expectOk('createOrder', await merchant.client.orders.create(orderRequest(overrides))).data;
  if (!('session_id' in data)) throw new Error(`createOrder: expected a hosted order (session_id), got ${JSON.stringify(data)}`);
  return { orderId: data.order_id, sessionId: data.session_id };
}

/** Create a hosted order and finish its checkout through the sandbox API; returns the callback fields. */
export async function paidOrder(
  merchant: MerchantAccess,
  outcome: 'success' | 'failure' | 'cancel',
  overrides: Partial<Schemas['CreateOrderRequest']> = {},
): Promise<{ orderId: string; sessionId: string; callback: Schemas['ReturnUrlCallback'] }> {
  const order = await createHostedOrder(merchant, overrides);
  const done = expectOk(
    `completeCheckoutSession ${outcome}`,
    await merchant.client.sandbox.completeCheckoutSession(order.sessionId, { outcome, mop_type: 'UPI' }),
  );
  return { ...order, callback: done.data.redirect.fields };
}

/** Sleep (bounded waits only). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Poll `check` every `intervalMs` until it returns a value other than undefined, or fail after `timeoutMs` with the
 * description and the last observation.
 */
export async function waitFor<T>(
  description: string,
  check: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs: number; intervalMs?: number; describeLast?: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for ${description}${options.describeLast ? `: ${options.describeLast()}` : ''}`,
      );
    }
    await sleep(options.intervalMs ?? 100);
  }
}

import { createPaygateClient } from '@paygate/client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { openPaygate, type MerchantAccount, type Paygate } from '../support/paygate.js';

/**
 * The generated client against the reference gateway, for what the other contract tests drive with raw requests:
 * operations whose success body is not JSON (the checkout page and SDK) and request fields the spec defaults.
 */
describe('generated client against the gateway', () => {
  let pg: Paygate;
  let m: MerchantAccount;

  beforeAll(async () => {
    pg = await openPaygate('pglite');
    m = await pg.onboard();
  });
  afterAll(async () => {
    await pg?.close();
  });

  const client = () =>
    createPaygateClient({
      baseUrl: pg.gw.baseUrl,
      clientId: m.credentials.clientId,
      clientSecret: m.credentials.clientSecret,
      maxRetries: 0,
    });

  it('creates an order without the defaulted fields and reads the HTML checkout page and the SDK as text', async () => {
    const paygate = client();
    const created = await paygate.orders.create({
      amount: '250.00',
      currency: 'INR',
      reference_id: `client-${Date.now()}`,
      buyer: { name: 'Priya Sharma', email: 'priya.sharma@example.com', phone: '+919876543210' },
      product: { name: 'Saree', description: 'Silk saree' },
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const data = created.data.data;
    if (!('session_id' in data)) throw new Error('expected a hosted checkout session');

    const page = await paygate.checkout.getPage(data.session_id);
    if (!page.ok) throw new Error(JSON.stringify(page.error));
    expectTypeOf(page.data).toEqualTypeOf<string>();
    expect(page.data).toContain('<!doctype html>');
    expect(page.data).toContain('250.00');

    const sdk = await paygate.checkout.getSdk();
    if (!sdk.ok) throw new Error(JSON.stringify(sdk.error));
    expect(sdk.data).toContain('paymentSessionId');
  });

  it('surfaces the JSON error envelope of a text operation', async () => {
    const page = await client().checkout.getPage('session_unknown');
    expect(page.ok).toBe(false);
    if (page.ok) return;
    expect(page.status).toBe(401);
    expect(page.error.error.code).toBe('ERR_AUTH_000');
  });
});

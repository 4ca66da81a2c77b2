/**
 * Browser end-to-end checkout in real Chromium (playwright-core driving the system browser).
 *
 * A merchant site on 127.0.0.1 (test/e2e/merchant-site.ts) creates an order with its backend, loads /sdk/checkout.js
 * from the gateway and starts checkout with `Paygate({ mode: 'sandbox' }).checkout({ paymentSessionId })`. The
 * customer pays, fails or cancels on the hosted page; the browser POSTs the signed callback to the merchant's
 * return_url; the test verifies its hash with `verifyCallback` and the merchant's encryption key, then reads the
 * order. Screenshots of each step go to test-results/e2e/. Each method's fields, 3-D Secure, accessibility and the
 * desktop/phone screenshots are in checkout-methods.test.ts.
 *
 * Chromium: CHROMIUM_PATH or /usr/bin/chromium. Missing => fail when REQUIRE_BROWSER=1, else skip with a loud message.
 */
import path from 'node:path';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';
import { isBrowserAvailable } from './browser.js';
import { SCREENSHOTS, startCheckoutWorld, type CheckoutWorld } from './checkout-world.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyCallback } from '@paygate/client';
import type { Gateway } from '../support/gateway.js';
import { expectOk, type MerchantAccess } from '../faults/helpers/api.js';
import type { MerchantSite, ReceivedCallback } from './merchant-site.js';

const browserAvailable = isBrowserAvailable('BROWSER E2E TESTS');

type Outcome = 'success' | 'failure' | 'cancel';
const BUTTON: Record<Outcome, string> = { success: 'pay', failure: 'fail', cancel: 'cancel' };
const ORDER_STATUS = { success: 'payment_successful', failure: 'payment_failed', cancel: 'payment_cancelled' } as const;

// The only skip in the suite: no browser on a developer machine (CI fails instead, above).
describe.skipIf(!browserAvailable)('browser checkout in Chromium', () => {
  let gw: Gateway;
  let merchant: MerchantAccess;
  let site: MerchantSite;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[];
  let consoleWarnings: string[];

  let world: CheckoutWorld | undefined;

  beforeAll(async () => {
    world = await startCheckoutWorld();
    ({ gw, merchant, site, browser } = world);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 420, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    consoleErrors = [];
    consoleWarnings = [];
    page.on('console', (msg: ConsoleMessage) => {
      if (msg.type() === 'error') consoleErrors.push(`${page.url()}: ${msg.text()}`);
      if (msg.type() === 'warning') consoleWarnings.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(`${page.url()}: ${err.message}`));
  });

  afterEach(async () => {
    await context?.close();
  });

  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

  /** Merchant page -> SDK -> hosted page -> outcome -> return_url. Returns the order and the callback received. */
  async function checkout(
    name: string,
    outcome: Outcome,
    options: { option?: 'paymentSessionId' | 'sessionId'; method?: string; amount: string },
  ) {
    const before = site.callbacks.length;
    await page.goto(`${site.baseUrl}/shop?amount=${options.amount}&option=${options.option ?? 'paymentSessionId'}`);
    const order = site.orders[site.orders.length - 1];
    if (!order) throw new Error('the shop created no order');
    await expect.poll(() => page.evaluate(() => typeof (window as unknown as { Paygate?: unknown }).Paygate)).toBe('function');
    await shot(`${name}-1-merchant-page`);

    await page.click('#pay-now');
    await page.waitForURL(`${gw.baseUrl}/checkout/${order.sessionId}`);
    await page.locator('[data-testid="pay"]').waitFor();
    expect(await page.locator('[data-testid="order-id"]').textContent()).toBe(order.orderId);
    expect(await page.getAttribute('[data-testid="amount"]', 'data-amount')).toBe(options.amount);
    expect(await page.locator('[data-testid="sandbox-banner"]').isVisible()).toBe(true);
    if (options.method) await page.check(`[data-testid="method-${options.method}"]`);
    // Pay needs the method's fields (sandbox test values); Simulate failure and Cancel skip them
    if (outcome === 'success' && (options.method === 'CREDIT_CARD' || options.method === 'DEBIT_CARD')) {
      await page.fill('[data-testid="card_number"]', '4242 4242 4242 4242');
      await page.fill('[data-testid="card_expiry"]', '12/35');
      await page.fill('[data-testid="card_cvc"]', '123');
      await page.fill('[data-testid="card_name"]', 'Priya Sharma');
    }
    if (outcome === 'success' && options.method === 'NET_BANKING') await page.selectOption('[data-testid="bank_code"]', 'HDFC');
    await shot(`${name}-2-hosted-page`);

    await page.click(`[data-testid="${BUTTON[outcome]}"]`);
    await page.waitForURL(site.returnUrl);
    await page.locator('#status').waitFor();
    await shot(`${name}-3-return-url`);
    expect(site.callbacks.length).toBe(before + 1);
    const callback = site.callbacks[before] as ReceivedCallback;
    return { order, callback };
  }

  /** The callback is authentic (hash verifies with the encryption key) and any change to a hashed field breaks it. */
  function expectAuthentic(callback: ReceivedCallback): void {
    expect(callback.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(callback.form.get('hash')).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyCallback(callback.form, merchant.encryptionKey)).toBe(true);
    const tampered = new URLSearchParams(callback.form);
    tampered.set('status', 'payment_successful' === callback.form.get('status') ? 'payment_failed' : 'payment_successful');
    expect(verifyCallback(tampered, merchant.encryptionKey)).toBe(false);
    expect(verifyCallback(callback.form, `${merchant.encryptionKey}x`)).toBe(false);
  }

  async function readOrder(orderId: string) {
    return expectOk('getOrder', await merchant.client.orders.get(orderId)).data;
  }

  /** The session is single use: the hosted page now refuses it with ERR_AUTH_000 details.session_id. */
  async function expectSessionUsed(sessionId: string): Promise<void> {
    const res = await fetch(`${gw.baseUrl}/checkout/${sessionId}`);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error?: { code?: string; details?: Record<string, string> } };
    expect(body.error?.code).toBe('ERR_AUTH_000');
    expect(body.error?.details).toHaveProperty('session_id');
  }

  it('pays: callback verified, order payment_successful with a captured payment', async () => {
    const { order, callback } = await checkout('success', 'success', { method: 'CREDIT_CARD', amount: '1499.00' });
    expectAuthentic(callback);
    const f = Object.fromEntries(callback.form);
    expect(f).toMatchObject({ order_id: order.orderId, status: ORDER_STATUS.success, mop_type: 'CREDIT_CARD' });
    expect(f['payment_id']).toMatch(/^PR\d{16}$/);
    expect(f['bank_ref_num']).toMatch(/^\d{12}$/);
    expect(f['payment_completed_at']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+00:00$/);
    expect(await page.locator('#status').textContent()).toBe(ORDER_STATUS.success);

    const read = await readOrder(order.orderId);
    expect(read.status).toBe(ORDER_STATUS.success);
    expect(read.amount).toBe(1499);
    expect(read.payments).toHaveLength(1);
    expect(read.payments[0]).toMatchObject({ payment_id: f['payment_id'], status: 'captured', mop_type: 'CREDIT_CARD' });
    await expectSessionUsed(order.sessionId);
    expect(consoleErrors).toEqual([]);
  }, 120_000);

  it('fails: callback verified, order payment_failed with a failed payment', async () => {
    const { order, callback } = await checkout('failure', 'failure', { method: 'UPI', amount: '250.50' });
    expectAuthentic(callback);
    const f = Object.fromEntries(callback.form);
    expect(f).toMatchObject({ order_id: order.orderId, status: ORDER_STATUS.failure, mop_type: 'UPI' });
    expect(f['payment_id']).toMatch(/^PR\d{16}$/);

    const read = await readOrder(order.orderId);
    expect(read.status).toBe(ORDER_STATUS.failure);
    expect(read.payments).toHaveLength(1);
    expect(read.payments[0]).toMatchObject({ payment_id: f['payment_id'], status: 'failed' });
    await expectSessionUsed(order.sessionId);
    expect(consoleErrors).toEqual([]);
  }, 120_000);

  it('cancels: callback verified, order payment_cancelled without a payment', async () => {
    const { order, callback } = await checkout('cancel', 'cancel', { amount: '75.00' });
    expectAuthentic(callback);
    const f = Object.fromEntries(callback.form);
    expect(f).toMatchObject({ order_id: order.orderId, status: ORDER_STATUS.cancel, payment_id: '' });

    const read = await readOrder(order.orderId);
    expect(read.status).toBe(ORDER_STATUS.cancel);
    expect(read.payments).toEqual([]);
    await expectSessionUsed(order.sessionId);
    expect(consoleErrors).toEqual([]);
  }, 120_000);

  it('accepts the deprecated sessionId alias (with a console warning) and completes the payment', async () => {
    const { order, callback } = await checkout('alias', 'success', { option: 'sessionId', method: 'NET_BANKING', amount: '10.00' });
    expect(
      consoleWarnings.some((w) => /sessionId.*deprecated/i.test(w)),
      JSON.stringify(consoleWarnings),
    ).toBe(true);
    expectAuthentic(callback);
    expect(callback.form.get('status')).toBe(ORDER_STATUS.success);
    expect(callback.form.get('mop_type')).toBe('NET_BANKING');
    expect((await readOrder(order.orderId)).status).toBe(ORDER_STATUS.success);
    expect(consoleErrors).toEqual([]);
  }, 120_000);
});

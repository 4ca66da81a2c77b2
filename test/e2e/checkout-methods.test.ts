/**
 * Every method of the hosted checkout in real Chromium (playwright-core driving the system browser), from the
 * merchant site (test/e2e/merchant-site.ts) through the SDK to the hosted page and back to return_url:
 * UPI (the QR code decodes to the order's upi://pay intent on a desktop; UPI app buttons on a phone; the VPA path),
 * cards (spaced and branded as typed, success, a decline retried with another method in the same session, 3-D Secure
 * approved and failed), net banking, cancel; the same card payment with JavaScript disabled; an axe-core check of
 * every page the customer sees; screenshots at desktop (1280x800) and phone (390x844) sizes in test-results/e2e/.
 *
 * Chromium: CHROMIUM_PATH or /usr/bin/chromium. Missing => fail when REQUIRE_BROWSER=1, else skip with a loud message.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCallback } from '@paygate/client';
import type { Gateway } from '../support/gateway.js';
import { createHostedOrder, expectOk, type MerchantAccess } from '../faults/helpers/api.js';
import { isBrowserAvailable } from './browser.js';
import {
  expectAccessible,
  openPage,
  SCREENSHOTS,
  startCheckoutWorld,
  VIEWPORTS,
  type CheckoutWorld,
  type ViewportName,
} from './checkout-world.js';
import type { MerchantSite, ReceivedCallback } from './merchant-site.js';

const require = createRequire(import.meta.url);
// jsqr is CommonJS whose module.exports is the function while its types declare a default export: require it
const jsQR = require('jsqr') as typeof import('jsqr').default;

const TEST_CARD = {
  visa: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  insufficient: '4000 0000 0000 9995',
  threeDs: '4000 0000 0000 3220',
  luhnFails: '4242 4242 4242 4241',
} as const;

const browserAvailable = isBrowserAvailable('BROWSER CHECKOUT METHOD TESTS');

describe.skipIf(!browserAvailable)('hosted checkout methods in Chromium', () => {
  let gw: Gateway;
  let merchant: MerchantAccess;
  let site: MerchantSite;
  let browser: Browser;

  let world: CheckoutWorld | undefined;

  beforeAll(async () => {
    world = await startCheckoutWorld();
    ({ gw, merchant, site, browser } = world);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  const open = (viewport: ViewportName, options: { javaScriptEnabled?: boolean } = {}) => openPage(browser, viewport, options);

  const shot = (page: Page, name: string, viewport: ViewportName) =>
    page.screenshot({ path: path.join(SCREENSHOTS, `methods-${name}-${viewport}.png`), fullPage: true });

  /** Merchant page -> SDK -> the hosted page. */
  async function toHostedPage(page: Page, amount: string) {
    await page.goto(`${site.baseUrl}/shop?amount=${amount}&option=paymentSessionId`);
    const order = site.orders[site.orders.length - 1];
    if (!order) throw new Error('the shop created no order');
    await expect.poll(() => page.evaluate(() => typeof (window as unknown as { Paygate?: unknown }).Paygate)).toBe('function');
    await page.click('#pay-now');
    await page.waitForURL(`${gw.baseUrl}/checkout/${order.sessionId}`);
    await page.locator('[data-testid="pay"]').waitFor();
    return order;
  }

  /** The callback the merchant received after the last step, checked authentic. */
  async function returned(page: Page, before: number): Promise<Record<string, string>> {
    await page.waitForURL(site.returnUrl);
    await page.locator('#status').waitFor();
    expect(site.callbacks.length).toBe(before + 1);
    const callback = site.callbacks[before] as ReceivedCallback;
    expect(verifyCallback(callback.form, merchant.encryptionKey)).toBe(true);
    return Object.fromEntries(callback.form);
  }

  async function paymentOf(orderId: string) {
    const order = expectOk('getOrder', await merchant.client.orders.get(orderId)).data;
    const paymentId = order.payments[0]?.payment_id ?? '';
    return { order, payment: expectOk('getPayment', await merchant.client.payments.get(paymentId)).data };
  }

  async function fillCard(page: Page, number: string, method: 'CREDIT_CARD' | 'DEBIT_CARD' = 'CREDIT_CARD') {
    await page.check(`[data-testid="method-${method}"]`);
    await page.fill('[data-testid="card_number"]', number);
    await page.fill('[data-testid="card_expiry"]', '12/35');
    await page.fill('[data-testid="card_cvc"]', '123');
    await page.fill('[data-testid="card_name"]', 'Priya Sharma');
  }

  it("UPI on a desktop: the QR code on the page decodes to the order's upi://pay intent, and paying by VPA completes", async () => {
    const { close, page, consoleErrors } = await open('desktop');
    try {
      const before = site.callbacks.length;
      const order = await toHostedPage(page, '1250.00');
      await page.check('[data-testid="method-UPI"]');
      const qr = page.locator('[data-testid="upi-qr"] .qr-code');
      expect(await qr.isVisible()).toBe(true);
      expect(await page.locator('[data-testid="panel-card"]').isVisible()).toBe(false);
      const png = PNG.sync.read(await qr.screenshot());
      const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
      expect(decoded?.data).toBeDefined();
      const intent = new URL(decoded!.data);
      expect(intent.protocol).toBe('upi:');
      expect(Object.fromEntries(intent.searchParams)).toMatchObject({
        pa: `pg.${merchant.merchantId}@paygate`,
        pn: 'Cane Corner',
        am: '1250.00',
        cu: 'INR',
        tr: order.orderId,
      });
      expect(await page.locator('[data-testid="upi-apps"]').isVisible()).toBe(false);
      await shot(page, 'upi-qr', 'desktop');

      await page.fill('[data-testid="vpa"]', 'priya@okhdfcbank');
      await page.click('[data-testid="pay"]');
      const fields = await returned(page, before);
      expect(fields).toMatchObject({ order_id: order.orderId, status: 'payment_successful', mop_type: 'UPI' });
      expect((await paymentOf(order.orderId)).payment.mop_detail).toEqual({ upi_id: 'priya@okhdfcbank' });
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it("UPI on a phone: app buttons open the UPI app with the order's intent instead of a QR code the shopper cannot scan (D127)", async () => {
    const { close, page, consoleErrors } = await open('phone');
    try {
      const before = site.callbacks.length;
      const order = await toHostedPage(page, '640.00');
      await page.check('[data-testid="method-UPI"]');
      expect(await page.locator('[data-testid="upi-qr"]').isVisible()).toBe(false);
      const apps = page.locator('[data-testid="upi-apps"] a');
      expect(await apps.count()).toBeGreaterThanOrEqual(3);
      for (const [testId, scheme] of [
        ['upi-app-google_pay', 'tez:'],
        ['upi-app-phonepe', 'phonepe:'],
        ['upi-app-others', 'upi:'],
      ] as const) {
        const link = page.locator(`[data-testid="${testId}"]`);
        expect(await link.isVisible()).toBe(true);
        const intent = new URL((await link.getAttribute('href')) ?? '');
        expect(intent.protocol).toBe(scheme);
        expect(Object.fromEntries(intent.searchParams)).toMatchObject({ am: '640.00', cu: 'INR', tr: order.orderId });
      }
      // Pay stays on screen without scrolling (sticky on a phone)
      const pay = await page.locator('[data-testid="pay"]').boundingBox();
      expect(pay && pay.y + pay.height <= VIEWPORTS.phone.height).toBe(true);
      await shot(page, 'upi-apps', 'phone');
      await page.click('[data-testid="pay"]'); // "I paid in the app" (the sandbox treats it as a scanned payment)
      expect(await returned(page, before)).toMatchObject({ order_id: order.orderId, status: 'payment_successful', mop_type: 'UPI' });
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('card success: the number is spaced and its brand shown as typed; callback payment_successful, mop_detail keeps last4 and network only', async () => {
    const { close, page, consoleErrors } = await open('phone');
    try {
      const before = site.callbacks.length;
      const order = await toHostedPage(page, '499.00');
      await page.check('[data-testid="method-CREDIT_CARD"]');
      await page.locator('[data-testid="card_number"]').pressSequentially('378282246310005');
      expect(await page.inputValue('[data-testid="card_number"]')).toBe('3782 822463 10005');
      expect(await page.locator('[data-testid="card-brand"]').textContent()).toBe('American Express');
      await fillCard(page, TEST_CARD.visa);
      await page.locator('[data-testid="card_number"]').dispatchEvent('input');
      expect(await page.locator('[data-testid="card-brand"]').textContent()).toBe('Visa');
      await shot(page, 'card-success', 'phone');
      await page.click('[data-testid="pay"]');
      const fields = await returned(page, before);
      expect(fields).toMatchObject({ order_id: order.orderId, status: 'payment_successful', mop_type: 'CREDIT_CARD' });
      const { payment } = await paymentOf(order.orderId);
      expect(payment.mop_detail).toEqual({ card_last4: '4242', card_network: 'visa' });
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it.each([
    { name: 'card decline', number: TEST_CARD.declined, method: 'CREDIT_CARD', message: 'Card declined by the issuer' },
    { name: 'card insufficient funds', number: TEST_CARD.insufficient, method: 'DEBIT_CARD', message: 'Insufficient funds on the card' },
  ] as const)(
    '$name: the shopper is told on the page and retries with another method in the same session (D126)',
    async ({ name, number, method, message }) => {
      const { close, page, consoleErrors } = await open('phone');
      try {
        const before = site.callbacks.length;
        const order = await toHostedPage(page, '499.00');
        await fillCard(page, number, method);
        await page.click('[data-testid="pay"]');
        const notice = page.locator('[data-testid="decline-notice"]');
        await notice.waitFor();
        expect(await notice.textContent()).toContain(message);
        expect(site.callbacks.length).toBe(before); // still on the hosted page: nothing went back to the merchant
        const failed = await paymentOf(order.orderId);
        expect(failed.order.status).toBe('payment_pending');
        expect(failed.payment).toMatchObject({
          status: 'FAILED',
          status_message: message,
          mop_detail: { card_last4: number.slice(-4), card_network: 'visa' },
        });
        await shot(page, `${name.replace(/ /g, '-')}-retry`, 'phone');
        await expectAccessible(page, `${name}: retry page`);

        await page.check('[data-testid="method-NET_BANKING"]');
        await page.selectOption('[data-testid="bank_code"]', 'HDFC');
        await page.click('[data-testid="pay"]');
        const fields = await returned(page, before);
        expect(fields).toMatchObject({ order_id: order.orderId, status: 'payment_successful', mop_type: 'NET_BANKING' });
        const paid = expectOk('getOrder', await merchant.client.orders.get(order.orderId)).data;
        expect(paid.payments).toHaveLength(2);
        expect(consoleErrors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
      } finally {
        await close();
      }
    },
    60_000,
  );

  it.each([
    { answer: 'approve', status: 'payment_successful' },
    { answer: 'fail', status: 'payment_pending' },
  ] as const)(
    'card with 3-D Secure: the challenge page, $answer => order $status',
    async ({ answer, status }) => {
      const { close, page, consoleErrors } = await open('phone');
      try {
        const before = site.callbacks.length;
        const order = await toHostedPage(page, '2000.00');
        await fillCard(page, TEST_CARD.threeDs);
        await page.click('[data-testid="pay"]');
        await page.locator('[data-testid="three-ds-heading"]').waitFor();
        expect(await page.locator('[data-testid="three-ds-last4"]').textContent()).toBe('3220');
        await page.click(`[data-testid="three-ds-${answer}"]`);
        if (answer === 'approve') {
          expect(await returned(page, before)).toMatchObject({ order_id: order.orderId, status, mop_type: 'CREDIT_CARD' });
        } else {
          // a failed challenge is a decline: the payment page again, to try another card (D126 a decline on the hosted page keeps the session open)
          await page.locator('[data-testid="decline-notice"]').waitFor();
          expect(await page.locator('[data-testid="decline-notice"]').textContent()).toContain('3-D Secure authentication failed');
          expect(site.callbacks.length).toBe(before);
        }
        expect((await paymentOf(order.orderId)).order.status).toBe(status);
        expect(consoleErrors).toEqual([]);
      } finally {
        await close();
      }
    },
    60_000,
  );

  it('net banking: the chosen bank is in mop_detail', async () => {
    const { close, page, consoleErrors } = await open('phone');
    try {
      const before = site.callbacks.length;
      const order = await toHostedPage(page, '10.00');
      await page.check('[data-testid="method-NET_BANKING"]');
      await page.selectOption('[data-testid="bank_code"]', 'ICIC');
      await page.click('[data-testid="pay"]');
      const fields = await returned(page, before);
      expect(fields).toMatchObject({ order_id: order.orderId, status: 'payment_successful', mop_type: 'NET_BANKING' });
      expect((await paymentOf(order.orderId)).payment.mop_detail).toMatchObject({ bank_code: 'ICIC', bank_name: 'ICICI Bank' });
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('cancel: callback payment_cancelled, no payment', async () => {
    const { close, page, consoleErrors } = await open('phone');
    try {
      const before = site.callbacks.length;
      const order = await toHostedPage(page, '75.00');
      await fillCard(page, TEST_CARD.visa);
      await page.click('[data-testid="cancel"]');
      const fields = await returned(page, before);
      expect(fields).toMatchObject({ order_id: order.orderId, status: 'payment_cancelled', payment_id: '' });
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('works with JavaScript disabled: the card form posts, the redirect page has a Continue button', async () => {
    const { close, page } = await open('phone', { javaScriptEnabled: false });
    try {
      const { orderId, sessionId } = await createHostedOrder(merchant, { amount: '321.00', return_url: site.returnUrl });
      const before = site.callbacks.length;
      await page.goto(`${gw.baseUrl}/checkout/${sessionId}`);
      await fillCard(page, TEST_CARD.visa);
      await page.click('[data-testid="pay"]');
      await page.locator('[data-testid="continue"]').click();
      await page.waitForURL(site.returnUrl);
      expect(site.callbacks.length).toBe(before + 1);
      expect(Object.fromEntries(site.callbacks[before]!.form)).toMatchObject({
        order_id: orderId,
        status: 'payment_successful',
        mop_type: 'CREDIT_CARD',
      });
    } finally {
      await close();
    }
  }, 120_000);

  it.each(Object.keys(VIEWPORTS) as ViewportName[])(
    'every page at %s size: screenshots, no serious or critical axe violation',
    async (viewport) => {
      const { close, page, consoleErrors } = await open(viewport);
      try {
        // method choice
        const { sessionId } = await createHostedOrder(merchant, { amount: '1500.00' });
        await page.goto(`${gw.baseUrl}/checkout/${sessionId}`);
        await shot(page, 'method-choice', viewport);
        await expectAccessible(page, 'method choice');

        // card form with errors shown (by the page's script, with the server's rules: a number failing Luhn, an
        // expired card); the typed number stays to be corrected (D294 checkout field rules in one module)
        await fillCard(page, TEST_CARD.luhnFails);
        await page.fill('[data-testid="card_expiry"]', '01/20');
        await page.click('[data-testid="pay"]');
        await page.locator('[data-testid="card_number-error"]').waitFor();
        expect(await page.locator('[data-testid="card_expiry-error"]').isVisible()).toBe(true);
        expect(await page.getAttribute('[data-testid="card_number"]', 'aria-describedby')).toBe('card_number-error');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('card_number');
        expect(await page.inputValue('[data-testid="card_number"]')).toBe(TEST_CARD.luhnFails);
        await shot(page, 'card-errors', viewport);
        await expectAccessible(page, 'card form with errors');

        // 3-D Secure challenge
        await page.fill('[data-testid="card_number"]', TEST_CARD.threeDs);
        await page.fill('[data-testid="card_expiry"]', '12/35');
        await page.fill('[data-testid="card_cvc"]', '123');
        await page.click('[data-testid="pay"]');
        await page.locator('[data-testid="three-ds-heading"]').waitFor();
        await shot(page, 'three-ds', viewport);
        await expectAccessible(page, '3-D Secure page');

        // result page (an order without return_url)
        await page.click('[data-testid="three-ds-approve"]');
        await page.locator('[data-testid="status"]').waitFor();
        expect(await page.getAttribute('[data-testid="status"]', 'data-status')).toBe('payment_successful');
        await shot(page, 'result', viewport);
        await expectAccessible(page, 'result page');

        // the used session: a page in words, not JSON
        const res = await page.goto(`${gw.baseUrl}/checkout/${sessionId}`);
        expect(res?.status()).toBe(401);
        expect(await page.locator('h1').textContent()).toBe('This payment link has already been used');
        await shot(page, 'session-used', viewport);
        await expectAccessible(page, 'session error page');

        // no horizontal scrolling at this size
        await page.goto(`${gw.baseUrl}/checkout/${(await createHostedOrder(merchant)).sessionId}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        // Chromium reports every 4xx document as "Failed to load resource": the 422 and 401 pages above are expected
        expect(consoleErrors.filter((e) => !/Failed to load resource: the server responded with a status of (401|422)/.test(e))).toEqual(
          [],
        );
      } finally {
        await close();
      }
    },
    90_000,
  );
});

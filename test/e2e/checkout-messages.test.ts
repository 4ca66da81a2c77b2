/**
 * The hosted checkout's messages in real Chromium (D294 checkout field rules in one module): each field says what is wrong in the page's own words (the
 * server's rules and messages, bundled into the page's script from checkout/methods/field-checks.ts), as the shopper
 * types or leaves it; Pay with an error posts nothing, shows the summary, focuses the first field and keeps what was
 * typed; the expiry is judged by the order's clock, as the server judges it; without JavaScript the browser's own check
 * carries the page's words (`title`) and the server answers with the same words, keeping the typed number after a
 * field error and never after a decline. Every state is checked with axe-core, and the page shows no internal
 * reference.
 *
 * Chromium: CHROMIUM_PATH or /usr/bin/chromium. Missing => fail when REQUIRE_BROWSER=1, else skip with a loud message.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../packages/reference/src/checkout/methods/field-checks.js';
import type { Gateway } from '../support/gateway.js';
import { findInternalReferences, visibleText } from '../support/internal-references.js';
import { clientFor, createHostedOrder, expectOk, onboardMerchant, type MerchantAccess } from '../faults/helpers/api.js';
import { isBrowserAvailable } from './browser.js';
import { expectAccessible, openPage, startCheckoutWorld, type CheckoutWorld } from './checkout-world.js';

const browserAvailable = isBrowserAvailable('BROWSER CHECKOUT MESSAGE TESTS');

/** Where a field's error shows. */
const errorOf = (page: Page, field: string) => page.locator(`[data-testid="${field}-error"]`);

describe.skipIf(!browserAvailable)('hosted checkout messages in Chromium (D294)', () => {
  let gw: Gateway;
  let merchant: MerchantAccess;
  let browser: Browser;
  let world: CheckoutWorld | undefined;

  beforeAll(async () => {
    world = await startCheckoutWorld();
    ({ gw, merchant, browser } = world);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  /** A fresh page on a new order's checkout, counting the form posts it makes. */
  async function checkout(options: { javaScriptEnabled?: boolean; as?: MerchantAccess } = {}) {
    const opened = await openPage(browser, 'phone', options);
    const { sessionId } = await createHostedOrder(options.as ?? merchant, { amount: '499.00' });
    const posts: string[] = [];
    opened.page.on('request', (req) => {
      if (req.method() === 'POST') posts.push(req.url());
    });
    await opened.page.goto(`${gw.baseUrl}/checkout/${sessionId}`);
    return { ...opened, posts };
  }

  it.each([
    {
      name: 'a malformed UPI ID, when the shopper leaves the field',
      method: 'UPI',
      field: 'vpa',
      type: async (page: Page) => {
        await page.fill('[data-testid="vpa"]', 'priya at okhdfc');
        await page.keyboard.press('Tab');
      },
      message: MESSAGES.vpa,
    },
    {
      name: 'a number failing the Luhn check, as its last digit is typed',
      method: 'CREDIT_CARD',
      field: 'card_number',
      type: (page: Page) => page.locator('[data-testid="card_number"]').pressSequentially('4242424242424241'),
      message: MESSAGES.cardNumberInvalid,
    },
    {
      name: 'a valid number that is not a sandbox test card',
      method: 'CREDIT_CARD',
      field: 'card_number',
      type: (page: Page) => page.locator('[data-testid="card_number"]').pressSequentially('4111111111111111'),
      message: MESSAGES.cardNumberNotTestCard,
    },
    {
      name: 'a month 13, as the expiry is typed',
      method: 'DEBIT_CARD',
      field: 'card_expiry',
      type: (page: Page) => page.locator('[data-testid="card_expiry"]').pressSequentially('13/30'),
      message: MESSAGES.expiryMalformed,
    },
    {
      name: 'an expired card, as the expiry is typed',
      method: 'CREDIT_CARD',
      field: 'card_expiry',
      type: (page: Page) => page.locator('[data-testid="card_expiry"]').pressSequentially('01/20'),
      message: MESSAGES.expired,
    },
    {
      name: 'a 2-digit CVC, when the shopper leaves the field',
      method: 'CREDIT_CARD',
      field: 'card_cvc',
      type: async (page: Page) => {
        await page.fill('[data-testid="card_number"]', '4242 4242 4242 4242');
        await page.fill('[data-testid="card_cvc"]', '12');
        await page.keyboard.press('Tab');
      },
      message: MESSAGES.cvc3,
    },
    {
      name: "a 3-digit CVC on an American Express card (the brand's length)",
      method: 'CREDIT_CARD',
      field: 'card_cvc',
      type: async (page: Page) => {
        await page.locator('[data-testid="card_number"]').pressSequentially('378282246310005');
        await page.fill('[data-testid="card_cvc"]', '123');
        await page.keyboard.press('Tab');
      },
      message: MESSAGES.cvc4,
    },
  ])(
    '$name: the message next to the field, before anything is posted',
    async ({ method, field, type, message }) => {
      const { close, page, consoleErrors, posts } = await checkout();
      try {
        await page.check(`[data-testid="method-${method}"]`);
        await type(page);
        await expect.poll(() => errorOf(page, field).textContent()).toBe(message);
        expect(await errorOf(page, field).isVisible()).toBe(true);
        expect(await page.getAttribute(`[data-testid="${field}"]`, 'aria-invalid')).toBe('true');
        expect(await page.getAttribute(`[data-testid="${field}"]`, 'aria-describedby')).toContain(`${field}-error`);
        expect(posts).toEqual([]);
        await expectAccessible(page, `${field} error`);
        expect(consoleErrors).toEqual([]);
      } finally {
        await close();
      }
    },
    60_000,
  );

  it('the brand shows as the number is typed, and an error goes as soon as the field is right', async () => {
    const { close, page, consoleErrors } = await checkout();
    try {
      await page.check('[data-testid="method-CREDIT_CARD"]');
      const number = page.locator('[data-testid="card_number"]');
      await number.pressSequentially('4242424242424241');
      expect(await page.locator('[data-testid="card-brand"]').textContent()).toBe('Visa');
      await expect.poll(() => errorOf(page, 'card_number').isVisible()).toBe(true);
      await number.press('Backspace');
      await number.pressSequentially('2');
      expect(await page.inputValue('[data-testid="card_number"]')).toBe('4242 4242 4242 4242');
      await expect.poll(() => errorOf(page, 'card_number').isVisible()).toBe(false);
      expect(await page.getAttribute('[data-testid="card_number"]', 'aria-invalid')).toBeNull();
      expect(await page.getAttribute('[data-testid="card_number"]', 'aria-describedby')).toBeNull();
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('Pay with errors posts nothing: every error of the method, the summary, the focus on the first, the typed values kept; then it pays', async () => {
    const { close, page, consoleErrors, posts } = await checkout();
    try {
      await page.check('[data-testid="method-CREDIT_CARD"]');
      await page.fill('[data-testid="card_number"]', '4242 4242 4242 4241');
      await page.fill('[data-testid="card_cvc"]', '1');
      await page.click('[data-testid="pay"]');
      const summary = page.locator('[data-testid="error-summary"]');
      await summary.waitFor();
      expect(await summary.getAttribute('role')).toBe('alert');
      expect((await summary.locator('li').allTextContents()).sort()).toEqual(
        [MESSAGES.cardNumberInvalid, MESSAGES.expiryMissing, MESSAGES.cvc3, MESSAGES.nameMissing].sort(),
      );
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('card_number');
      expect(await page.inputValue('[data-testid="card_number"]')).toBe('4242 4242 4242 4241');
      expect(posts).toEqual([]);
      await expectAccessible(page, 'card form with every error');
      expect(findInternalReferences('checkout page', visibleText(await page.content()))).toEqual([]);

      // corrected field by field, the summary follows; then Pay goes through
      await page.fill('[data-testid="card_number"]', '4242 4242 4242 4242');
      await page.fill('[data-testid="card_expiry"]', '12/35');
      await page.fill('[data-testid="card_cvc"]', '123');
      await page.fill('[data-testid="card_name"]', 'Priya Sharma');
      await expect.poll(() => summary.isVisible()).toBe(false);
      await page.click('[data-testid="pay"]');
      await page.locator('[data-testid="status"]').waitFor(); // the result page (this order has no return_url)
      expect(await page.getAttribute('[data-testid="status"]', 'data-status')).toBe('payment_successful');
      expect(posts).toHaveLength(1);
      expect(consoleErrors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it("an expiry is judged by the order's clock, as the server judges it (a sandbox clock moved ahead)", async () => {
    // a merchant of its own: moving its sandbox clock must not touch the other tests' sessions
    const ahead = await onboardMerchant(gw.baseUrl, clientFor(gw.baseUrl, gw.partner), 'Clockwork Teas');
    expectOk('advanceClock', await ahead.client.sandbox.advanceClock({ seconds: 70 * 24 * 3600 }));
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    // valid by the shopper's clock to the end of next month; 70 days on, the order's clock is past it
    const expiry = `${String(nextMonth.getUTCMonth() + 1).padStart(2, '0')}/${String(nextMonth.getUTCFullYear()).slice(-2)}`;
    const { close, page } = await checkout({ as: ahead });
    try {
      await page.check('[data-testid="method-CREDIT_CARD"]');
      await page.locator('[data-testid="card_expiry"]').pressSequentially(expiry);
      await expect.poll(() => errorOf(page, 'card_expiry').textContent()).toBe(MESSAGES.expired);
    } finally {
      await close();
    }
  }, 120_000);

  it("without JavaScript: the browser's check carries the page's words, the server answers with the same ones, the number kept after a field error, never after a decline", async () => {
    const { close, page } = await checkout({ javaScriptEnabled: false });
    try {
      // the browser's own check (pattern) says what the field wants in the page's words, not only "match the format"
      await page.check('[data-testid="method-UPI"]');
      await page.fill('[data-testid="vpa"]', 'priya at okhdfc');
      expect(await page.getAttribute('[data-testid="vpa"]', 'title')).toBe(MESSAGES.vpa);
      expect(await page.$eval('[data-testid="vpa"]', (el) => (el as HTMLInputElement).validity.patternMismatch)).toBe(true);
      await page.fill('[data-testid="vpa"]', '');

      // a number of the right shape failing the Luhn check: the server's 422, its message, the number kept
      await page.check('[data-testid="method-CREDIT_CARD"]');
      await page.fill('[data-testid="card_number"]', '4242 4242 4242 4241');
      await page.fill('[data-testid="card_expiry"]', '12/35');
      await page.fill('[data-testid="card_cvc"]', '123');
      await page.fill('[data-testid="card_name"]', 'Priya Sharma');
      const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('[data-testid="pay"]')]);
      expect(answer.status()).toBe(422);
      expect(await errorOf(page, 'card_number').textContent()).toBe(MESSAGES.cardNumberInvalid);
      expect(await page.inputValue('[data-testid="card_number"]')).toBe('4242 4242 4242 4241');
      expect(await page.inputValue('[data-testid="card_cvc"]')).toBe('');
      // axe needs script to run: the server's page is checked as it is, in a page that runs it
      const checker = await openPage(browser, 'phone');
      try {
        await checker.page.setContent(await page.content());
        await expectAccessible(checker.page, 'server-side card error');
      } finally {
        await checker.close();
      }

      // a decline: the page again with the reason, the number field empty (another card is what to type)
      await page.fill('[data-testid="card_number"]', '4000 0000 0000 0002');
      await page.fill('[data-testid="card_cvc"]', '123');
      await page.click('[data-testid="pay"]');
      await page.locator('[data-testid="decline-notice"]').waitFor();
      expect(await page.inputValue('[data-testid="card_number"]')).toBe('');
    } finally {
      await close();
    }
  }, 120_000);
});

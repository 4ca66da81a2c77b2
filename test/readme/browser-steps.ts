/**
 * What the README asks the person to do in a browser after a block (```sh readme-test=<session> readme-browser=<step>,
 * D295), done by the test on the checkout page the block printed: in Chromium when it is installed (as test/e2e
 * drives it), else (and loudly, unless REQUIRE_BROWSER=1 makes a missing browser a failure) as a browser without
 * JavaScript would: the form posted, then the callback form posted to the return URL. Either way the step ends where
 * the shopper's browser ends, and says where that was, so the test can check it is the merchant backend the walkthrough
 * runs ($MERCHANT_PORT), not "This site can't be reached".
 */
import type { Browser } from 'playwright-core';

export interface BrowserStepResult {
  /** The URL the browser ended on. */
  url: string;
  /** The text of the page it ended on. */
  text: string;
  /** chromium, or form-post (no browser installed). */
  driver: 'chromium' | 'form-post';
}

export interface BrowserStep {
  /** Words of the README that ask the person for this step: the test checks the README still says them. */
  readmeSays: readonly string[];
  /** The form fields the person fills in (the no-browser path posts them). */
  form: Readonly<Record<string, string>>;
  inChromium(browser: Browser, checkoutUrl: string): Promise<BrowserStepResult>;
}

const CARD = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Priya Sharma' } as const;

export const BROWSER_STEPS: Readonly<Record<string, BrowserStep>> = {
  'pay-by-card': {
    readmeSays: [
      'Choose **Credit card**',
      `type \`${CARD.number}\``,
      `such as \`${CARD.expiry}\``,
      'any 3-digit CVC and any name',
      'press Pay',
    ],
    form: {
      mop_type: 'CREDIT_CARD',
      card_number: CARD.number,
      card_expiry: CARD.expiry,
      card_cvc: CARD.cvc,
      card_name: CARD.name,
      outcome: 'success',
    },
    async inChromium(browser, checkoutUrl) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(30_000);
        await page.goto(checkoutUrl);
        await page.check('[data-testid="method-CREDIT_CARD"]');
        await page.fill('[data-testid="card_number"]', CARD.number);
        await page.fill('[data-testid="card_expiry"]', CARD.expiry);
        await page.fill('[data-testid="card_cvc"]', CARD.cvc);
        await page.fill('[data-testid="card_name"]', CARD.name);
        await page.click('[data-testid="pay"]');
        // the redirect page posts the signed callback to the order's return URL; wait for the page the browser lands on
        await page.waitForURL((url) => !url.pathname.startsWith('/checkout/'), { timeout: 30_000 }).catch(() => undefined);
        await page.waitForLoadState('load');
        const landed = page.url();
        const text = await page
          .locator('body')
          .textContent()
          .then((t) => t ?? '')
          .catch((error: unknown) => `(no page: ${String(error)})`);
        return { url: landed, text, driver: 'chromium' };
      } finally {
        await context.close();
      }
    },
  },
};

/** The step without a browser: the checkout form posted as a browser without JavaScript posts it, then the callback. */
export async function formPost(step: BrowserStep, checkoutUrl: string): Promise<BrowserStepResult> {
  const paid = await fetch(checkoutUrl, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(step.form).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  const html = await paid.text();
  const action = /<form[^>]*\saction="([^"]+)"/.exec(html)?.[1];
  if (!paid.ok || action === undefined)
    throw new Error(`paying at ${checkoutUrl} answered ${paid.status} without a callback form:\n${html}`);
  const decode = (s: string) =>
    s
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>');
  const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, decode(m[2]!)]);
  const url = decode(action);
  try {
    const landed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      signal: AbortSignal.timeout(30_000),
    });
    return { url, text: await landed.text(), driver: 'form-post' };
  } catch (error) {
    return { url, text: `This site can't be reached (${String((error as Error).cause ?? error)})`, driver: 'form-post' };
  }
}

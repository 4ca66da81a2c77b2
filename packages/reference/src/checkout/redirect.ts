import { cspHash, escapeHtml, htmlDocument, pageCsp } from './html.js';

export interface RedirectFormInput {
  /** Absolute http(s) URL the form POSTs to (the order's return_url). */
  url: string;
  /** Form fields, posted as hidden inputs in insertion order. */
  fields: Record<string, string>;
}

export type CheckoutResultStatus = 'payment_successful' | 'payment_failed' | 'payment_cancelled';

export interface CheckoutResultView {
  status: CheckoutResultStatus;
  orderId: string;
  message: string;
}

/**
 * Static auto-submit script. Calls HTMLFormElement.prototype.submit so a field named `submit` (which would clobber
 * `form.submit`) cannot break it.
 */
export const REDIRECT_FORM_SCRIPT =
  "(function(){var f=document.getElementById('paygate-redirect');if(f)HTMLFormElement.prototype.submit.call(f);})();";

/**
 * CSP header value for the redirect page. No `form-action`: browsers apply it to the redirects that follow the
 * submission too, and merchants' return_url handlers commonly redirect elsewhere.
 */
export const REDIRECT_PAGE_CSP = pageCsp(cspHash(REDIRECT_FORM_SCRIPT));

/** CSP header value for the result page (no script at all). */
export const RESULT_PAGE_CSP = pageCsp(null, ["form-action 'none'"]);

function assertHttpUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`redirect url must be an absolute http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TypeError(`redirect url must use http or https, got ${JSON.stringify(parsed.protocol)}`);
  }
}

/**
 * Auto-submitting page that POSTs `fields` (application/x-www-form-urlencoded) to `url`: the return-URL callback.
 * A visible "Continue" button covers browsers with scripts disabled or blocked. Throws TypeError if `url` is not an
 * absolute http(s) URL (defence in depth: a `javascript:` action must never be rendered).
 */
export function renderRedirectForm(redirect: RedirectFormInput): string {
  assertHttpUrl(redirect.url);
  const inputs = Object.entries(redirect.fields).map(
    ([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
  );
  const body = [
    '<main>',
    '<div class="card">',
    '<h1>Returning to the merchant…</h1>',
    '<p class="muted">If nothing happens, press Continue.</p>',
    `<form id="paygate-redirect" method="POST" action="${escapeHtml(redirect.url)}" ` +
      'enctype="application/x-www-form-urlencoded" data-testid="redirect-form">',
    ...inputs,
    '<div class="actions"><button type="submit" class="pay" data-testid="continue">Continue</button></div>',
    '</form>',
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: 'Returning to the merchant', body, script: REDIRECT_FORM_SCRIPT });
}

const RESULT_HEADINGS: Readonly<Record<CheckoutResultStatus, string>> = {
  payment_successful: 'Payment successful',
  payment_failed: 'Payment failed',
  payment_cancelled: 'Payment cancelled',
};

/** Final page for an order without a return_url. */
export function renderResultPage(result: CheckoutResultView): string {
  const heading = RESULT_HEADINGS[result.status] ?? 'Payment finished';
  const body = [
    '<main>',
    '<div class="card">',
    `<h1 class="status status-${escapeHtml(result.status)}" role="status" data-testid="status" ` +
      `data-status="${escapeHtml(result.status)}">${escapeHtml(heading)}</h1>`,
    `<p data-testid="message">${escapeHtml(result.message)}</p>`,
    `<dl><dt>Order</dt><dd data-testid="order-id">${escapeHtml(result.orderId)}</dd></dl>`,
    '<p class="muted">You can close this window.</p>',
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: heading, body });
}

/**
 * What a shopper's browser gets when the checkout routes are rate limited (429): a page saying when to try again,
 * never the JSON error envelope (API clients asking for JSON still get that).
 */
export function renderBusyPage(retryAfterSeconds: number): string {
  const body = [
    '<main>',
    '<div class="card">',
    '<h1 class="status" role="status" data-testid="status" data-status="rate_limited">Too many requests</h1>',
    `<p data-testid="message">The payment page is busy. Please wait ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'} and reload this page; nothing has been charged.</p>`,
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: 'Too many requests', body });
}

/**
 * What a shopper's browser gets when the gateway cannot reach its database (503, D91): a page asking to wait and
 * reload, never the JSON error envelope. It cannot say "nothing was charged": a Pay whose connection was lost after
 * the commit did go through, so it asks to reload before paying again (the reloaded page shows the outcome).
 */
export function renderUnavailablePage(retryAfterSeconds: number): string {
  const wait = `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`;
  const body = [
    '<main>',
    '<div class="card">',
    '<h1 class="status" role="status" data-testid="status" data-status="unavailable">Payment page temporarily unavailable</h1>',
    `<p data-testid="message">We could not reach our payment records just now. Please wait ${wait} and reload this page.</p>`,
    '<p class="muted">If you had just pressed Pay, reload before paying again: the page shows whether the payment went through.</p>',
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: 'Payment page temporarily unavailable', body });
}

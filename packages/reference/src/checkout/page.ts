import type { MopType } from '@paygate/contract';
import { cspHash, escapeHtml, htmlDocument, pageCsp } from './html.js';

/** Methods of payment the hosted page can offer (openapi components/schemas/common.yaml#/MopType). */
/** A method of payment the hosted page can offer: the spec's MopType. */
export type CheckoutMethod = MopType;

export const CHECKOUT_METHOD_LABELS: Readonly<Record<CheckoutMethod, string>> = {
  UPI: 'UPI',
  CREDIT_CARD: 'Credit card',
  DEBIT_CARD: 'Debit card',
  NET_BANKING: 'Net banking',
  QR: 'QR code',
};

/** Everything the hosted payment page shows. Values are plain text; the renderer escapes them. */
export interface CheckoutPageView {
  sessionId: string;
  orderId: string;
  merchantName: string;
  /** Decimal string with two decimals, e.g. `'1500.00'`. */
  amount: string;
  currency: string;
  referenceId: string;
  productName: string;
  /** ISO 8601 expiry of the session. */
  expiresAt: string;
  mode: 'sandbox' | 'production';
  allowedMethods: readonly CheckoutMethod[];
}

export interface RenderCheckoutPageOptions {
  /** Clock for the initial "expires in" value (ms since epoch). Default `Date.now`. */
  now?: () => number;
}

/**
 * Static countdown + double-submit guard. It reads the remaining seconds from `data-remaining-seconds` (computed
 * by the server, so the customer's clock skew does not matter) and, at zero, disables the buttons and says so.
 * It never disables buttons on submit (a disabled submitter would drop `outcome` from the form data); it blocks a
 * second submission instead.
 */
export const CHECKOUT_PAGE_SCRIPT = `(function () {
  'use strict';
  var form = document.getElementById('checkout-form');
  if (!form) return;
  var submitted = false;
  form.addEventListener('submit', function (e) {
    if (submitted) { e.preventDefault(); return; }
    submitted = true;
  });
  var timer = document.querySelector('[data-remaining-seconds]');
  if (!timer) return;
  var remaining = parseInt(timer.getAttribute('data-remaining-seconds'), 10);
  if (!(remaining >= 0)) return;
  var end = Date.now() + remaining * 1000;
  function fmt(s) { return Math.floor(s / 60) + ':' + ('0' + (s % 60)).slice(-2); }
  function tick() {
    var s = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    timer.textContent = fmt(s);
    if (s > 0) { setTimeout(tick, ((end - Date.now()) % 1000) || 1000); return; }
    var buttons = form.querySelectorAll('button');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
    var msg = document.getElementById('expired');
    if (msg) { msg.hidden = false; msg.setAttribute('role', 'alert'); }
  }
  tick();
})();`;

/** CSP header value for the payment page: only its own stylesheet and script; the form posts back to this origin. */
export const CHECKOUT_PAGE_CSP = pageCsp(cspHash(CHECKOUT_PAGE_SCRIPT), ["form-action 'self'"]);

function formatRemaining(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Remaining whole seconds until `expiresAt` (0 if past or unparsable). */
function remainingSeconds(expiresAt: string, now: number): number {
  const end = Date.parse(expiresAt);
  if (Number.isNaN(end)) return 0;
  return Math.max(0, Math.floor((end - now) / 1000));
}

function methodsFieldset(methods: readonly CheckoutMethod[]): string {
  const unique = [...new Set(methods)].filter((m): m is CheckoutMethod => Object.hasOwn(CHECKOUT_METHOD_LABELS, m));
  if (unique.length === 0) return '';
  const items = unique.map((m, i) => {
    const id = `method-${m}`;
    return (
      `<label class="method" for="${escapeHtml(id)}">` +
      `<input type="radio" id="${escapeHtml(id)}" name="mop_type" value="${escapeHtml(m)}" data-testid="${escapeHtml(id)}"` +
      `${i === 0 ? ' checked' : ''} required>` +
      `<span>${escapeHtml(CHECKOUT_METHOD_LABELS[m])}</span></label>`
    );
  });
  return `<fieldset><legend>Payment method</legend>\n${items.join('\n')}\n</fieldset>`;
}

/**
 * The hosted payment page (GET /checkout/{session_id}). The form POSTs `outcome` (success | failure | cancel) and
 * `mop_type` as application/x-www-form-urlencoded to `/checkout/{sessionId}`. Sandbox pages show a banner and a
 * "Simulate failure" button; production pages only Pay and Cancel. Serve with `Content-Security-Policy:
 * CHECKOUT_PAGE_CSP`, `Cache-Control: no-store`, `Referrer-Policy: no-referrer`.
 */
export function renderCheckoutPage(view: CheckoutPageView, options: RenderCheckoutPageOptions = {}): string {
  const now = (options.now ?? Date.now)();
  const sandbox = view.mode === 'sandbox';
  const remaining = remainingSeconds(view.expiresAt, now);
  const action = `/checkout/${encodeURIComponent(view.sessionId)}`;
  const amountText = `${view.currency} ${view.amount}`;

  const body = [
    '<main>',
    sandbox
      ? '<div class="banner" role="note" data-testid="sandbox-banner">Sandbox mode: test payment, no money is moved.</div>'
      : '',
    '<div class="card">',
    `<p class="muted">Pay to</p>`,
    `<h1 data-testid="merchant">${escapeHtml(view.merchantName)}</h1>`,
    `<p class="amount" data-testid="amount"><span data-testid="currency">${escapeHtml(view.currency)}</span> ` +
      `<span data-testid="amount-value">${escapeHtml(view.amount)}</span></p>`,
    '<dl>',
    `<dt>Product</dt><dd data-testid="product">${escapeHtml(view.productName)}</dd>`,
    `<dt>Order</dt><dd data-testid="order-id">${escapeHtml(view.orderId)}</dd>`,
    `<dt>Reference</dt><dd data-testid="reference-id">${escapeHtml(view.referenceId)}</dd>`,
    `<dt>Expires in</dt><dd><time role="timer" datetime="${escapeHtml(view.expiresAt)}" data-testid="countdown" ` +
      `data-remaining-seconds="${remaining}">${formatRemaining(remaining)}</time></dd>`,
    '</dl>',
    `<form id="checkout-form" method="POST" action="${escapeHtml(action)}" enctype="application/x-www-form-urlencoded" ` +
      `data-testid="checkout-form">`,
    methodsFieldset(view.allowedMethods),
    '<p id="expired" hidden>This payment session has expired. Return to the merchant to start again.</p>',
    '<div class="actions">',
    `<button type="submit" class="pay" name="outcome" value="success" data-testid="pay">Pay ${escapeHtml(amountText)}</button>`,
    sandbox
      ? '<button type="submit" class="fail" name="outcome" value="failure" data-testid="fail" formnovalidate>Simulate failure</button>'
      : '',
    '<button type="submit" class="cancel" name="outcome" value="cancel" data-testid="cancel" formnovalidate>Cancel payment</button>',
    '</div>',
    '</form>',
    '</div>',
    '</main>',
  ]
    .filter((line) => line !== '')
    .join('\n');

  return htmlDocument({ title: `Pay ${view.merchantName}`, body, script: CHECKOUT_PAGE_SCRIPT });
}

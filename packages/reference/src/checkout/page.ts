import type { MopType } from '@paygate/contract';
import { VPA_PATTERN } from '../orders/vpa.js';
import { CHECKOUT_PAGE_SCRIPT } from './generated/checkout-page.gen.js';
import { cspHash, escapeHtml, htmlDocument, pageCsp } from './html.js';
import { SANDBOX_BANKS } from './methods/banks.js';
import { EXPIRY_PATTERN, TEST_CARDS } from './methods/cards.js';
import { MESSAGES, type CheckoutField, type FieldErrors } from './methods/field-checks.js';
import type { UpiAppLink } from './methods/upi-qr.js';

export { CHECKOUT_PAGE_SCRIPT };

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
  /** The UPI intent as an inline SVG QR code and its accessible name (UPI and QR panels; shown on wide screens). */
  upiQr?: { svg: string; label: string };
  /** Buttons that open a UPI app with the same intent (UPI panel; shown on phones instead of the QR code, D127). */
  upiApps?: readonly UpiAppLink[];
  /** The last attempt was declined and the shopper may try again (D126 a decline on the hosted page keeps the session open): why, and how many attempts are left. */
  declined?: { message: string; attemptsLeft: number };
  /** The method selected (a re-shown page keeps the customer's choice). Default: the first allowed. */
  selectedMethod?: CheckoutMethod;
  /** Errors to show next to their fields (a 422 re-render). */
  errors?: FieldErrors;
  /**
   * Values to put back into the fields of a re-shown page. The card number only after a field error (so a typo can be
   * seen and corrected), never after a decline (D294: the handler decides); the CVC never.
   */
  values?: Partial<Record<'vpa' | 'card_number' | 'card_expiry' | 'card_name' | 'bank_code', string>>;
}

export interface RenderCheckoutPageOptions {
  /** Clock for the initial "expires in" value (ms since epoch). Default `Date.now`. */
  now?: () => number;
}

/**
 * The amount as shoppers read it (D127 checkout page formatting and accessibility): the currency's symbol and digit grouping from Intl.NumberFormat in Indian
 * English (`₹1,50,000.00`). The decimal string is formatted as it is: no float is made of it.
 */
export function formatMoney(amount: string, currency: string): string {
  try {
    return new Intl.NumberFormat('en-IN', { style: 'currency', currency }).format(amount as Intl.StringNumericLiteral);
  } catch {
    return `${currency} ${amount}`; // a currency code Intl does not know: still exact
  }
}

/**
 * A RegExp of the field rules as an HTML `pattern` attribute: the attribute anchors it itself, and browsers compile it
 * with the `v` flag, where a `-` at the end of a class must be escaped. The pattern is the server's (D294 checkout field rules in one module): without
 * JavaScript the browser checks the same format, and its message carries the field's `title` (the server's words).
 */
export function htmlPattern(rule: RegExp): string {
  return rule.source
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replace(/(?<!\\)-\]/g, '\\-]');
}

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

function allowedUnique(methods: readonly CheckoutMethod[]): CheckoutMethod[] {
  return [...new Set(methods)].filter((m): m is CheckoutMethod => Object.hasOwn(CHECKOUT_METHOD_LABELS, m));
}

/** The error line of a field: always there (hidden when empty), so the page's script fills the server's markup. */
function fieldError(name: CheckoutField, error: string | undefined): string {
  return `<p class="field-error" id="${name}-error" data-testid="${name}-error"${error ? '' : ' hidden'}>${escapeHtml(error ?? '')}</p>`;
}

function methodsFieldset(methods: readonly CheckoutMethod[], selected: CheckoutMethod | undefined, error: string | undefined): string {
  const unique = allowedUnique(methods);
  if (unique.length === 0) return '';
  const checked = selected !== undefined && unique.includes(selected) ? selected : unique[0];
  const items = unique.map((m) => {
    const id = `method-${m}`;
    return (
      `<label class="method" for="${escapeHtml(id)}">` +
      `<input type="radio" id="${escapeHtml(id)}" name="mop_type" value="${escapeHtml(m)}" data-testid="${escapeHtml(id)}"` +
      `${m === checked ? ' checked' : ''} required>` +
      `<span>${escapeHtml(CHECKOUT_METHOD_LABELS[m])}</span></label>`
    );
  });
  return `<fieldset class="methods" id="mop_type"><legend>Payment method</legend>\n${fieldError('mop_type', error)}\n${items.join('\n')}\n</fieldset>`;
}

interface FieldSpec {
  name: CheckoutField;
  label: string;
  /** Hint under the label (an id `<name>-hint` tied to the input). */
  hint?: string;
  /** Attributes of the <input> (already escaped; static text). */
  attributes: string;
}

/** One labelled input with its hint and, on a re-shown page, its error tied to it by aria-describedby. */
function field(spec: FieldSpec, view: CheckoutPageView, firstError: CheckoutField | undefined): string {
  const error = view.errors?.[spec.name];
  const describedBy = [spec.hint ? `${spec.name}-hint` : '', error ? `${spec.name}-error` : ''].filter((id) => id !== '').join(' ');
  // the CVC is never put back (D294 checkout field rules in one module)
  const value = spec.name === 'card_cvc' ? undefined : view.values?.[spec.name as keyof NonNullable<CheckoutPageView['values']>];
  return [
    `<div class="field${error ? ' has-error' : ''}">`,
    `<label for="${spec.name}">${escapeHtml(spec.label)}</label>`,
    spec.hint ? `<p class="hint" id="${spec.name}-hint">${escapeHtml(spec.hint)}</p>` : '',
    fieldError(spec.name, error),
    `<input id="${spec.name}" name="${spec.name}" data-testid="${spec.name}" ${spec.attributes}` +
      (value ? ` value="${escapeHtml(value)}"` : '') +
      (describedBy ? ` aria-describedby="${describedBy}"` : '') +
      (error ? ' aria-invalid="true"' : '') +
      (firstError === spec.name ? ' autofocus' : '') +
      '>',
    '</div>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function qrFigure(qr: CheckoutPageView['upiQr'], testId: string): string {
  if (!qr) return '';
  return (
    `<figure class="qr" data-testid="${testId}"><div class="qr-code" role="img" aria-label="${escapeHtml(qr.label)}">${qr.svg}</div>` +
    '<figcaption>Scan with any UPI app, then press Pay.</figcaption></figure>'
  );
}

/** `pattern` and `title` of a field: the server's rule and its message, shown by a browser without the page's script. */
const patternOf = (rule: RegExp | string, title: string) =>
  `pattern="${escapeHtml(typeof rule === 'string' ? rule : htmlPattern(rule))}" title="${escapeHtml(title)}"`;

/** UPI app buttons for phones (D127 checkout page formatting and accessibility): each opens the app with the order's intent; Pay confirms after paying there. */
function upiAppButtons(apps: CheckoutPageView['upiApps']): string {
  if (!apps || apps.length === 0) return '';
  const links = apps.map(
    (a) => `<a class="upi-app" href="${escapeHtml(a.uri)}" data-testid="upi-app-${escapeHtml(a.app)}">${escapeHtml(a.label)}</a>`,
  );
  return `<div class="upi-apps" data-testid="upi-apps"><p class="hint">Pay in your UPI app, then come back and press Pay.</p>${links.join('')}</div>`;
}

function upiPanel(view: CheckoutPageView, firstError: CheckoutField | undefined): string {
  return [
    '<fieldset class="panel panel-UPI" data-testid="panel-UPI"><legend>Pay by UPI</legend>',
    upiAppButtons(view.upiApps),
    qrFigure(view.upiQr, 'upi-qr'),
    field(
      {
        name: 'vpa',
        label: 'Or enter your UPI ID',
        hint: 'For example name@okhdfcbank. Leave it empty if you paid by QR code or in your UPI app.',
        attributes: `type="text" inputmode="email" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="255" ${patternOf(VPA_PATTERN, MESSAGES.vpa)}`,
      },
      view,
      firstError,
    ),
    view.mode === 'sandbox' ? '<p class="hint">Sandbox: failure@paygate fails; any other UPI ID or the QR code succeeds.</p>' : '',
    '</fieldset>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function qrPanel(view: CheckoutPageView): string {
  return [
    '<fieldset class="panel panel-QR" data-testid="panel-QR"><legend>Pay by QR code</legend>',
    qrFigure(view.upiQr, 'qr-qr'),
    '</fieldset>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function testCardsHint(): string {
  const items = TEST_CARDS.map(
    (card) => `<li><code>${escapeHtml(card.number.replace(/(\d{4})(?=\d)/g, '$1 '))}</code> ${escapeHtml(card.description)}</li>`,
  );
  return `<details class="hint" data-testid="test-cards"><summary>Sandbox test cards</summary><ul>${items.join('')}</ul><p>Any future expiry, any CVC, any name.</p></details>`;
}

function cardPanel(view: CheckoutPageView, firstError: CheckoutField | undefined): string {
  return [
    '<fieldset class="panel panel-card" data-testid="panel-card"><legend>Card details</legend>',
    field(
      {
        name: 'card_number',
        label: 'Card number',
        // the digits with spaces or dashes; Luhn and the test cards are the script's and the server's to check
        attributes: `type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" ${patternOf('[0-9 \\-]{12,23}', MESSAGES.cardNumberInvalid)}`,
      },
      view,
      firstError,
    ),
    '<p class="card-brand" id="card-brand" data-testid="card-brand" aria-live="polite"></p>',
    '<div class="row">',
    field(
      {
        name: 'card_expiry',
        label: 'Expiry',
        attributes: `type="text" inputmode="numeric" autocomplete="cc-exp" maxlength="9" placeholder="MM/YY" ${patternOf(EXPIRY_PATTERN, MESSAGES.expiryMalformed)}`,
      },
      view,
      firstError,
    ),
    field(
      {
        name: 'card_cvc',
        label: 'CVC',
        attributes: `type="password" inputmode="numeric" autocomplete="cc-csc" maxlength="4" ${patternOf('\\d{3,4}', MESSAGES.cvcAny)}`,
      },
      view,
      firstError,
    ),
    '</div>',
    field({ name: 'card_name', label: 'Name on card', attributes: 'type="text" autocomplete="cc-name" maxlength="100"' }, view, firstError),
    view.mode === 'sandbox' ? testCardsHint() : '',
    '</fieldset>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

function netbankingPanel(view: CheckoutPageView): string {
  const error = view.errors?.bank_code;
  const chosen = view.values?.bank_code;
  const options = SANDBOX_BANKS.map(
    (bank) => `<option value="${escapeHtml(bank.code)}"${bank.code === chosen ? ' selected' : ''}>${escapeHtml(bank.name)}</option>`,
  );
  return [
    '<fieldset class="panel panel-NET_BANKING" data-testid="panel-NET_BANKING"><legend>Net banking</legend>',
    `<div class="field${error ? ' has-error' : ''}">`,
    '<label for="bank_code">Your bank</label>',
    fieldError('bank_code', error),
    `<select id="bank_code" name="bank_code" data-testid="bank_code"${error ? ' aria-describedby="bank_code-error" aria-invalid="true" autofocus' : ''}>`,
    `<option value=""${chosen ? '' : ' selected'}>Choose your bank</option>`,
    ...options,
    '</select>',
    '</div>',
    '</fieldset>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** The fields of every allowed method; CSS shows the chosen method's panel (all show when :has is unsupported). */
function methodPanels(view: CheckoutPageView): string {
  const methods = allowedUnique(view.allowedMethods);
  const errorOrder: CheckoutField[] = ['vpa', 'card_number', 'card_expiry', 'card_cvc', 'card_name', 'bank_code'];
  const firstError = errorOrder.find((name) => view.errors?.[name] !== undefined && name !== 'bank_code');
  const panels: string[] = [];
  if (methods.includes('UPI')) panels.push(upiPanel(view, firstError));
  if (methods.includes('CREDIT_CARD') || methods.includes('DEBIT_CARD')) panels.push(cardPanel(view, firstError));
  if (methods.includes('NET_BANKING')) panels.push(netbankingPanel(view));
  if (methods.includes('QR')) panels.push(qrPanel(view));
  return panels.join('\n');
}

/** The last attempt failed and the shopper may try again (D126 a decline on the hosted page keeps the session open): why, that nothing was taken, what is left. */
function declinedNotice(declined: CheckoutPageView['declined']): string {
  if (!declined) return '';
  const left = declined.attemptsLeft === 1 ? '1 attempt left' : `${declined.attemptsLeft} attempts left`;
  return (
    '<div class="decline-notice" role="alert" data-testid="decline-notice">' +
    `<p><strong>Payment failed:</strong> ${escapeHtml(declined.message)}</p>` +
    `<p>No money was taken. Try again with another card or another method (${left}).</p></div>`
  );
}

/**
 * A summary of a re-shown page's errors, announced first (role=alert), each linking to its field. Always there, hidden
 * when empty: the page's script lists its own errors in it.
 */
function errorSummary(errors: FieldErrors | undefined): string {
  const entries = Object.entries(errors ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const items = entries.map(([name, message]) => `<li><a href="#${escapeHtml(name)}">${escapeHtml(message)}</a></li>`);
  return (
    `<div class="error-summary" role="alert" data-testid="error-summary"${entries.length === 0 ? ' hidden' : ''}>` +
    `<p>Please correct the following:</p><ul>${items.join('')}</ul></div>`
  );
}

/**
 * The hosted payment page (GET /checkout/{session_id}, and the 422 answer that re-shows it with errors). The form
 * POSTs `outcome` (success | failure | cancel), `mop_type` and the chosen method's fields (`vpa`; `card_number`,
 * `card_expiry`, `card_cvc`, `card_name`; `bank_code`) as application/x-www-form-urlencoded to
 * `/checkout/{sessionId}` (D74 checkout page is one form without JavaScript). Sandbox pages show a banner, the test cards and a "Simulate failure" button;
 * production pages only Pay and Cancel. Serve with `Content-Security-Policy: CHECKOUT_PAGE_CSP`,
 * `Cache-Control: no-store`, `Referrer-Policy: no-referrer`.
 */
export function renderCheckoutPage(view: CheckoutPageView, options: RenderCheckoutPageOptions = {}): string {
  const now = (options.now ?? Date.now)();
  const sandbox = view.mode === 'sandbox';
  const remaining = remainingSeconds(view.expiresAt, now);
  const action = `/checkout/${encodeURIComponent(view.sessionId)}`;
  const amountText = formatMoney(view.amount, view.currency);

  const body = [
    '<main>',
    sandbox ? '<div class="banner" role="note" data-testid="sandbox-banner">Sandbox mode: test payment, no money is moved.</div>' : '',
    '<div class="card">',
    `<p class="muted">Pay to</p>`,
    `<h1 data-testid="merchant">${escapeHtml(view.merchantName)}</h1>`,
    `<p class="amount" data-testid="amount" data-currency="${escapeHtml(view.currency)}" data-amount="${escapeHtml(view.amount)}">${escapeHtml(amountText)}</p>`,
    '<dl>',
    `<dt>Product</dt><dd data-testid="product">${escapeHtml(view.productName)}</dd>`,
    `<dt>Order</dt><dd data-testid="order-id">${escapeHtml(view.orderId)}</dd>`,
    `<dt>Reference</dt><dd data-testid="reference-id">${escapeHtml(view.referenceId)}</dd>`,
    `<dt>Expires in</dt><dd><time role="timer" datetime="${escapeHtml(view.expiresAt)}" data-testid="countdown" ` +
      `data-remaining-seconds="${remaining}">${formatRemaining(remaining)}</time></dd>`,
    '</dl>',
    `<form id="checkout-form" method="POST" action="${escapeHtml(action)}" enctype="application/x-www-form-urlencoded" ` +
      `data-testid="checkout-form" data-now-ms="${now}">`,
    declinedNotice(view.declined),
    errorSummary(view.errors),
    methodsFieldset(view.allowedMethods, view.selectedMethod, view.errors?.mop_type),
    methodPanels(view),
    '<p id="expired" hidden>This payment session has expired. Return to the merchant to start again.</p>',
    '<div class="actions">',
    `<button type="submit" class="pay" name="outcome" value="success" data-testid="pay">Pay ${escapeHtml(amountText)}</button>`,
    '</div>',
    // secondary controls: smaller, below Pay, never mistaken for it (D127 checkout page formatting and accessibility)
    '<div class="secondary-actions">',
    '<button type="submit" class="cancel" name="outcome" value="cancel" data-testid="cancel" formnovalidate>Cancel payment</button>',
    sandbox
      ? '<button type="submit" class="fail" name="outcome" value="failure" data-testid="fail" formnovalidate>Sandbox: simulate failure</button>'
      : '',
    '</div>',
    '</form>',
    '</div>',
    '</main>',
  ]
    .filter((line) => line !== '')
    .join('\n');

  return htmlDocument({ title: `Pay ${view.merchantName}`, body, script: CHECKOUT_PAGE_SCRIPT });
}

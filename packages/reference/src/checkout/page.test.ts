import { describe, expect, it } from 'vitest';
import { escapeHtml } from './html.js';
import { bundleCheckoutPage, bundleModuleSource, BROWSER_BUNDLES, PAGE_BUNDLE_MODULE } from '../../scripts/bundle-checkout-sdk.js';
import { readFileSync } from 'node:fs';
import { VPA_PATTERN } from '../orders/vpa.js';
import { CHECKOUT_PAGE_CSP, CHECKOUT_PAGE_SCRIPT, formatMoney, htmlPattern, renderCheckoutPage, type CheckoutPageView } from './page.js';
import { EXPIRY_PATTERN } from './methods/cards.js';
import { MESSAGES } from './methods/field-checks.js';

/** Inline event handler attributes of real tags (quoted attribute values, which hold the escaped data, are skipped). */
function eventHandlerAttributes(html: string): string[] {
  const tags = html.match(/<[a-zA-Z][^>]*>/g) ?? [];
  return tags.map((t) => t.replace(/"[^"]*"/g, '""')).filter((t) => /\son\w+\s*=/i.test(t));
}

const NOW = Date.parse('2026-11-21T10:00:00.000000Z');

function view(over: Partial<CheckoutPageView> = {}): CheckoutPageView {
  return {
    sessionId: 'session_' + 'A'.repeat(43),
    orderId: 'OD1234567890123456',
    merchantName: 'Acme Stores',
    amount: '1500.00',
    currency: 'INR',
    referenceId: 'ref-001',
    productName: 'Blue T-shirt',
    expiresAt: '2026-11-21T10:15:00.000000Z',
    mode: 'sandbox',
    allowedMethods: ['UPI', 'CREDIT_CARD', 'DEBIT_CARD', 'NET_BANKING', 'QR'],
    ...over,
  };
}

const render = (over: Partial<CheckoutPageView> = {}) => renderCheckoutPage(view(over), { now: () => NOW });
/** The page without its (static) script: what the markup says. */
const markup = (html: string) => html.replace(/<script>[\s\S]*?<\/script>/g, '');

/** Tag names used by the page (user values are escaped, so every `<` starts a real tag). */
function tagNames(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase());
}

function byTestId(html: string, id: string): string | undefined {
  return new RegExp(`<[^>]*data-testid="${id}"[^>]*>`).exec(html)?.[0];
}

describe('escapeHtml', () => {
  it('escapes the HTML-significant characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&\`</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;');
    expect(escapeHtml(1500)).toBe('1500');
  });
});

describe('renderCheckoutPage', () => {
  it('renders merchant, amount, product, order id and a POST form to /checkout/{sessionId}', () => {
    const html = render();
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toMatch(/<h1 data-testid="merchant">Acme Stores<\/h1>/);
    expect(html).toContain('data-testid="amount" data-currency="INR" data-amount="1500.00">₹1,500.00</p>');
    expect(html).toContain('<dd data-testid="product">Blue T-shirt</dd>');
    expect(html).toContain('<dd data-testid="order-id">OD1234567890123456</dd>');
    expect(html).toContain(
      `<form id="checkout-form" method="POST" action="/checkout/session_${'A'.repeat(43)}" enctype="application/x-www-form-urlencoded"`,
    );
    expect(html).toContain('<title>Pay Acme Stores</title>');
    expect(html).toContain('name="viewport"');
  });

  it('offers each allowed method once as a radio named mop_type, the first checked', () => {
    const html = render({ allowedMethods: ['NET_BANKING', 'UPI', 'NET_BANKING'] });
    const radios = [...html.matchAll(/<input type="radio"[^>]*>/g)].map((m) => m[0]);
    expect(radios).toHaveLength(2);
    expect(radios[0]).toContain('name="mop_type" value="NET_BANKING" data-testid="method-NET_BANKING" checked');
    expect(radios[1]).toContain('value="UPI" data-testid="method-UPI"');
    expect(radios[1]).not.toContain('checked');
    expect(html).toContain('<label class="method" for="method-UPI">');
    expect(html).toContain('<legend>Payment method</legend>');
    for (const m of ['UPI', 'CREDIT_CARD', 'DEBIT_CARD', 'NET_BANKING', 'QR']) {
      expect(byTestId(render(), `method-${m}`)).toContain(`value="${m}"`);
    }
  });

  it('omits the method fieldset when no method is allowed', () => {
    expect(markup(render({ allowedMethods: [] }))).not.toContain('name="mop_type"');
  });

  it('sandbox: banner and Pay / Simulate failure / Cancel buttons', () => {
    const html = render({ mode: 'sandbox' });
    expect(byTestId(html, 'sandbox-banner')).toBeDefined();
    expect(html).toMatch(/Sandbox/);
    expect(byTestId(html, 'pay')).toContain('name="outcome" value="success"');
    expect(byTestId(html, 'fail')).toContain('name="outcome" value="failure"');
    expect(byTestId(html, 'cancel')).toContain('name="outcome" value="cancel"');
    expect(html.match(/<button type="submit"/g)).toHaveLength(3);
  });

  it('production: no banner, only Pay and Cancel', () => {
    const html = render({ mode: 'production' });
    expect(byTestId(html, 'sandbox-banner')).toBeUndefined();
    expect(markup(html)).not.toMatch(/sandbox/i);
    expect(byTestId(html, 'pay')).toContain('value="success"');
    expect(byTestId(html, 'fail')).toBeUndefined();
    expect(html).not.toContain('value="failure"');
    expect(byTestId(html, 'cancel')).toContain('value="cancel"');
    expect(html.match(/<button type="submit"/g)).toHaveLength(2);
  });

  it('renders hostile values inert (script tags, quotes, attribute breakout)', () => {
    const evil = `<script>alert("x")</script>' onmouseover='alert(1)`;
    const html = render({
      merchantName: evil,
      productName: `"><img src=x onerror=alert(1)>`,
      referenceId: evil,
      orderId: evil,
      currency: `"><b>`,
      amount: `<i>1</i>`,
      expiresAt: `"><svg onload=alert(1)>`,
      sessionId: `"><script>alert(1)</script>`,
    });
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;alert(1)');
    expect(html).toContain('<title>Pay &lt;script&gt;');
    // The only script element is the static one.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`<script>${CHECKOUT_PAGE_SCRIPT}</script>`);
    // No injected tags or inline event handler attributes.
    expect(new Set(tagNames(html))).toEqual(
      new Set([
        'html',
        'head',
        'meta',
        'title',
        'style',
        'body',
        'main',
        'div',
        'p',
        'h1',
        'span',
        'dl',
        'dt',
        'dd',
        'time',
        'form',
        'fieldset',
        'legend',
        'label',
        'input',
        'button',
        'script',
        'select',
        'option',
        'details',
        'summary',
        'ul',
        'li',
        'code',
      ]),
    );
    expect(eventHandlerAttributes(html)).toEqual([]);
    // The session id is URL-encoded inside the (escaped) action attribute.
    expect(html).toContain('action="/checkout/%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E"');
  });

  it('loads no external resources and has no inline event handlers', () => {
    const html = render();
    expect(html).not.toMatch(/\s(src|href)=/i);
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(eventHandlerAttributes(html)).toEqual([]);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(CHECKOUT_PAGE_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; script-src 'sha256-/);
    expect(CHECKOUT_PAGE_CSP).toContain("form-action 'self'");
  });

  it('shows the remaining time computed from the server clock', () => {
    expect(byTestId(render(), 'countdown')).toContain('data-remaining-seconds="900"');
    expect(render()).toContain('>15:00</time>');
    const past = renderCheckoutPage(view(), { now: () => NOW + 20 * 60_000 });
    expect(byTestId(past, 'countdown')).toContain('data-remaining-seconds="0"');
    expect(render({ expiresAt: 'not a date' })).toContain('>0:00</time>');
  });
});

describe('renderCheckoutPage: method panels', () => {
  const QR = {
    svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 29 29"><path d="M0 0h1"/></svg>',
    label: 'UPI QR code: pay INR 1500.00 to Acme Stores',
  };

  it('renders a panel per method: UPI (QR + VPA), one card form for credit and debit, net banking, QR', () => {
    const html = render({ upiQr: QR });
    for (const id of [
      'panel-UPI',
      'panel-card',
      'panel-NET_BANKING',
      'panel-QR',
      'upi-qr',
      'qr-qr',
      'vpa',
      'card_number',
      'card_expiry',
      'card_cvc',
      'card_name',
      'bank_code',
    ]) {
      expect(byTestId(html, id), id).toBeDefined();
    }
    expect(html.match(/data-testid="panel-card"/g)).toHaveLength(1);
    expect(html).toContain(`<div class="qr-code" role="img" aria-label="${QR.label}">${QR.svg}</div>`);
    expect(byTestId(html, 'card_number')).toContain('autocomplete="cc-number"');
    expect(byTestId(html, 'card_number')).toContain('inputmode="numeric"');
    expect(byTestId(html, 'card_expiry')).toContain('autocomplete="cc-exp"');
    expect(byTestId(html, 'vpa')).toContain('pattern="[a-zA-Z0-9._\\-]+@[a-zA-Z0-9.\\-]+"');
    expect(html).toContain('<option value="PGFL">Paygate Test Bank (always fails)</option>');
  });

  it('shows only the panels of the allowed methods', () => {
    const html = render({ allowedMethods: ['NET_BANKING'], upiQr: QR });
    expect(byTestId(html, 'panel-NET_BANKING')).toBeDefined();
    expect(byTestId(html, 'panel-UPI')).toBeUndefined();
    expect(byTestId(html, 'panel-card')).toBeUndefined();
    expect(byTestId(html, 'upi-qr')).toBeUndefined();
  });

  it('a re-shown page: the chosen method, each error next to its field (aria-describedby, aria-invalid), a summary, focus on the first', () => {
    const html = render({
      selectedMethod: 'DEBIT_CARD',
      errors: { card_number: 'Check the card number', card_cvc: 'Enter the 3-digit security code' },
      values: { card_expiry: '12/30', card_name: 'Priya <Sharma>' },
    });
    expect(byTestId(html, 'method-DEBIT_CARD')).toContain('checked');
    expect(byTestId(html, 'method-UPI')).not.toContain('checked');
    expect(html).toContain('<p class="field-error" id="card_number-error" data-testid="card_number-error">Check the card number</p>');
    const number = byTestId(html, 'card_number')!;
    expect(number).toContain('aria-describedby="card_number-error"');
    expect(number).toContain('aria-invalid="true"');
    expect(number).toContain('autofocus');
    expect(byTestId(html, 'card_cvc')).not.toContain('autofocus');
    expect(byTestId(html, 'card_expiry')).toContain('value="12/30"');
    expect(byTestId(html, 'card_name')).toContain('value="Priya &lt;Sharma&gt;"');
    expect(byTestId(html, 'error-summary')).toContain('role="alert"');
    expect(html).toContain('<li><a href="#card_number">Check the card number</a></li>');
    expect(html.match(/autofocus/g)).toHaveLength(1);
  });

  it('puts the card number back when the handler gives it (after a field error, D294), never a CVC (a type error)', () => {
    // @ts-expect-error never a CVC
    const withCvc: CheckoutPageView['values'] = { card_cvc: '123' };
    const html = render({ errors: { card_number: 'Check the card number' }, values: { card_number: '4242 4242 4242 4241', ...withCvc } });
    expect(byTestId(html, 'card_number')).toContain('value="4242 4242 4242 4241"');
    expect(byTestId(html, 'card_cvc')).not.toContain('value=');
    expect(byTestId(render({ values: {} }), 'card_number')).not.toContain('value=');
  });

  it("every field has its error line, hidden until there is an error; the summary too (the script fills the server's markup)", () => {
    const clean = render();
    for (const field of ['mop_type', 'vpa', 'card_number', 'card_expiry', 'card_cvc', 'card_name', 'bank_code']) {
      expect(byTestId(clean, `${field}-error`)).toMatch(
        new RegExp(`^<p class="field-error" id="${field}-error" data-testid="${field}-error" hidden>$`),
      );
    }
    expect(byTestId(clean, 'error-summary')).toContain(' hidden');
    expect(byTestId(clean, 'card_number')).not.toContain('aria-describedby');
    const shown = render({ errors: { card_cvc: MESSAGES.cvc3 } });
    expect(shown).toContain(`<p class="field-error" id="card_cvc-error" data-testid="card_cvc-error">${MESSAGES.cvc3}</p>`);
    expect(byTestId(shown, 'error-summary')).not.toContain('hidden');
    expect(byTestId(shown, 'card_cvc')).toContain('aria-describedby="card_cvc-error" aria-invalid="true"');
  });

  it.each([
    ['vpa', MESSAGES.vpa],
    ['card_number', MESSAGES.cardNumberInvalid],
    ['card_expiry', MESSAGES.expiryMalformed],
    ['card_cvc', MESSAGES.cvcAny],
  ])("%s: its pattern carries the server's words as its title (shown by a browser without the script)", (field, message) => {
    const input = byTestId(render(), field);
    expect(input).toContain(' pattern="');
    expect(input).toContain(`title="${escapeHtml(message)}"`);
  });

  it('the form carries the order clock (the script checks an expiry against it, as the server does)', () => {
    expect(byTestId(render(), 'checkout-form')).toContain(`data-now-ms="${NOW}"`);
  });

  it('lists the sandbox test cards in the sandbox only', () => {
    expect(byTestId(render({ mode: 'sandbox' }), 'test-cards')).toBeDefined();
    expect(render({ mode: 'sandbox' })).toContain('<code>4000 0000 0000 3220</code>');
    expect(byTestId(render({ mode: 'production' }), 'test-cards')).toBeUndefined();
  });
});

describe('renderCheckoutPage: a checkout shoppers trust (D126, D127)', () => {
  it.each([
    ['1500.00', 'INR', '₹1,500.00'],
    ['150000.00', 'INR', '₹1,50,000.00'],
    ['0.50', 'INR', '₹0.50'],
    ['99999999999999999.99', 'INR', '₹99,99,99,99,99,99,99,999.99'], // exact: formatted from the string, no float
    ['1500.00', 'USD', '$1,500.00'],
    ['1500.00', 'XQQ', 'XQQ 1,500.00'], // a code without a symbol is written out
    ['1500.00', 'not a code', 'not a code 1500.00'], // one Intl refuses is shown as it is, still exact
  ])('formatMoney(%s, %s) = %s', (amount, currency, shown) => {
    expect(formatMoney(amount, currency).replace(/\s/g, ' ')).toBe(shown); // Intl separates a code with a no-break space
  });

  it("shows the amount and the Pay button in the shopper's format", () => {
    const html = render();
    expect(html).toContain('data-testid="pay">Pay ₹1,500.00</button>');
  });

  it('a declined attempt shows why, that nothing was taken and the attempts left, announced as an alert', () => {
    const html = render({ declined: { message: 'Card declined by the issuer', attemptsLeft: 1 } });
    const notice = byTestId(html, 'decline-notice');
    expect(notice).toContain('role="alert"');
    expect(html).toContain('<strong>Payment failed:</strong> Card declined by the issuer');
    expect(html).toContain('No money was taken. Try again with another card or another method (1 attempt left).');
    expect(byTestId(render(), 'decline-notice')).toBeUndefined();
  });

  it('UPI app buttons carry the order intent under each app scheme; the sandbox controls sit apart from Pay', () => {
    const apps = [
      { app: 'google_pay' as const, label: 'Google Pay', uri: 'tez://upi/pay?pa=x@paygate&am=1500.00' },
      { app: 'others' as const, label: 'Other UPI app', uri: 'upi://pay?pa=x@paygate&am=1500.00' },
    ];
    const html = render({ upiApps: apps });
    expect(html).toContain(
      '<a class="upi-app" href="tez://upi/pay?pa=x@paygate&amp;am=1500.00" data-testid="upi-app-google_pay">Google Pay</a>',
    );
    expect(byTestId(html, 'upi-app-others')).toBeDefined();
    expect(html.indexOf('data-testid="pay"')).toBeLessThan(html.indexOf('class="secondary-actions"'));
    expect(html.indexOf('class="secondary-actions"')).toBeLessThan(html.indexOf('data-testid="fail"'));
  });

  it("the page script is the bundle of browser/checkout-page.ts with the server's own rules in it, not a copy (D294)", () => {
    const page = BROWSER_BUNDLES.find((b) => b.constant === 'CHECKOUT_PAGE_SCRIPT')!;
    expect(bundleModuleSource(bundleCheckoutPage(), page)).toBe(readFileSync(PAGE_BUNDLE_MODULE, 'utf8'));
    for (const module of ['core/luhn.ts', 'checkout/methods/cards.ts', 'orders/vpa.ts', 'checkout/methods/field-checks.ts'])
      expect(CHECKOUT_PAGE_SCRIPT).toContain(`// packages/reference/src/${module}`);
    expect(byTestId(render(), 'card-brand')).toContain('aria-live="polite"');
  });
});

describe('htmlPattern: a rule as an HTML pattern attribute (D294)', () => {
  it.each([
    [VPA_PATTERN, ['priya@okhdfcbank', 'a.b-c_d@x.y', 'failure@paygate'], ['no-at', 'a b@x', 'a@b@c', 'a@b_c']],
    [EXPIRY_PATTERN, ['12/30', '1/30', '12 / 2030', '01/2031'], ['1230', '12/3', '12-30', 'ab/cd']],
  ])('%s compiles as browsers compile it (v flag) and accepts what the rule accepts', (rule, good, bad) => {
    const asBrowser = new RegExp(`^(?:${htmlPattern(rule)})$`, 'v');
    for (const value of [...good, ...bad]) expect({ value, html: asBrowser.test(value) }).toEqual({ value, html: rule.test(value) });
  });
});

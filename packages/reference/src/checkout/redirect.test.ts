import { describe, expect, it } from 'vitest';
import { REDIRECT_FORM_SCRIPT, REDIRECT_PAGE_CSP, RESULT_PAGE_CSP, renderRedirectForm, renderResultPage } from './redirect.js';

/** Inline event handler attributes of real tags (quoted attribute values, which hold the escaped data, are skipped). */
function eventHandlerAttributes(html: string): string[] {
  const tags = html.match(/<[a-zA-Z][^>]*>/g) ?? [];
  return tags.map((t) => t.replace(/"[^"]*"/g, '""')).filter((t) => /\son\w+\s*=/i.test(t));
}

const FIELDS = {
  order_id: 'OD1234567890123456',
  payment_id: 'PR1234567890123456',
  status: 'payment_successful',
  message: `Paid "in full" <b>& thanks</b> 'ok'`,
  mop_type: 'UPI',
  bank_ref_num: '123456789012',
  payment_completed_at: '2026-11-21 10:15:30+00:00',
  hash: 'a'.repeat(64),
};

function hiddenInputs(html: string): Array<[string, string]> {
  return [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]);
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&');

describe('renderRedirectForm', () => {
  it('POSTs every field as a hidden input, in order, to the url', () => {
    const html = renderRedirectForm({ url: 'https://shop.example/payments/return?x=1&y=2', fields: FIELDS });
    expect(html).toContain(
      '<form id="paygate-redirect" method="POST" action="https://shop.example/payments/return?x=1&amp;y=2" enctype="application/x-www-form-urlencoded"',
    );
    const inputs = hiddenInputs(html);
    expect(inputs.map(([n]) => n)).toEqual(Object.keys(FIELDS));
    expect(Object.fromEntries(inputs.map(([n, v]) => [n, unescape(v)]))).toEqual(FIELDS);
    expect(html).toContain('value="Paid &quot;in full&quot; &lt;b&gt;&amp; thanks&lt;/b&gt; &#39;ok&#39;"');
  });

  it('auto-submits with one static script and keeps a visible Continue button', () => {
    const html = renderRedirectForm({ url: 'https://shop.example/r', fields: { submit: 'x', id: 'y' } });
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`<script>${REDIRECT_FORM_SCRIPT}</script>`);
    expect(REDIRECT_FORM_SCRIPT).toContain('HTMLFormElement.prototype.submit.call');
    expect(html).toMatch(/<button type="submit"[^>]*data-testid="continue">Continue<\/button>/);
    expect(eventHandlerAttributes(html)).toEqual([]);
    expect(REDIRECT_PAGE_CSP).not.toContain('form-action');
  });

  it('escapes hostile field names and values', () => {
    const html = renderRedirectForm({
      url: 'https://shop.example/r',
      fields: { '"><script>alert(1)</script>': '"><script>alert(2)</script>' },
    });
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(hiddenInputs(html)).toEqual([
      ['&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;', '&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;'],
    ]);
  });

  it('refuses non-http(s) or relative URLs', () => {
    expect(() => renderRedirectForm({ url: 'javascript:alert(1)', fields: {} })).toThrow(TypeError);
    expect(() => renderRedirectForm({ url: 'data:text/html,hi', fields: {} })).toThrow(/http or https/);
    expect(() => renderRedirectForm({ url: '/relative', fields: {} })).toThrow(/absolute/);
    expect(() => renderRedirectForm({ url: 'http://localhost:3000/cb', fields: {} })).not.toThrow();
  });
});

describe('renderResultPage', () => {
  it.each([
    ['payment_successful', 'Payment successful'],
    ['payment_failed', 'Payment failed'],
    ['payment_cancelled', 'Payment cancelled'],
  ] as const)('%s', (status, heading) => {
    const html = renderResultPage({ status, orderId: 'OD1234567890123456', message: 'Done <b>"now"</b>' });
    expect(html).toContain(`data-testid="status" data-status="${status}">${heading}</h1>`);
    expect(html).toContain('<p data-testid="message">Done &lt;b&gt;&quot;now&quot;&lt;/b&gt;</p>');
    expect(html).toContain('<dd data-testid="order-id">OD1234567890123456</dd>');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<form');
  });

  it('has a script-free CSP', () => {
    expect(RESULT_PAGE_CSP).toContain("script-src 'none'");
  });
});

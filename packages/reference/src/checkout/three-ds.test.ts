import { describe, expect, it } from 'vitest';
import { renderThreeDsChallenge, THREE_DS_PAGE_CSP } from './three-ds.js';

describe('renderThreeDsChallenge', () => {
  const html = renderThreeDsChallenge({
    sessionId: 'session_abc',
    merchantName: 'Acme <Stores>',
    amountText: 'INR 1500.00',
    cardNetwork: 'visa',
    cardLast4: '3220',
  });

  it('names the amount, merchant and card by network and last four digits only', () => {
    expect(html).toContain('<strong data-testid="three-ds-amount">INR 1500.00</strong>');
    expect(html).toContain('to Acme &lt;Stores&gt; with your Visa card ending in <strong data-testid="three-ds-last4">3220</strong>');
  });

  it('posts outcome=success with three_ds_result approved or failed back to the payment page, without script', () => {
    expect(html).toContain('<form method="POST" action="/checkout/session_abc"');
    expect(html).toContain('<input type="hidden" name="outcome" value="success">');
    expect(html).toContain('name="three_ds_result" value="approved" data-testid="three-ds-approve"');
    expect(html).toContain('name="three_ds_result" value="failed" data-testid="three-ds-fail"');
    expect(html).toContain('<fieldset><legend>Sandbox challenge</legend>');
    expect(html).not.toContain('<script');
    expect(THREE_DS_PAGE_CSP).toContain("script-src 'none'");
    expect(THREE_DS_PAGE_CSP).toContain("form-action 'self'");
  });
});

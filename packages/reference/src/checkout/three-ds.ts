import { escapeHtml, htmlDocument, pageCsp } from './html.js';
import type { CardNetwork } from './methods/cards.js';

/** What the simulated 3-D Secure challenge shows: never the card number, only its network and last four digits. */
export interface ThreeDsChallengeView {
  sessionId: string;
  merchantName: string;
  /** e.g. `INR 1500.00`. */
  amountText: string;
  cardNetwork: CardNetwork;
  cardLast4: string;
}

/** No script; the two buttons post back to the payment page's URL. */
export const THREE_DS_PAGE_CSP = pageCsp(null, ["form-action 'self'"]);

const NETWORK_NAMES: Readonly<Record<CardNetwork, string>> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  rupay: 'RuPay',
  amex: 'American Express',
  diners: 'Diners Club',
  unknown: 'Card',
};

/**
 * The sandbox's stand-in for the issuer's 3-D Secure page (decision D73): the customer approves or fails the
 * challenge, posting `outcome=success` with `three_ds_result` to `/checkout/{sessionId}`. A real issuer page would
 * ask for an OTP; the sandbox makes the answer a button so tests can take both paths.
 */
export function renderThreeDsChallenge(view: ThreeDsChallengeView): string {
  const action = `/checkout/${encodeURIComponent(view.sessionId)}`;
  const body = [
    '<main>',
    '<div class="banner" role="note" data-testid="sandbox-banner">Sandbox 3-D Secure: no bank is contacted.</div>',
    '<div class="card">',
    '<h1 data-testid="three-ds-heading">Confirm this payment with your bank</h1>',
    `<p>Your bank asks you to approve a payment of <strong data-testid="three-ds-amount">${escapeHtml(view.amountText)}</strong> ` +
      `to ${escapeHtml(view.merchantName)} with your ${escapeHtml(NETWORK_NAMES[view.cardNetwork])} card ending in ` +
      `<strong data-testid="three-ds-last4">${escapeHtml(view.cardLast4)}</strong>.</p>`,
    `<form method="POST" action="${escapeHtml(action)}" enctype="application/x-www-form-urlencoded" data-testid="three-ds-form">`,
    '<fieldset><legend>Sandbox challenge</legend>',
    '<p class="hint">Choose what the customer does at the bank.</p>',
    '<input type="hidden" name="outcome" value="success">',
    '<div class="actions">',
    '<button type="submit" class="pay" name="three_ds_result" value="approved" data-testid="three-ds-approve">Approve payment</button>',
    '<button type="submit" class="fail" name="three_ds_result" value="failed" data-testid="three-ds-fail">Fail authentication</button>',
    '</div>',
    '</fieldset>',
    '</form>',
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: 'Confirm the payment with your bank', body });
}

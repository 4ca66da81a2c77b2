import { escapeHtml, htmlDocument, pageCsp } from './html.js';

/** No script, no form. */
export const SESSION_ERROR_PAGE_CSP = pageCsp(null, ["form-action 'none'"]);

/** Why a session cannot be used: the service's `details.session_id` reasons, grouped for a shopper. */
export type SessionProblem = 'expired' | 'used' | 'invalid';

/** The service's reason text (checkout/service.ts) -> what to tell the shopper. */
export function sessionProblemOf(reason: string | undefined): SessionProblem {
  if (reason?.includes('expired')) return 'expired';
  if (reason?.includes('already been used')) return 'used';
  return 'invalid';
}

const PAGES: Readonly<Record<SessionProblem, { heading: string; text: string }>> = {
  expired: {
    heading: 'This payment link has expired',
    text: 'Payment links are valid for 15 minutes. Nothing has been charged. Go back to the merchant and start the payment again.',
  },
  used: {
    heading: 'This payment link has already been used',
    text: 'This payment was already completed or cancelled. Go back to the merchant to see the status of your order.',
  },
  invalid: {
    heading: 'This payment link is not valid',
    text: 'Check that you opened the whole link the merchant gave you, or go back to the merchant and start the payment again.',
  },
};

/**
 * What a shopper's browser gets for an unknown, malformed, expired or used checkout session (decision D75): a page
 * in words, not the JSON error envelope API clients get (`ERR_AUTH_000`).
 */
export function renderSessionErrorPage(problem: SessionProblem): string {
  const page = PAGES[problem];
  const body = [
    '<main>',
    '<div class="card">',
    `<h1 class="status" data-testid="status" data-status="session_${problem}">${escapeHtml(page.heading)}</h1>`,
    `<p data-testid="message">${escapeHtml(page.text)}</p>`,
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: page.heading, body });
}

/**
 * GET /: where a person who opens the gateway's address in a browser lands. Links to the reference site and says how
 * to reach a checkout page; an API client asking for JSON gets the links as JSON. Static: no data, no secrets.
 */
import { escapeHtml, htmlDocument, pageCsp } from '../checkout/html.js';

export const HOME_LINKS = [
  { href: '/docs/', label: 'API reference', description: 'every operation, with examples' },
  { href: '/docs/events.html', label: 'Webhook events', description: 'what is sent, signed how' },
  { href: '/docs/errors.html', label: 'Error codes', description: 'every code and what to do about it' },
  { href: '/healthz', label: 'Health', description: 'liveness of this process' },
  { href: '/readyz', label: 'Readiness', description: 'its database (and Redis) answer: it can take traffic' },
] as const;

export const HOME_PAGE_CSP = pageCsp(null);

export function renderHomePage(mode: 'sandbox' | 'production'): string {
  const links = HOME_LINKS.map(
    (l) =>
      `<li><a href="${escapeHtml(l.href)}" data-testid="home-${escapeHtml(l.href)}">${escapeHtml(l.label)}</a>: ${escapeHtml(l.description)}</li>`,
  );
  const body = [
    '<main>',
    '<div class="card">',
    `<h1>Paygate ${mode === 'sandbox' ? 'sandbox' : 'gateway'}</h1>`,
    `<ul>${links.join('')}</ul>`,
    mode === 'sandbox'
      ? '<p>To see the hosted checkout, create an order (<code>POST /pg/orders/</code> with <code>collection_mode: hosted_payment</code>) ' +
        'and open <code>/checkout/{session_id}</code> from its answer: the README walkthrough does it in a few commands, ' +
        'and <code>npx paygate trigger PAYMENT_CAPTURED</code> makes a paid order for you.</p>'
      : '',
    '</div>',
    '</main>',
  ].join('\n');
  return htmlDocument({ title: 'Paygate', body });
}

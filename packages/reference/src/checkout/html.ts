import { createHash } from 'node:crypto';

/**
 * Shared HTML helpers for the hosted checkout pages. Pure functions, no template engine: every interpolated value
 * goes through {@link escapeHtml}. The pages load no external resources (no fonts, images, scripts or stylesheets),
 * so they work offline and under a strict Content-Security-Policy; inline <style>/<script> blocks are static text
 * (values reach scripts only through escaped data-* attributes), so their CSP hashes are constants.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for HTML element content and (double- or single-quoted) attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"'`]/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** CSP source expression (`'sha256-…'`) for an inline <script>/<style> body. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** One stylesheet shared by every checkout page (mobile-first, system fonts, visible focus, reduced motion). */
export const CHECKOUT_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1a1d23;background:#f3f4f6}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid #d9dce1;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.06)}
h1{font-size:1.25rem;margin:0 0 .25rem;overflow-wrap:anywhere}
.muted{color:#4b5563;font-size:.875rem}
.amount{font-size:2rem;font-weight:700;margin:.5rem 0 1rem;font-variant-numeric:tabular-nums}
.banner{background:#fff4ce;color:#5c4400;border:1px solid #e0b400;border-radius:8px;padding:.5rem .75rem;margin-bottom:1rem;font-weight:600}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;margin:0 0 1rem}
dt{color:#4b5563}
dd{margin:0;overflow-wrap:anywhere}
fieldset{border:1px solid #d9dce1;border-radius:8px;margin:0 0 1rem;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.method{display:flex;align-items:center;gap:.5rem;padding:.5rem 0;min-height:44px;cursor:pointer}
.method input{width:1.25rem;height:1.25rem;margin:0}
.actions{display:grid;gap:.5rem}
.secondary-actions{display:flex;flex-wrap:wrap;justify-content:center;gap:.25rem 1rem;margin-top:.5rem}
.secondary-actions button{font-weight:400;font-size:.875rem;min-height:44px;background:none;border:none;text-decoration:underline;padding:.25rem .5rem}
button{font:inherit;font-weight:600;min-height:48px;border-radius:8px;border:1px solid transparent;padding:.5rem 1rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
button:disabled{opacity:.5;cursor:not-allowed}
.pay{background:#1d4ed8;color:#fff}
.fail{color:#8a1c1c}
.cancel{color:#374151}
.decline-notice{border:2px solid #b91c1c;border-radius:8px;padding:.5rem .75rem;margin:0 0 1rem;background:#fef2f2}
.decline-notice p{margin:.25rem 0}
.decline-notice p+p{font-weight:400;color:#1a1d23}
.card-brand{min-height:1.25rem;margin:-.5rem 0 .5rem;color:#374151;font-size:.875rem;font-weight:600}
.upi-apps{display:none;gap:.5rem;margin:0 0 .75rem}
.upi-app{display:flex;align-items:center;justify-content:center;min-height:48px;border:1px solid #6b7280;border-radius:8px;color:#1a1d23;font-weight:600;text-decoration:none}
.upi-app:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.status{font-size:1.25rem;font-weight:700;margin:0 0 .5rem}
.status-payment_successful{color:#047857}
.status-payment_failed{color:#b91c1c}
.status-payment_cancelled{color:#4b5563}
[role=alert]{color:#b91c1c;font-weight:600}
.field{margin:0 0 .75rem}
.field label{display:block;font-weight:600;margin-bottom:.25rem}
.field input,.field select{font:inherit;width:100%;min-height:44px;padding:.5rem .75rem;border:1px solid #6b7280;border-radius:8px;background:#fff;color:#1a1d23}
.field select:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.has-error input,.has-error select{border:2px solid #b91c1c}
.hint{color:#4b5563;font-size:.875rem;margin:0 0 .25rem}
.field-error{color:#b91c1c;font-weight:600;font-size:.875rem;margin:0 0 .25rem}
.row{display:grid;grid-template-columns:1fr 1fr;gap:0 .75rem;align-items:end}
.error-summary{border:2px solid #b91c1c;border-radius:8px;padding:.5rem .75rem;margin:0 0 1rem;color:#b91c1c}
.error-summary a{color:#b91c1c}
.qr{margin:0 0 .75rem;text-align:center}
.qr-code{width:12rem;max-width:100%;margin:0 auto}
.qr-code svg{display:block;width:100%;height:auto}
.qr figcaption{color:#4b5563;font-size:.875rem}
code{font-size:.875rem}
form:has(#method-UPI:not(:checked)) .panel-UPI,form:has(#method-QR:not(:checked)) .panel-QR,
form:has(#method-NET_BANKING:not(:checked)) .panel-NET_BANKING,
form:has(#method-CREDIT_CARD:not(:checked)):not(:has(#method-DEBIT_CARD:checked)) .panel-card{display:none}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){
main{padding:.5rem}
.card{padding:1rem}
.amount{font-size:1.5rem;margin:.25rem 0 .5rem}
dl{font-size:.875rem;margin-bottom:.5rem}
.upi-apps{display:grid}
.panel-UPI .qr{display:none}
.actions{position:sticky;bottom:0;background:#fff;padding:.5rem 0;margin:0 -.25rem;box-shadow:0 -1px 0 #d9dce1}
}
@media (prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important}}
`.trim();

export const CHECKOUT_CSS_HASH = cspHash(CHECKOUT_CSS);

export interface DocumentParts {
  title: string;
  /** Already-escaped HTML for <body>. */
  body: string;
  /** Static inline script (must not contain interpolated values). */
  script?: string;
}

/** Wraps a page body in a complete HTML5 document (no external resources, no referrer, not indexed). */
export function htmlDocument(parts: DocumentParts): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="robots" content="noindex, nofollow">',
    '<meta name="color-scheme" content="light">',
    `<title>${escapeHtml(parts.title)}</title>`,
    `<style>${CHECKOUT_CSS}</style>`,
    '</head>',
    '<body>',
    parts.body,
    parts.script === undefined ? '' : `<script>${parts.script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** CSP for a page with the shared stylesheet and, optionally, one static inline script. */
export function pageCsp(scriptHash: string | null, extra: string[] = []): string {
  return [
    "default-src 'none'",
    `style-src ${CHECKOUT_CSS_HASH}`,
    `script-src ${scriptHash ?? "'none'"}`,
    "img-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...extra,
  ].join('; ');
}

/** Security headers of every hosted checkout HTML response (the CSP is per page). */
export function htmlHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  };
}

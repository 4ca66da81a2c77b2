import type { UpiAppName } from '@paygate/contract';
import { formatAmount } from '../core/money.js';

export { isValidVpa, VPA_PATTERN } from './vpa.js';

export { UpiAppName } from '@paygate/contract';

/** Deep-link base per app: the app-specific scheme opens that app directly; `upi://pay` lets the OS choose. */
export const UPI_APP_SCHEME: Record<UpiAppName, string> = {
  phonepe: 'phonepe://pay',
  google_pay: 'tez://upi/pay',
  paytm: 'paytmmp://pay',
  cred: 'credpay://upi/pay',
  bhim: 'upi://pay',
  amazon_pay: 'upi://pay',
  whatsapp: 'upi://pay',
  others: 'upi://pay',
};

/** RFC 3986 query-value encoding; `@` (allowed in a query) is kept literal so the VPA stays readable. */
function encodeValue(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%40/g, '@');
}

export interface IntentParams {
  app: UpiAppName;
  /** Payee VPA (the gateway's collection address for the merchant). */
  payeeVpa: string;
  /** Payee name shown in the app. */
  payeeName: string;
  amountMinor: number;
  currency: string;
  /** Transaction reference: the order id. */
  orderId: string;
  /** Transaction note. */
  note: string;
}

/** `upi://pay?pa=...&pn=...&am=1500.00&cu=INR&tr=OD...&tn=...` with the app's scheme. */
export function buildUpiIntentUri(p: IntentParams): string {
  const query = [
    ['pa', p.payeeVpa],
    ['pn', p.payeeName],
    ['am', formatAmount(p.amountMinor)],
    ['cu', p.currency],
    ['tr', p.orderId],
    ['tn', p.note],
  ]
    .map(([k, v]) => `${k}=${encodeValue(v ?? '')}`)
    .join('&');
  return `${UPI_APP_SCHEME[p.app]}?${query}`;
}

/** Sandbox VPAs that complete an s2s collection on their own after a short delay. */
export const SANDBOX_VPA_OUTCOME: Record<string, 'success' | 'failure'> = {
  'success@paygate': 'success',
  'failure@paygate': 'failure',
};

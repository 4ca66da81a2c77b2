import { formatAmount } from '../../core/money.js';
import { buildUpiIntentUri, type UpiAppName } from '../../orders/upi.js';
import { gatewayPayeeVpa } from '../../orders/service.js';

/** What the UPI QR code pays: the order on the hosted page. */
export interface UpiQrOrder {
  merchantId: string;
  merchantName: string;
  orderId: string;
  referenceId: string;
  amountMinor: number;
  currency: string;
}

/**
 * The UPI intent of the hosted page's QR code: `upi://pay?pa=<payee VPA>&pn=<payee name>&am=<amount>&cu=<currency>
 * &tr=<order id>&tn=<note>` (NPCI UPI linking specification), built by the same code as the s2s intent links so the
 * two cannot disagree.
 */
export function upiQrIntent(order: UpiQrOrder): string {
  return upiIntentFor(order, 'others');
}

function upiIntentFor(order: UpiQrOrder, app: UpiAppName): string {
  return buildUpiIntentUri({
    app,
    payeeVpa: gatewayPayeeVpa(order.merchantId),
    payeeName: order.merchantName,
    amountMinor: order.amountMinor,
    currency: order.currency,
    orderId: order.orderId,
    note: `Payment for order ${order.referenceId}`.slice(0, 80),
  });
}

/**
 * The intent as an inline SVG QR code (the `qrcode` package, D70): inline, so the page's CSP needs no img-src; no
 * style attributes, so it needs no 'unsafe-inline'. Error correction M (15%) survives a phone camera at an angle.
 */
export async function upiQrSvg(intent: string): Promise<string> {
  // Loaded on the first checkout page, not at start-up (a gateway that only serves the API never needs it).
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(intent, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
}

/** Accessible name of the QR code image. */
export function upiQrLabel(order: Pick<UpiQrOrder, 'merchantName' | 'amountMinor' | 'currency'>): string {
  return `UPI QR code: pay ${order.currency} ${formatAmount(order.amountMinor)} to ${order.merchantName}`;
}

/** A button on a phone that opens a UPI app with the order's intent (D127 checkout page formatting and accessibility). */
export interface UpiAppLink {
  app: UpiAppName;
  label: string;
  uri: string;
}

/**
 * The UPI apps a phone shopper is offered as buttons (D127: the most used apps in India, then "any UPI app", which
 * lets the phone choose), each with the same intent as the QR code under the app's own scheme.
 */
const PHONE_UPI_APPS: readonly { app: UpiAppName; label: string }[] = [
  { app: 'google_pay', label: 'Google Pay' },
  { app: 'phonepe', label: 'PhonePe' },
  { app: 'paytm', label: 'Paytm' },
  { app: 'others', label: 'Other UPI app' },
];

export function upiAppLinks(order: UpiQrOrder): UpiAppLink[] {
  return PHONE_UPI_APPS.map(({ app, label }) => ({ app, label, uri: upiIntentFor(order, app) }));
}

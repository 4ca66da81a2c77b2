import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { VPA_PATTERN } from '../../orders/upi.js';
import { upiQrIntent, upiQrLabel, upiQrSvg } from './upi-qr.js';

const ORDER = {
  merchantId: 'MID123',
  merchantName: 'Chai & Co',
  orderId: 'OD1234567890123456',
  referenceId: 'ref 7',
  amountMinor: 150_050,
  currency: 'INR',
};

describe('UPI QR code', () => {
  it('encodes the NPCI upi://pay intent: payee VPA, name, amount, currency, transaction reference and note', () => {
    const intent = upiQrIntent(ORDER);
    expect(intent.startsWith('upi://pay?')).toBe(true);
    const params = new URL(intent).searchParams;
    expect([...params.keys()]).toEqual(['pa', 'pn', 'am', 'cu', 'tr', 'tn']);
    expect(params.get('pa')).toBe('pg.MID123@paygate');
    expect(params.get('pa')).toMatch(VPA_PATTERN);
    expect(params.get('pn')).toBe('Chai & Co');
    expect(params.get('am')).toBe('1500.50');
    expect(params.get('cu')).toBe('INR');
    expect(params.get('tr')).toBe('OD1234567890123456');
    expect(params.get('tn')).toBe('Payment for order ref 7');
    // the name's "&" is encoded, so it cannot start a parameter of its own
    expect(intent).toContain('pn=Chai%20%26%20Co');
  });

  it('renders the intent as an inline SVG QR code with no script, style or external reference', async () => {
    const intent = upiQrIntent(ORDER);
    const svg = await upiQrSvg(intent);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toMatch(/viewBox="0 0 (\d+) \1"/);
    expect(svg).not.toMatch(/<script|style=|href=|<image/i);
    // the symbol of the intent (error correction M) plus the 2-module quiet zone on each side; the browser test
    // (test/e2e/checkout-methods.test.ts) decodes the rendered code back to the intent
    const symbol = QRCode.create(intent, { errorCorrectionLevel: 'M' });
    expect(Number(/viewBox="0 0 (\d+)/.exec(svg)![1])).toBe(symbol.modules.size + 4);
  });

  it('names the QR code for screen readers with the amount and payee', () => {
    expect(upiQrLabel(ORDER)).toBe('UPI QR code: pay INR 1500.50 to Chai & Co');
  });
});

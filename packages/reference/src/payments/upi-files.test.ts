import { describe, expect, it } from 'vitest';
import { checkUpload, MAX_UPLOAD_BYTES, sniffContentType } from '../core/files.js';
import { normalizeOrderInput } from '../orders/input.js';
import { buildUpiIntentUri, isValidVpa, UPI_APP_SCHEME } from '../orders/upi.js';

describe('UPI intent links', () => {
  const base = {
    payeeVpa: 'pg.1234567890@paygate',
    payeeName: 'Acme & Sons',
    amountMinor: 150000,
    currency: 'INR',
    orderId: 'OD1234567890123456',
    note: 'Order ref 1/2',
  };
  it('builds a percent-encoded upi://pay URI', () => {
    const uri = buildUpiIntentUri({ ...base, app: 'others' });
    expect(uri).toBe(
      'upi://pay?pa=pg.1234567890@paygate&pn=Acme%20%26%20Sons&am=1500.00&cu=INR&tr=OD1234567890123456&tn=Order%20ref%201%2F2',
    );
    const parsed = new URL(uri);
    expect(parsed.searchParams.get('pn')).toBe('Acme & Sons');
    expect(parsed.searchParams.get('am')).toBe('1500.00');
  });
  it('uses the app-specific scheme', () => {
    expect(buildUpiIntentUri({ ...base, app: 'phonepe' })).toMatch(/^phonepe:\/\/pay\?/);
    expect(buildUpiIntentUri({ ...base, app: 'google_pay' })).toMatch(/^tez:\/\/upi\/pay\?/);
    expect(buildUpiIntentUri({ ...base, app: 'paytm' })).toMatch(/^paytmmp:\/\/pay\?/);
    expect(buildUpiIntentUri({ ...base, app: 'cred' })).toMatch(/^credpay:\/\/upi\/pay\?/);
    for (const app of ['bhim', 'amazon_pay', 'whatsapp', 'others'] as const) expect(UPI_APP_SCHEME[app]).toBe('upi://pay');
  });
  it('validates VPAs with the seed pattern', () => {
    expect(isValidVpa('asha.rao-1@okhdfcbank')).toBe(true);
    expect(isValidVpa('success@paygate')).toBe(true);
    expect(isValidVpa('no-at-sign')).toBe(false);
    expect(isValidVpa('a@b@c')).toBe(false);
    expect(isValidVpa('sp ace@bank')).toBe(false);
  });
});

describe('order input rules', () => {
  const input = {
    amount: '1500.00',
    currency: 'INR',
    reference_id: 'r1',
    buyer: { name: 'A', email: 'a@example.com', phone: '+919812345678' },
    product: { name: 'P', description: 'A product' },
  };
  it('defaults to hosted_payment and normalises NETBANKING', () => {
    const n = normalizeOrderInput({ ...input, mop_type: 'NETBANKING' });
    expect(n.collectionMode).toBe('hosted_payment');
    expect(n.mopType).toBe('NET_BANKING');
    expect(n.amountMinor).toBe(150000);
    expect(n.upiAppName).toBe('others');
  });
  // Only the business rules the schema cannot state; the schema's own rules are enforced (and tested) at the edge.
  it('enforces the amount range, supported currencies and INR-only UPI with field details', () => {
    const err = (over: object) => {
      try {
        normalizeOrderInput({ ...input, ...over } as typeof input);
      } catch (e) {
        return (e as { details: Record<string, string> }).details;
      }
      return {};
    };
    expect(err({ amount: '0.99' })).toHaveProperty('amount');
    expect(err({ amount: '10000000.01' })).toHaveProperty('amount');
    expect(err({ amount: '10000000.00' })).toEqual({});
    expect(err({ collection_mode: 's2s', upi_flow_type: 'intent', currency: 'USD' })).toEqual({ currency: 'UPI payments are INR only' });
    expect(err({ currency: 'XYZ' })).toEqual({ currency: 'XYZ is not supported' });
    expect(normalizeOrderInput({ ...input, collection_mode: 's2s', upi_flow_type: 'collection', vpa: 'asha@okbank' })).toMatchObject({
      mopType: 'UPI',
      upiFlowType: 'collection',
      vpa: 'asha@okbank',
    });
  });
});

describe('uploads', () => {
  const pdf = new TextEncoder().encode('%PDF-1.7\n...');
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
  const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]);
  it('sniffs magic bytes', () => {
    expect(sniffContentType(pdf)).toBe('application/pdf');
    expect(sniffContentType(png)).toBe('image/png');
    expect(sniffContentType(jpeg)).toBe('image/jpeg');
    expect(sniffContentType(new TextEncoder().encode('<html>'))).toBeUndefined();
  });
  it('413 for big files, 415 for wrong or mismatched types', () => {
    expect(checkUpload(pdf, 'application/pdf')).toBe('application/pdf');
    expect(checkUpload(png, 'application/octet-stream')).toBe('image/png');
    const big = new Uint8Array(MAX_UPLOAD_BYTES + 1);
    big.set(pdf);
    expect(() => checkUpload(big, 'application/pdf')).toThrow(expect.objectContaining({ code: 'ERR_REQUEST_413', status: 413 }));
    expect(() => checkUpload(pdf, 'text/html')).toThrow(expect.objectContaining({ code: 'ERR_REQUEST_415', status: 415 }));
    expect(() => checkUpload(pdf, 'image/png')).toThrow(expect.objectContaining({ code: 'ERR_REQUEST_415' }));
    expect(() => checkUpload(new TextEncoder().encode('hello'), undefined)).toThrow(expect.objectContaining({ code: 'ERR_REQUEST_415' }));
  });
});

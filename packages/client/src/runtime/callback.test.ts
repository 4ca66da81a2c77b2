import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeCallbackHash, verifyCallback } from './callback.js';

const KEY = 'ek_test_3f9c2b7a1d4e';
const FIELDS = {
  order_id: 'OD0000000000000001',
  payment_id: 'PR0000000000000001',
  status: 'payment_successful',
  message: 'Payment successful',
  mop_type: 'CARD',
  bank_ref_num: '123456789012',
  payment_completed_at: '2026-11-21 10:15:30+00:00',
};
// Independent known answer: HMAC over the literal joined string, computed here with node:crypto.
const LITERAL = 'OD0000000000000001|PR0000000000000001|payment_successful|CARD|123456789012|2026-11-21 10:15:30+00:00';
const EXPECTED = createHmac('sha256', KEY).update(LITERAL).digest('hex');

describe('computeCallbackHash', () => {
  it('matches HMAC-SHA256 over the literal "|"-joined string, lower-case hex', () => {
    expect(EXPECTED).toMatch(/^[0-9a-f]{64}$/);
    expect(computeCallbackHash(FIELDS, KEY)).toBe(EXPECTED);
  });

  it('ignores message and extra fields, and accepts URLSearchParams', () => {
    const withExtra = { ...FIELDS, message: 'other', extra: 'x' };
    expect(computeCallbackHash(withExtra, KEY)).toBe(EXPECTED);
    expect(computeCallbackHash(new URLSearchParams(FIELDS), KEY)).toBe(EXPECTED);
  });

  it('treats missing (or null) fields as empty strings', () => {
    const expected = createHmac('sha256', KEY).update('OD1||payment_failed|||').digest('hex');
    expect(computeCallbackHash({ order_id: 'OD1', status: 'payment_failed', bank_ref_num: null }, KEY)).toBe(expected);
    expect(computeCallbackHash({}, KEY)).toBe(createHmac('sha256', KEY).update('|||||').digest('hex'));
  });

  it('uses UTF-8 for key and text', () => {
    const expected = createHmac('sha256', Buffer.from('ключ', 'utf8')).update(Buffer.from('é|||||', 'utf8')).digest('hex');
    expect(computeCallbackHash({ order_id: 'é' }, 'ключ')).toBe(expected);
  });

  it('accepts interface-typed field objects (as the reference gateway passes)', () => {
    interface CallbackHashFields {
      order_id?: string | null;
      payment_id?: string | null;
      status?: string | null;
      mop_type?: string | null;
      bank_ref_num?: string | null;
      payment_completed_at?: string | null;
    }
    const fields: CallbackHashFields = FIELDS;
    expect(computeCallbackHash(fields, KEY)).toBe(EXPECTED);
  });

  it('rejects an empty key and non-string values', () => {
    expect(() => computeCallbackHash(FIELDS, '')).toThrow(TypeError);
    expect(() => computeCallbackHash({ ...FIELDS, status: ['a', 'b'] }, KEY)).toThrow(TypeError);
  });
});

describe('verifyCallback', () => {
  const signed = { ...FIELDS, hash: EXPECTED };

  it('accepts an authentic callback (object or URLSearchParams)', () => {
    expect(verifyCallback(signed, KEY)).toBe(true);
    expect(verifyCallback(new URLSearchParams(signed), KEY)).toBe(true);
    expect(verifyCallback({ ...signed, message: 'changed: not covered' }, KEY)).toBe(true);
  });

  it.each(['order_id', 'payment_id', 'status', 'mop_type', 'bank_ref_num', 'payment_completed_at'] as const)(
    'rejects a tampered %s',
    (field) => {
      expect(verifyCallback({ ...signed, [field]: `${signed[field]}0` }, KEY)).toBe(false);
    },
  );

  it('rejects a removed hashed field', () => {
    const { bank_ref_num: _omit, ...rest } = signed;
    expect(verifyCallback(rest, KEY)).toBe(false);
  });

  it('rejects the wrong key', () => {
    expect(verifyCallback(signed, `${KEY}x`)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['upper-case', EXPECTED.toUpperCase()],
    ['truncated', EXPECTED.slice(0, 63)],
    ['too long', `${EXPECTED}00`],
    ['non-hex', `${EXPECTED.slice(0, 63)}g`],
    ['array', [EXPECTED]],
  ])('rejects a %s hash', (_name, hash) => {
    expect(verifyCallback({ ...FIELDS, hash }, KEY)).toBe(false);
  });

  it('rejects repeated fields in URLSearchParams (ambiguous)', () => {
    const params = new URLSearchParams(signed);
    params.append('status', 'payment_failed');
    expect(verifyCallback(params, KEY)).toBe(false);
    const twoHashes = new URLSearchParams(signed);
    twoHashes.append('hash', EXPECTED);
    expect(verifyCallback(twoHashes, KEY)).toBe(false);
  });

  it('throws on a missing key (configuration error)', () => {
    expect(() => verifyCallback(signed, '')).toThrow(TypeError);
    expect(() => verifyCallback(signed, [])).toThrow(TypeError);
    expect(() => verifyCallback(signed, [KEY, ''])).toThrow(TypeError);
  });

  it.each([
    ['current key first', [`${KEY}-new`, KEY], true],
    ['previous key first', [KEY, `${KEY}-new`], true],
    ['neither', [`${KEY}-new`, `${KEY}-other`], false],
  ] as const)('takes several keys during a rotation overlap: %s', (_name, keys, ok) => {
    expect(verifyCallback(signed, keys)).toBe(ok);
  });
});

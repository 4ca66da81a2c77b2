import { describe, expect, expectTypeOf, it } from 'vitest';
import { decidePaymentAttempt, UPI_FAILED_MESSAGE, VPA_ERROR, type CheckoutForm, type MopDetail, type PaymentAttempt } from './attempt.js';
import type { CardSummary } from './cards.js';
import { NETBANKING_FAILED_MESSAGE } from './banks.js';
import { CARD_DECLINED_MESSAGE, INSUFFICIENT_FUNDS_MESSAGE } from './cards.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const card = (over: Partial<CheckoutForm> = {}): CheckoutForm => ({
  outcome: 'success',
  card_number: '4242 4242 4242 4242',
  card_expiry: '12/30',
  card_cvc: '123',
  card_name: 'Priya Sharma',
  ...over,
});

describe('decidePaymentAttempt', () => {
  it.each([
    [
      'UPI',
      { outcome: 'success', vpa: 'priya@okhdfcbank' },
      { kind: 'finish', mopType: 'UPI', mopDetail: { upi_id: 'priya@okhdfcbank' }, success: true },
    ],
    [
      'UPI',
      { outcome: 'success', vpa: 'FAILURE@paygate' },
      { kind: 'finish', mopType: 'UPI', mopDetail: { upi_id: 'FAILURE@paygate' }, success: false, failureMessage: UPI_FAILED_MESSAGE },
    ],
    ['UPI', { outcome: 'success' }, { kind: 'finish', mopType: 'UPI', mopDetail: {}, success: true }],
    ['UPI', { outcome: 'success', vpa: 'priya at bank' }, { kind: 'invalid', mopType: 'UPI', errors: { vpa: VPA_ERROR } }],
    ['UPI', { outcome: 'success', vpa: 'priya@ok_bank' }, { kind: 'invalid', mopType: 'UPI', errors: { vpa: VPA_ERROR } }],
    ['QR', { outcome: 'success' }, { kind: 'finish', mopType: 'QR', mopDetail: {}, success: true }],
    [
      'CREDIT_CARD',
      card(),
      { kind: 'finish', mopType: 'CREDIT_CARD', mopDetail: { card_last4: '4242', card_network: 'visa' }, success: true },
    ],
    [
      'DEBIT_CARD',
      card({ card_number: '4000000000000002' }),
      {
        kind: 'finish',
        mopType: 'DEBIT_CARD',
        mopDetail: { card_last4: '0002', card_network: 'visa' },
        success: false,
        failureMessage: CARD_DECLINED_MESSAGE,
      },
    ],
    [
      'CREDIT_CARD',
      card({ card_number: '4000000000009995' }),
      {
        kind: 'finish',
        mopType: 'CREDIT_CARD',
        mopDetail: { card_last4: '9995', card_network: 'visa' },
        success: false,
        failureMessage: INSUFFICIENT_FUNDS_MESSAGE,
      },
    ],
    [
      'CREDIT_CARD',
      card({ card_number: '4000000000003220' }),
      { kind: 'three_ds', mopType: 'CREDIT_CARD', card: { card_last4: '3220', card_network: 'visa' } },
    ],
    [
      'CREDIT_CARD',
      card({ card_number: '378282246310005', card_cvc: '1234' }),
      { kind: 'finish', mopType: 'CREDIT_CARD', mopDetail: { card_last4: '0005', card_network: 'amex' }, success: true },
    ],
    [
      'NET_BANKING',
      { outcome: 'success', bank_code: 'SBIN' },
      {
        kind: 'finish',
        mopType: 'NET_BANKING',
        mopDetail: { bank_code: 'SBIN', bank_name: 'State Bank of India', bank: 'State Bank of India' },
        success: true,
      },
    ],
    [
      'NET_BANKING',
      { outcome: 'success', bank_code: 'PGFL' },
      {
        kind: 'finish',
        mopType: 'NET_BANKING',
        mopDetail: { bank_code: 'PGFL', bank_name: 'Paygate Test Bank (always fails)', bank: 'Paygate Test Bank (always fails)' },
        success: false,
        failureMessage: NETBANKING_FAILED_MESSAGE,
      },
    ],
  ] as const)('%s %j', (mop, form, expected) => {
    expect(decidePaymentAttempt(mop, form, NOW)).toEqual(expected);
  });

  it.each([
    [{ card_number: '' }, ['card_number']],
    [{ card_number: '4242 4242 4242 4241' }, ['card_number']],
    [{ card_number: '4111 1111 1111 1111' }, ['card_number']],
    [{ card_expiry: '10/26' }, ['card_expiry']],
    [{ card_expiry: '11/26' }, []],
    [{ card_expiry: '2030-12' }, ['card_expiry']],
    [{ card_cvc: '12' }, ['card_cvc']],
    [{ card_cvc: '1234' }, ['card_cvc']],
    [{ card_name: '' }, ['card_name']],
    [{ card_number: '1', card_expiry: '', card_cvc: '', card_name: '' }, ['card_number', 'card_expiry', 'card_cvc', 'card_name']],
  ] as const)('card form %j: errors on %j (all at once)', (over, fields) => {
    const attempt = decidePaymentAttempt('CREDIT_CARD', card(over), NOW);
    if (fields.length === 0) {
      expect(attempt.kind).toBe('finish');
      return;
    }
    expect(attempt.kind).toBe('invalid');
    expect(attempt.kind === 'invalid' && Object.keys(attempt.errors).sort()).toEqual([...fields].sort());
  });

  it('an error message never repeats the card number', () => {
    const attempt = decidePaymentAttempt('CREDIT_CARD', card({ card_number: '4111 1111 1111 1111', card_cvc: '9' }), NOW);
    expect(JSON.stringify(attempt)).not.toMatch(/4111|1111/);
  });

  it('net banking without a known bank asks to choose one', () => {
    expect(decidePaymentAttempt('NET_BANKING', { outcome: 'success', bank_code: 'NOPE' }, NOW)).toEqual({
      kind: 'invalid',
      mopType: 'NET_BANKING',
      errors: { bank_code: 'Choose your bank' },
    });
  });
});

describe('types flow from the spec', () => {
  it('mop_detail has the per-method fields of the generated Payment schema, every one optional', () => {
    expectTypeOf<MopDetail>().toEqualTypeOf<{
      upi_id?: string;
      card_last4?: string;
      card_network?: string;
      bank?: string;
      bank_code?: string;
      bank_name?: string;
    }>();
    expectTypeOf<CardSummary>().toExtend<MopDetail>();
  });

  it('the form is the generated CheckoutFormSubmission: a 3-D Secure answer is approved or failed', () => {
    expectTypeOf<CheckoutForm['three_ds_result']>().toEqualTypeOf<'approved' | 'failed' | undefined>();
    expectTypeOf<Extract<PaymentAttempt, { kind: 'three_ds' }>['card']>().toEqualTypeOf<CardSummary>();
  });
});

import { describe, expect, it } from 'vitest';
import { settlementCurrencyFor, SUPPORTED_CURRENCIES } from '../core/currency.js';
import { forexRateCents, forexRateNumber, settlementAmountCents, sumBreakdowns, transactionBreakdown } from './arithmetic.js';

describe('settlement math', () => {
  it('fee 2 %, tax 18 % of fee, net', () => {
    expect(transactionBreakdown(150000, 0)).toEqual({ amount: 150000, fee: 3000, tax: 540, refunds: 0, net: 146460 });
    // 2 % of 10.25 = 0.205 -> 0.21; 18 % of 0.21 = 0.0378 -> 0.04
    expect(transactionBreakdown(1025, 0)).toEqual({ amount: 1025, fee: 21, tax: 4, refunds: 0, net: 1000 });
    expect(transactionBreakdown(150000, 50000).net).toBe(96460);
  });
  it('forex table in cents (brief values) and cross rates', () => {
    expect(forexRateCents('INR', 'INR')).toBe(100);
    expect(forexRateCents('USD', 'INR')).toBe(8350);
    expect(forexRateCents('EUR', 'INR')).toBe(9020);
    expect(forexRateCents('GBP', 'INR')).toBe(10550);
    expect(forexRateCents('USD', 'USD')).toBe(100);
    expect(forexRateCents('INR', 'USD')).toBe(1);
    expect(forexRateCents('EUR', 'USD')).toBe(108); // 9020/8350 = 1.0802
    for (const a of SUPPORTED_CURRENCIES) for (const b of SUPPORTED_CURRENCIES) expect(Number.isSafeInteger(forexRateCents(a, b))).toBe(true);
    expect(forexRateNumber(8350)).toBe(83.5);
    expect(forexRateNumber(100)).toBe(1);
  });
  it('settlement_amount_cents = round(net * rate / 100) half up', () => {
    expect(settlementAmountCents(146460, 100)).toBe(146460);
    expect(settlementAmountCents(146460, 8350)).toBe(12229410);
    expect(settlementAmountCents(150, 1)).toBe(2); // 1.5 -> 2
    expect(settlementAmountCents(149, 1)).toBe(1);
    expect(settlementAmountCents(-150, 1)).toBe(-2);
  });
  it('sums breakdowns', () => {
    const t = sumBreakdowns([transactionBreakdown(150000, 0), transactionBreakdown(1025, 25)]);
    expect(t).toEqual({ gross: 151025, fee: 3021, tax: 544, refunds: 25, net: 147435 });
  });
  it('derives the settlement currency from bank_country', () => {
    expect(settlementCurrencyFor('IN')).toBe('INR');
    expect(settlementCurrencyFor('us')).toBe('USD');
    expect(settlementCurrencyFor('GB')).toBe('GBP');
    expect(settlementCurrencyFor('DE')).toBe('EUR');
    expect(settlementCurrencyFor('FR')).toBe('EUR');
    expect(settlementCurrencyFor('AE')).toBe('AED');
    expect(settlementCurrencyFor('SG')).toBe('SGD');
    expect(settlementCurrencyFor('BR')).toBe('USD');
  });
});

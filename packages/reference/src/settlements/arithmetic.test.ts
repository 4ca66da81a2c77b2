import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { settlementCurrencyFor, SUPPORTED_CURRENCIES } from '../core/currency.js';
import {
  convertMinor,
  forexRate,
  forexRateCents,
  forexRateNumber,
  refundAdjustment,
  reserveRelease,
  sumLines,
  transactionBreakdown,
} from './arithmetic.js';

describe('settlement arithmetic', () => {
  it('fee 2 %, tax 18 % of fee, net', () => {
    expect(transactionBreakdown(150000, 0)).toEqual({ amount: 150000, fee: 3000, tax: 540, refunds: 0, net: 146460 });
    // 2 % of 10.25 = 0.205 -> 0.21; 18 % of 0.21 = 0.0378 -> 0.04
    expect(transactionBreakdown(1025, 0)).toEqual({ amount: 1025, fee: 21, tax: 4, refunds: 0, net: 1000 });
    expect(transactionBreakdown(150000, 50000).net).toBe(96460);
  });

  it('keeps every cross rate exact, as a fraction of the table entries', () => {
    expect(forexRate('INR', 'INR')).toEqual({ num: 1n, den: 1n });
    expect(forexRate('USD', 'INR')).toEqual({ num: 167n, den: 2n }); // 83.50
    expect(forexRate('INR', 'USD')).toEqual({ num: 2n, den: 167n }); // 0.0119760...
    expect(forexRate('INR', 'GBP')).toEqual({ num: 2n, den: 211n }); // 0.0094786...
    expect(forexRate('EUR', 'USD')).toEqual({ num: 902n, den: 835n }); // 1.0802...
  });

  it('shows forex_rate_cents (the seed display field) and forex_rate to 6 significant digits', () => {
    expect(forexRateCents('INR', 'INR')).toBe(100);
    expect(forexRateCents('USD', 'INR')).toBe(8350);
    expect(forexRateCents('INR', 'USD')).toBe(1);
    expect(forexRateCents('EUR', 'USD')).toBe(108);
    for (const a of SUPPORTED_CURRENCIES)
      for (const b of SUPPORTED_CURRENCIES) expect(Number.isSafeInteger(forexRateCents(a, b))).toBe(true);
    expect(forexRateNumber(forexRate('USD', 'INR'))).toBe(83.5);
    expect(forexRateNumber(forexRate('INR', 'INR'))).toBe(1);
    expect(forexRateNumber(forexRate('INR', 'USD'))).toBe(0.011976);
    expect(forexRateNumber(forexRate('INR', 'GBP'))).toBe(0.00947867);
    expect(forexRateNumber(forexRate('EUR', 'USD'))).toBe(1.08024);
  });

  it('pays 1000.00 INR of net to a US merchant at the exact rate (the cents-rounded rate paid 976 cents)', () => {
    const net = transactionBreakdown(100000, 0).net; // 976.40 INR
    expect(convertMinor(net, forexRate('INR', 'USD'))).toBe(1169); // 97640 * 2 / 167 = 1169.34 -> 11.69 USD
  });

  it('every payout is within half a minor unit of the exact value, for every currency pair and amount', () => {
    const currency = fc.constantFrom(...SUPPORTED_CURRENCIES);
    fc.assert(
      fc.property(currency, currency, fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }), (from, to, minor) => {
        const rate = forexRate(from, to);
        const payout = BigInt(convertMinor(minor, rate));
        // |payout - minor * num / den| <= 1/2  <=>  |2 * payout * den - 2 * minor * num| <= den (exact integers)
        const gap = 2n * payout * rate.den - 2n * BigInt(minor) * rate.num;
        expect(gap <= rate.den && gap >= -rate.den).toBe(true);
      }),
      { numRuns: 5000, seed: 20261123 },
    );
  });

  it('rounds once, half away from zero', () => {
    const half = { num: 1n, den: 2n };
    expect(convertMinor(3, half)).toBe(2); // 1.5 -> 2
    expect(convertMinor(-3, half)).toBe(-2); // -1.5 -> -2
    expect(convertMinor(1, { num: 1n, den: 3n })).toBe(0);
  });

  it('sums lines: captures make gross, fee and tax; refunds, reserves and releases move the net', () => {
    const t = sumLines([
      { type: 'capture', b: transactionBreakdown(150000, 50000) },
      { type: 'capture', b: transactionBreakdown(1025, 25) },
      { type: 'refund', b: refundAdjustment(1000) },
      { type: 'refund_reserve', b: refundAdjustment(2000) },
      { type: 'reserve_release', b: reserveRelease(700) },
    ]);
    expect(t).toEqual({
      gross: 151025,
      fee: 3021,
      tax: 544,
      refunds: 51025,
      reserved: 2000,
      released: 700,
      net: 96460 + 975 - 1000 - 2000 + 700,
    });
  });

  // docs/decisions.md, "Settlement arithmetic": the worked cross-currency example, number for number.
  it('reproduces the worked example of docs/decisions.md', () => {
    const a = transactionBreakdown(150000, 50000); // 1500.00 INR captured, 500.00 refunded (processed) before the run
    const b = transactionBreakdown(200000, 0); // 2000.00 INR captured
    const reserve = refundAdjustment(30000); // 300.00 INR refund of b still INITIATED: held back
    expect(a).toEqual({ amount: 150000, fee: 3000, tax: 540, refunds: 50000, net: 96460 });
    expect(b).toEqual({ amount: 200000, fee: 4000, tax: 720, refunds: 0, net: 195280 });
    const totals = sumLines([
      { type: 'capture', b: a },
      { type: 'capture', b },
      { type: 'refund_reserve', b: reserve },
    ]);
    expect(totals.net).toBe(261740); // 2617.40 INR
    const rate = forexRate('INR', 'GBP');
    expect(rate).toEqual({ num: 2n, den: 211n });
    expect(convertMinor(totals.net, rate)).toBe(2481); // 523480 / 211 = 2480.9478... -> 24.81 GBP
    expect(forexRateCents('INR', 'GBP')).toBe(1);
    expect(forexRateNumber(rate)).toBe(0.00947867);
    // the refund fails: the next run pays the reserve back
    expect(convertMinor(sumLines([{ type: 'reserve_release', b: reserveRelease(30000) }]).net, rate)).toBe(284); // 284.36 -> 2.84 GBP
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

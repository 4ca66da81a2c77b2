import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountToNumber, divRoundHalfUp, formatAmount, parseAmount, parseAmountField, percentOf } from './money.js';
import { DomainError } from './errors.js';

describe('money', () => {
  it('parses decimal strings into minor units without floats', () => {
    expect(parseAmount('1500.00')).toBe(150000);
    expect(parseAmount('0.01')).toBe(1);
    expect(parseAmount('10000000.00')).toBe(1_000_000_000);
    expect(parseAmount('0.29')).toBe(29); // 0.29 * 100 = 28.999999999999996 in floats
    expect(parseAmount('1.15')).toBe(115);
  });
  it('rejects malformed amounts', () => {
    for (const bad of ['1500', '1500.0', '1500.000', '-1.00', '1e3.00', ' 1.00', '1,00', '12345678901.00']) {
      expect(() => parseAmount(bad), bad).toThrow(RangeError);
    }
    expect(() => parseAmountField('amount', '1.0')).toThrow(DomainError);
  });
  it('formats minor units as strings and JSON numbers', () => {
    expect(formatAmount(150000)).toBe('1500.00');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(0)).toBe('0.00');
    expect(formatAmount(-5)).toBe('-0.05');
    expect(amountToNumber(150000)).toBe(1500);
    expect(amountToNumber(150050)).toBe(1500.5);
    expect(amountToNumber(29)).toBe(0.29);
  });
  it('round-trips every amount string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 99_999_999_999n }), (minor) => {
        const text = formatAmount(Number(minor));
        expect(parseAmount(text)).toBe(Number(minor));
      }),
    );
  });
  it('rounds half up (away from zero) in integer math', () => {
    expect(divRoundHalfUp(5n, 10n)).toBe(1n);
    expect(divRoundHalfUp(4n, 10n)).toBe(0n);
    expect(divRoundHalfUp(15n, 10n)).toBe(2n);
    expect(divRoundHalfUp(-15n, 10n)).toBe(-2n);
    expect(percentOf(150000, 200)).toBe(3000); // 2 % of 1500.00
    expect(percentOf(125, 200)).toBe(3); // 2.5 -> 3
    expect(percentOf(124, 200)).toBe(2); // 2.48 -> 2
    expect(percentOf(3000, 1800)).toBe(540); // 18 % of 30.00
    expect(percentOf(25, 1800)).toBe(5); // 4.5 -> 5
  });
});

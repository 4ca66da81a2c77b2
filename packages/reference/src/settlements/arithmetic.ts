import type { Currency } from '../core/currency.js';
import { divRoundHalfUp, percentOf } from '../core/money.js';

/** Merchant service fee: 2.00 % of the transaction amount. */
export const FEE_BASIS_POINTS = 200;
/** Tax on the fee: 18 %. */
export const TAX_BASIS_POINTS = 1800;

/**
 * Value of one unit of each currency in INR cents (the fixed sandbox table). Every cross rate is the exact ratio of
 * two entries, kept as a fraction: nothing is rounded until the payout itself.
 */
const INR_CENTS_PER_UNIT: Record<Currency, bigint> = {
  INR: 100n,
  USD: 8350n,
  EUR: 9020n,
  GBP: 10550n,
  AED: 2273n,
  SGD: 6190n,
  AUD: 5480n,
  CAD: 6080n,
  CHF: 9450n,
  HKD: 1070n,
};

/** An exact exchange rate: `num / den` units of the target currency per unit of the source (both in lowest terms). */
export interface ForexRate {
  num: bigint;
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** The exact rate from `from` to `to` (INR->USD = 100/8350 = 2/167; USD->INR = 167/2). */
export function forexRate(from: Currency, to: Currency): ForexRate {
  const num = INR_CENTS_PER_UNIT[from];
  const den = INR_CENTS_PER_UNIT[to];
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

/**
 * The seed's display field `forex_rate_cents`: the rate times 100, rounded half up (INR->USD 1, USD->INR 8350). Display
 * only: no amount is ever computed from it.
 */
export function forexRateCents(from: Currency, to: Currency): number {
  const { num, den } = forexRate(from, to);
  return Number(divRoundHalfUp(num * 100n, den));
}

/** Significant digits of the `forex_rate` numbers shown in settlement transactions and PAYMENT_SETTLED. */
export const FOREX_RATE_SIGNIFICANT_DIGITS = 6;

/**
 * The rate as a JSON number with 6 significant digits (INR->USD 0.0119760, USD->INR 83.5), computed from the fraction
 * with integers and converted once, from its decimal text. Display only.
 */
export function forexRateNumber(rate: ForexRate): number {
  if (rate.num === 0n) return 0;
  // scale so that the integer quotient has exactly FOREX_RATE_SIGNIFICANT_DIGITS digits
  let exponent = 0; // value = digits * 10^-exponent
  let digits = divRoundHalfUp(rate.num, rate.den);
  const limit = 10n ** BigInt(FOREX_RATE_SIGNIFICANT_DIGITS);
  while (divRoundHalfUp(rate.num * 10n ** BigInt(exponent + 1), rate.den) < limit) {
    exponent += 1;
    digits = divRoundHalfUp(rate.num * 10n ** BigInt(exponent), rate.den);
  }
  const text = digits.toString().padStart(exponent + 1, '0');
  return Number(exponent === 0 ? text : `${text.slice(0, -exponent)}.${text.slice(-exponent)}`);
}

/**
 * Convert an amount in minor units of the source currency into minor units of the target currency with the exact rate:
 * `minor * num / den`, rounded ONCE, half away from zero (all supported currencies have two decimals). The result is
 * always within half a minor unit of the exact value.
 */
export function convertMinor(minor: number, rate: ForexRate): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer, got ${minor}`);
  const converted = divRoundHalfUp(BigInt(minor) * rate.num, rate.den);
  if (converted > BigInt(Number.MAX_SAFE_INTEGER) || converted < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError('converted amount is too large');
  return Number(converted);
}

export interface TransactionBreakdown {
  amount: number;
  fee: number;
  tax: number;
  refunds: number;
  net: number;
}

/** Fee 2 % (half up), tax 18 % of fee (half up), net = amount - fee - tax - processed refunds. Minor units. */
export function transactionBreakdown(amountMinor: number, refundsMinor: number): TransactionBreakdown {
  const fee = percentOf(amountMinor, FEE_BASIS_POINTS);
  const tax = percentOf(fee, TAX_BASIS_POINTS);
  return { amount: amountMinor, fee, tax, refunds: refundsMinor, net: amountMinor - fee - tax - refundsMinor };
}

/**
 * A `refund` line (refunds processed after their payment was settled) or a `refund_reserve` line (refunds still
 * INITIATED, held back): transaction_amount is the refunded amount; no fee or tax is charged or returned on it.
 */
export function refundAdjustment(refundsMinor: number): TransactionBreakdown {
  return { amount: refundsMinor, fee: 0, tax: 0, refunds: refundsMinor, net: -refundsMinor };
}

/** A `reserve_release` line: reserves of refunds that failed, paid back. */
export function reserveRelease(releasedMinor: number): TransactionBreakdown {
  return { amount: releasedMinor, fee: 0, tax: 0, refunds: 0, net: releasedMinor };
}

export interface SettlementTotals {
  gross: number;
  fee: number;
  tax: number;
  /** processed refunds deducted (netted into captures, and `refund` lines) */
  refunds: number;
  /** INITIATED refunds held back (`refund_reserve` lines) */
  reserved: number;
  /** failed refunds' reserves paid back (`reserve_release` lines) */
  released: number;
  /** what the merchant is owed in the transaction currency: the sum of every line's net */
  net: number;
}

/** Totals of a settlement's lines; gross counts captures only. */
export function sumLines(
  lines: readonly { type: 'capture' | 'refund' | 'refund_reserve' | 'reserve_release'; b: TransactionBreakdown }[],
): SettlementTotals {
  const t: SettlementTotals = { gross: 0, fee: 0, tax: 0, refunds: 0, reserved: 0, released: 0, net: 0 };
  for (const { type, b } of lines) {
    t.net += b.net;
    if (type === 'capture') {
      t.gross += b.amount;
      t.fee += b.fee;
      t.tax += b.tax;
      t.refunds += b.refunds;
    } else if (type === 'refund') t.refunds += b.refunds;
    else if (type === 'refund_reserve') t.reserved += b.amount;
    else t.released += b.amount;
  }
  return t;
}

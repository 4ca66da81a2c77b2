import type { Currency } from '../core/currency.js';
import { amountToNumber, divRoundHalfUp, percentOf } from '../core/money.js';

/** Merchant service fee: 2.00 % of the transaction amount. */
export const FEE_BASIS_POINTS = 200;
/** Tax on the fee: 18 %. */
export const TAX_BASIS_POINTS = 1800;

/** Value of one unit of each currency in INR cents (fixed sandbox table). */
const INR_CENTS_PER_UNIT: Record<Currency, number> = {
  INR: 100,
  USD: 8350,
  EUR: 9020,
  GBP: 10550,
  AED: 2273,
  SGD: 6190,
  AUD: 5480,
  CAD: 6080,
  CHF: 9450,
  HKD: 1070,
};

/**
 * Rate from `from` to `to` in cents of `to` per unit of `from` (INR->INR 100, USD->INR 8350, INR->USD 1, ...).
 * Cross rates go through INR with round half up.
 */
export function forexRateCents(from: Currency, to: Currency): number {
  if (from === to) return 100;
  return Number(divRoundHalfUp(BigInt(INR_CENTS_PER_UNIT[from]) * 100n, BigInt(INR_CENTS_PER_UNIT[to])));
}

/** forex_rate as a JSON number (8350 -> 83.5). */
export function forexRateNumber(rateCents: number): number {
  return amountToNumber(rateCents);
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

/** Amount in settlement-currency cents: round(net * rate / 100), half away from zero. */
export function settlementAmountCents(netMinor: number, rateCents: number): number {
  return Number(divRoundHalfUp(BigInt(netMinor) * BigInt(rateCents), 100n));
}

/**
 * A `refund` line: refunds processed after their payment was already settled, deducted from this settlement.
 * transaction_amount is the refunded amount; no fee or tax is charged or returned on it.
 */
export function refundAdjustment(refundsMinor: number): TransactionBreakdown {
  return { amount: refundsMinor, fee: 0, tax: 0, refunds: refundsMinor, net: -refundsMinor };
}

export interface SettlementTotals {
  gross: number;
  fee: number;
  tax: number;
  refunds: number;
  net: number;
}

/** Totals of a settlement: gross counts captures only; refund lines add to refunds and reduce net. */
export function sumBreakdowns(captures: readonly TransactionBreakdown[], refundLines: readonly TransactionBreakdown[] = []): SettlementTotals {
  const totals = captures.reduce<SettlementTotals>(
    (acc, t) => ({ gross: acc.gross + t.amount, fee: acc.fee + t.fee, tax: acc.tax + t.tax, refunds: acc.refunds + t.refunds, net: acc.net + t.net }),
    { gross: 0, fee: 0, tax: 0, refunds: 0, net: 0 },
  );
  for (const r of refundLines) {
    totals.refunds += r.refunds;
    totals.net += r.net;
  }
  return totals;
}

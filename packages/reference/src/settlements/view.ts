import type { Schemas } from '../core/contract.js';
import { amountToNumber } from '../core/money.js';
import { forexRateNumber } from './arithmetic.js';

export interface SettlementRow {
  id: string;
  merchant_id: string;
  transaction_currency: string;
  settlement_currency: string;
  forex_rate_cents: number;
  /** the exact rate the payout was computed with: num / den */
  forex_rate_num: number;
  forex_rate_den: number;
  net_minor: number;
  settlement_amount_cents: number;
  utr_number: string;
  completed_at: string;
  created_at: string;
  number_of_transactions: number;
}

export interface SettlementTransactionRow {
  settlement_id: string;
  payment_id: string;
  settlement_type: Schemas['SettlementTransaction']['settlement_type'];
  transaction_amount: number;
  fee_minor: number;
  tax_minor: number;
  net_minor: number;
  mop_type: Schemas['MopType'];
  transaction_currency: string;
}

export const SETTLEMENT_COLUMNS = `s.id, s.merchant_id, s.transaction_currency, s.settlement_currency, s.forex_rate_cents, s.forex_rate_num,
  s.forex_rate_den, s.net_minor,
  s.settlement_amount_cents, s.utr_number, s.completed_at, s.created_at, s.number_of_transactions`;

/** Lines embedded in a Settlement (D113 settlement transactions paged beyond the first 100); every line is at GET /pg/settlements/{settlement_id}/transactions. */
export const EMBEDDED_TRANSACTIONS = 100;

/** Seed Settlement. Transaction amounts are in the transaction currency; settlement_amount_cents in the settlement currency. */
export function settlementView(s: SettlementRow, transactions: SettlementTransactionRow[]): Schemas['Settlement'] {
  return {
    settlement_id: s.id,
    utr_number: s.utr_number,
    settlement_completed_date: s.completed_at,
    forex_rate_cents: s.forex_rate_cents,
    settlement_amount_cents: s.settlement_amount_cents,
    settlement_currency: s.settlement_currency,
    number_of_transactions: s.number_of_transactions,
    transactions: settlementTransactionsView(s, transactions),
  };
}

/** Seed SettlementTransaction lines (amounts in the transaction currency, the rate to the settlement currency). */
export function settlementTransactionsView(
  s: Pick<SettlementRow, 'forex_rate_num' | 'forex_rate_den'>,
  transactions: SettlementTransactionRow[],
): Schemas['SettlementTransaction'][] {
  const forexRate = forexRateNumber({ num: BigInt(s.forex_rate_num), den: BigInt(s.forex_rate_den) });
  return transactions.map((t) => ({
    settlement_type: t.settlement_type,
    transaction_id: t.payment_id,
    transaction_amount: amountToNumber(t.transaction_amount),
    merchant_service_fee: amountToNumber(t.fee_minor),
    merchant_service_tax: amountToNumber(t.tax_minor),
    merchant_net_amount: amountToNumber(t.net_minor),
    mop_type: t.mop_type,
    transaction_currency: t.transaction_currency,
    forex_rate: forexRate,
  }));
}

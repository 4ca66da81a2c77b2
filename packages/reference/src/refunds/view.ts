import type { Schemas } from '../core/contract.js';
import { amountToNumber } from '../core/money.js';
import type { RefundStatus } from '../core/state-machines.js';

export interface RefundRow {
  id: string;
  payment_id: string;
  merchant_id: string;
  amount_minor: number;
  currency: string;
  status: RefundStatus;
  message: string;
  transaction_id: string;
  bank_ref_num: string | null;
  refunded_at: string | null;
  settlement_id: string | null;
  created_at: string;
  updated_at: string;
}

export const REFUND_COLUMNS = `r.id, r.payment_id, r.merchant_id, r.amount_minor, r.currency, r.status, r.message, r.transaction_id,
  r.bank_ref_num, r.refunded_at, r.settlement_id, r.created_at, r.updated_at`;

/** Seed Refund (reads and lists). */
export function refundView(r: RefundRow): Schemas['Refund'] {
  return {
    refund_id: r.id,
    payment_id: r.payment_id,
    refund_amount: amountToNumber(r.amount_minor),
    refund_status: r.status,
    refunded_at: r.refunded_at,
    message: r.message,
  };
}

/** POST /pg/refunds response: the Refund plus transaction_id and bank_ref_num. */
export function refundCreatedView(r: RefundRow): Schemas['RefundCreated'] {
  return {
    refund_id: r.id,
    payment_id: r.payment_id,
    refund_status: r.status,
    message: r.message,
    transaction_id: r.transaction_id,
    bank_ref_num: r.bank_ref_num,
    refund_amount: amountToNumber(r.amount_minor),
  };
}

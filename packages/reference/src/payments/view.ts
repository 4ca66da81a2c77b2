import type { Schemas } from '../core/contract.js';
import { amountToNumber, formatAmount } from '../core/money.js';
import type { OrderRow, PaymentRow } from '../orders/rows.js';
import { paymentOrderView } from '../orders/view.js';
import { refundView, type RefundRow } from '../refunds/view.js';

export interface PaymentSettlementRow {
  id: string;
  completed_at: string;
  settlement_amount_cents: number;
  settlement_currency: string;
  utr_number: string;
  number_of_transactions: number;
  created_at: string;
}

/** The collection mode as a payment read shows it (upper case). */
const PAYMENT_COLLECTION_MODE = {
  hosted_payment: 'HOSTED_PAYMENT',
  s2s: 'S2S',
} as const satisfies Record<PaymentRow['collection_mode'], Schemas['Payment']['collection_mode']>;

/** Seed "Payment (read by id)". settlement is null until the payment is settled; `id` and `settlement_id` both carry the ST id. */
export function paymentView(
  p: PaymentRow,
  order: OrderRow,
  settlement: PaymentSettlementRow | null,
  refunds: RefundRow[],
): Schemas['Payment'] {
  return {
    payment_id: p.id,
    order: paymentOrderView(order),
    settlement: settlement
      ? {
          id: settlement.id,
          settlement_id: settlement.id,
          settlement_completed_date: settlement.completed_at,
          settlement_amount: amountToNumber(settlement.settlement_amount_cents),
          settlement_currency: settlement.settlement_currency,
          utr_number: settlement.utr_number,
          number_of_transactions: settlement.number_of_transactions,
          created_date: settlement.created_at,
        }
      : null,
    refund: refunds.map(refundView),
    collection_mode: PAYMENT_COLLECTION_MODE[p.collection_mode],
    mop_type: p.mop_type,
    // the bank's reference exists once the bank answered: none while PENDING (the spec's "null while PENDING")
    bank_ref_num: p.status === 'PENDING' ? null : p.bank_ref_num,
    mop_detail: p.mop_detail,
    payment_completed_at: p.completed_at,
    status: p.status,
    status_message: p.status_message,
    created_date: p.created_at,
  };
}

export interface PaymentListRow {
  id: string;
  merchant_id: string;
  merchant_name: string;
  reference_id: string;
  // required buyer fields of every stored order
  buyer_name: string;
  buyer_email: string;
  buyer_phone: string;
  order_id: string;
  amount_minor: number;
  currency: string;
  created_at: string;
  mop_type: PaymentRow['mop_type'];
  status: PaymentRow['status'];
}

/** Seed "Payment list item": amounts as strings; `payment_id` carries the order id (as in the seed sample). */
export function paymentListItemView(r: PaymentListRow): Schemas['PaymentListItem'] {
  return {
    id: r.id,
    merchant: { id: r.merchant_id, name: r.merchant_name },
    reference_id: r.reference_id,
    buyer: { name: r.buyer_name, email: r.buyer_email, phone: r.buyer_phone },
    payment_id: r.order_id,
    amount: { amount: formatAmount(r.amount_minor), total_amount: formatAmount(r.amount_minor), currency: r.currency },
    created_at: r.created_at,
    comment: null,
    mop_type: r.mop_type,
    status: r.status,
  };
}

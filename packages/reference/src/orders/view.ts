import type { Schemas } from '../core/contract.js';
import { amountToNumber } from '../core/money.js';
import type { OrderRow, PaymentRow } from './rows.js';

/** A payment of an order with the settlement it went into (if any). */
export interface OrderPayment extends PaymentRow {
  utr_number: string | null;
  settlement_completed_at: string | null;
}

/** A payment's status as order.payments[] shows it (lower case). */
const ORDER_PAYMENT_STATUS = {
  PENDING: 'pending',
  CAPTURED: 'captured',
  FAILED: 'failed',
} as const satisfies Record<PaymentRow['status'], Schemas['OrderPayment']['status']>;

/** The payment fields order.payments[] shows (what the GET order read selects, D147). */
export type OrderPaymentViewRow = Pick<
  OrderPayment,
  | 'id'
  | 'mop_type'
  | 'status'
  | 'status_message'
  | 'settlement_status'
  | 'settlement_id'
  | 'utr_number'
  | 'settlement_completed_at'
  | 'created_at'
>;

/** The order fields the Order read shows, plus what deciding its lazy expiry needs (what GET order selects, D147). */
export type OrderViewRow = Pick<
  OrderRow,
  | 'id'
  | 'reference_id'
  | 'amount_minor'
  | 'currency'
  | 'mop_type'
  | 'buyer'
  | 'product'
  | 'status'
  | 'status_message'
  | 'created_at'
  | 'invoice'
  | 'air_waybills'
  | 'is_testing'
  | 'expires_at'
  | 'clock_offset_seconds'
>;

/** order.payments[] item: lower-case status, settlement {status, message, settlement_details}. */
export function orderPaymentView(p: OrderPaymentViewRow): Schemas['OrderPayment'] {
  return {
    payment_id: p.id,
    mop_type: p.mop_type,
    status: ORDER_PAYMENT_STATUS[p.status],
    status_message: p.status_message,
    settlement: {
      status: p.settlement_status,
      message: null,
      settlement_details:
        p.settlement_id && p.utr_number && p.settlement_completed_at
          ? { settlement_id: p.settlement_id, utr_number: p.utr_number, settlement_completed_date: p.settlement_completed_at }
          : null,
    },
    created_at: p.created_at,
  };
}

/** The order summary embedded in a Payment read (seed "Payment (read by id)".order). */
export function paymentOrderView(
  o: Pick<
    OrderRow,
    'id' | 'reference_id' | 'amount_minor' | 'currency' | 'mop_type' | 'buyer' | 'product' | 'status' | 'status_message' | 'created_at'
  >,
): Schemas['PaymentOrder'] {
  return {
    order_id: o.id,
    reference_id: o.reference_id,
    amount: amountToNumber(o.amount_minor),
    currency: o.currency,
    mop_type: o.mop_type,
    buyer: o.buyer,
    product: o.product,
    status: o.status,
    status_message: o.status_message,
    created_at: o.created_at,
  };
}

/** Seed Order (GET /pg/orders/{order_id}, documents response): the summary plus invoice, documents and payments. */
export function orderView(o: OrderViewRow, payments: readonly OrderPaymentViewRow[]): Schemas['Order'] {
  // the summary's fields written out rather than spread from paymentOrderView: one object, built in one shape
  return {
    order_id: o.id,
    reference_id: o.reference_id,
    amount: amountToNumber(o.amount_minor),
    currency: o.currency,
    mop_type: o.mop_type,
    buyer: o.buyer,
    product: o.product,
    status: o.status,
    status_message: o.status_message,
    created_at: o.created_at,
    // Every Invoice field is present (null until known), whether the invoice came with the order, a PATCH or an upload.
    invoice: o.invoice ? { number: o.invoice.number ?? null, date: o.invoice.date ?? null, file: o.invoice.file ?? null } : null,
    air_waybills: o.air_waybills,
    payments: payments.map(orderPaymentView),
    is_testing: o.is_testing,
  };
}

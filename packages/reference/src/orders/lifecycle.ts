import type { Db } from '../db/db.js';
import { paymentCapturedEvent, paymentFailedEvent } from '../webhooks/events.js';
import { amountToNumber } from '../core/money.js';
import { newBankRefNum } from '../core/ids.js';
import { orderMachine, orderStatusForPayment, paymentMachine, settlementStatusFor, type OrderStatus } from '../core/state-machines.js';
import { formatIso, parseIso, type Micros } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { emitEvent } from '../webhooks/outbox.js';
import { paymentsOfOrder, PAYMENT_COLUMNS, type OrderRow, type PaymentRow } from './rows.js';
import { shifted } from '../core/merchant-clock.js';
import { insertInto, param, sql, VALUE } from '../db/insert.js';

/** Texts used in status_message fields. */
export const STATUS_MESSAGE = {
  orderPending: 'Awaiting payment',
  orderRetrying: 'Awaiting payment; the last attempt failed',
  orderCaptured: 'Payment captured successfully',
  orderCancelled: 'Payment cancelled by the customer',
  orderExpired: 'Payment session expired before the payment was completed',
  paymentPending: 'Payment is being processed',
  collectPending: 'Collect request sent to the customer VPA; awaiting approval',
  intentPending: 'Waiting for the customer to pay with the UPI app',
  paymentCaptured: 'Payment captured successfully',
  paymentDeclined: 'Payment declined by the issuing bank',
  paymentExpired: 'Payment request expired before the customer approved it',
} as const;

/** A new PENDING payment: the payments row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_PAYMENT = insertInto(
  'payments',
  {
    id: VALUE,
    order_id: VALUE,
    merchant_id: VALUE,
    status: sql("'PENDING'"),
    status_message: VALUE,
    mop_type: VALUE,
    collection_mode: VALUE,
    amount_minor: VALUE,
    currency: VALUE,
    bank_ref_num: VALUE,
    mop_detail: VALUE,
    settlement_status: sql("'pending'"),
    auto_complete_outcome: VALUE,
    created_at: VALUE,
    updated_at: param('created_at'),
  },
  { alias: 'p', tail: `RETURNING ${PAYMENT_COLUMNS}` },
);

/** Insert a PENDING payment for `order` (the customer submitted / an s2s request went out). */
export async function createPendingPayment(
  tx: Db,
  deps: ServiceDeps,
  order: Pick<OrderRow, 'id' | 'merchant_id' | 'amount_minor' | 'currency' | 'collection_mode'>,
  p: { mopType: string; mopDetail: Record<string, unknown>; message: string; autoComplete?: 'success' | 'failure' | null; at: Micros },
): Promise<PaymentRow> {
  const id = await deps.ids.next(tx, 'payment');
  const now = formatIso(p.at);
  const { rows } = await tx.query<PaymentRow>(
    INSERT_PAYMENT.text,
    INSERT_PAYMENT.values({
      id,
      order_id: order.id,
      merchant_id: order.merchant_id,
      status_message: p.message,
      mop_type: p.mopType,
      collection_mode: order.collection_mode,
      amount_minor: order.amount_minor,
      currency: order.currency,
      bank_ref_num: newBankRefNum(),
      mop_detail: JSON.stringify(p.mopDetail),
      auto_complete_outcome: p.autoComplete ?? null,
      created_at: now,
    }),
  );
  return rows[0] as PaymentRow;
}

/** The order states a finished payment leaves its order in (what the return-URL callback reports). */
export type FinalOrderStatus = Exclude<OrderStatus, 'payment_pending'>;

/**
 * Move a PENDING payment to CAPTURED or FAILED and emit PAYMENT_CAPTURED / PAYMENT_FAILED (D77 payment captured and refund events as extensions) in the same
 * transaction. The order is the caller's: `finishPayment` ends it, `failCheckoutAttempt` keeps it open (D126 a decline on the hosted page keeps the session open).
 */
async function endPayment(
  tx: Db,
  order: OrderRow,
  payment: PaymentRow,
  outcome: 'CAPTURED' | 'FAILED',
  message: string,
  at: Micros,
): Promise<PaymentRow> {
  paymentMachine.assertTransition(payment.status, outcome);
  const now = formatIso(at);
  const { rows } = await tx.query<PaymentRow>(
    `UPDATE payments AS p SET status = $2, status_message = $3, settlement_status = $4, completed_at = $5, updated_at = $5,
                         auto_complete_outcome = NULL
     WHERE p.id = $1 RETURNING ${PAYMENT_COLUMNS}`,
    [payment.id, outcome, message, settlementStatusFor(outcome, false), now],
  );
  const updated = rows[0] as PaymentRow;
  if (outcome === 'FAILED') {
    await emitEvent(tx, at, { partnerId: order.partner_id, merchantId: order.merchant_id }, (seq) =>
      paymentFailedEvent(seq, at, {
        message,
        mop_type: updated.mop_type,
        order_id: order.id,
        payment_id: updated.id,
        bank_ref_num: updated.bank_ref_num,
        completedAt: at,
      }),
    );
  } else {
    await emitEvent(tx, at, { partnerId: order.partner_id, merchantId: order.merchant_id }, (seq) =>
      paymentCapturedEvent(seq, at, {
        message,
        mop_type: updated.mop_type ?? '',
        order_id: order.id,
        payment_id: updated.id,
        bank_ref_num: updated.bank_ref_num,
        payment_amount: amountToNumber(updated.amount_minor),
        currency: updated.currency,
        completedAt: at,
      }),
    );
  }
  return updated;
}

/**
 * Move a PENDING payment to CAPTURED or FAILED and its order to payment_successful / payment_failed (state machines
 * enforced), with the payment's event in the same transaction. Caller holds the order row lock.
 */
export async function finishPayment(
  tx: Db,
  order: OrderRow,
  payment: PaymentRow,
  outcome: 'CAPTURED' | 'FAILED',
  message: string,
  at: Micros,
  orderStatus: FinalOrderStatus = orderStatusForPayment(outcome),
): Promise<{ payment: PaymentRow; orderStatus: FinalOrderStatus }> {
  orderMachine.assertTransition(order.status, orderStatus);
  const updated = await endPayment(tx, order, payment, outcome, message, at);
  const orderMessage = outcome === 'CAPTURED' ? STATUS_MESSAGE.orderCaptured : message;
  await tx.query('UPDATE orders SET status = $2, status_message = $3, updated_at = $4 WHERE id = $1', [
    order.id,
    orderStatus,
    orderMessage,
    formatIso(at),
  ]);
  return { payment: updated, orderStatus };
}

/**
 * A declined attempt on the hosted page while the shopper may try again (D126 a decline on the hosted page keeps the session open): the payment ends FAILED and
 * PAYMENT_FAILED is emitted as for any failed payment, but the order stays payment_pending (its message names the
 * decline) until a later attempt succeeds, the shopper cancels, the attempts run out or the order expires.
 */
export async function failCheckoutAttempt(tx: Db, order: OrderRow, payment: PaymentRow, message: string, at: Micros): Promise<PaymentRow> {
  if (order.status !== 'payment_pending') orderMachine.assertTransition(order.status, 'payment_pending');
  const updated = await endPayment(tx, order, payment, 'FAILED', message, at);
  await tx.query('UPDATE orders SET status_message = $2, updated_at = $3 WHERE id = $1', [
    order.id,
    `${STATUS_MESSAGE.orderRetrying}: ${message}`,
    formatIso(at),
  ]);
  return updated;
}

/** Move a pending order to payment_cancelled (customer cancel or expiry). Pending payments fail first. */
export async function cancelOrder(tx: Db, order: OrderRow, reason: 'cancelled' | 'expired', at: Micros): Promise<void> {
  orderMachine.assertTransition(order.status, 'payment_cancelled');
  const pending = (await paymentsOfOrder(tx, order.id, true)).filter((p) => p.status === 'PENDING');
  for (const payment of pending) {
    await finishPayment(tx, order, payment, 'FAILED', STATUS_MESSAGE.paymentExpired, at, 'payment_cancelled');
  }
  const message = reason === 'cancelled' ? STATUS_MESSAGE.orderCancelled : STATUS_MESSAGE.orderExpired;
  await tx.query('UPDATE orders SET status = $2, status_message = $3, updated_at = $4 WHERE id = $1', [
    order.id,
    'payment_cancelled',
    message,
    formatIso(at),
  ]);
}

/** The order's now: the gateway's clock on its merchant's sandbox clock (D38 per-merchant sandbox clocks). */
export function orderNow(deps: Pick<ServiceDeps, 'clock'>, order: Pick<OrderRow, 'clock_offset_seconds'>): Micros {
  return shifted(deps.clock.now(), order.clock_offset_seconds);
}

/** Whether a pending order's 15 minutes are over at `now`. */
export function isExpired(order: Pick<OrderRow, 'status' | 'expires_at'>, now: Micros): boolean {
  return order.status === 'payment_pending' && parseIso(order.expires_at) <= now;
}

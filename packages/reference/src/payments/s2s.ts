import { DomainError } from '../core/errors.js';
import { addSeconds, formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { finishPayment, isExpired, cancelOrder, orderNow, STATUS_MESSAGE } from '../orders/lifecycle.js';
import { latestNowSql, merchantNowSql } from '../core/merchant-clock.js';
import { loadOrder, paymentsOfOrder } from '../orders/rows.js';
import type { Scope } from '../core/scope.js';

/** Sandbox delay before success@paygate / failure@paygate collections complete. */
export const S2S_AUTO_COMPLETE_SECONDS = 5;

/**
 * Complete the pending s2s UPI payment of an order (the customer approved or declined in the UPI app; in the
 * sandbox the worker or a sandbox endpoint calls this). Not pending => 422 ERR_ORDER_422.
 */
export async function completeS2sPayment(
  deps: ServiceDeps,
  scope: Scope | null,
  orderId: string,
  outcome: 'success' | 'failure',
): Promise<{ order_id: string; payment_id: string; status: string }> {
  return deps.db.transaction(async (tx) => {
    const order = await loadOrder(tx, scope, orderId, true);
    const at = orderNow(deps, order);
    if (order.collection_mode !== 's2s')
      throw new DomainError('ERR_ORDER_422', 'Order is not a server-to-server order', { order_id: 'uses hosted_payment' });
    if (isExpired(order, at)) {
      await cancelOrder(tx, order, 'expired', at);
      return { order_id: order.id, payment_id: '', status: 'payment_cancelled' };
    }
    const pending = (await paymentsOfOrder(tx, orderId, true)).find((p) => p.status === 'PENDING');
    if (!pending || order.status !== 'payment_pending') {
      throw new DomainError('ERR_ORDER_422', 'Order has no pending payment', { order_id: `status is ${order.status}` });
    }
    const done = await finishPayment(
      tx,
      order,
      pending,
      outcome === 'success' ? 'CAPTURED' : 'FAILED',
      outcome === 'success' ? STATUS_MESSAGE.paymentCaptured : 'Collect request declined by the customer',
      at,
    );
    return { order_id: order.id, payment_id: done.payment.id, status: done.orderStatus };
  });
}

/** Worker: complete sandbox collections to success@paygate / failure@paygate older than the delay (merchant's clock). */
export async function processDueS2sCollections(deps: ServiceDeps, delaySeconds = S2S_AUTO_COMPLETE_SECONDS, limit = 100): Promise<number> {
  const due = await deps.db.query<{ order_id: string; auto_complete_outcome: 'success' | 'failure' }>(
    `SELECT p.order_id, p.auto_complete_outcome FROM payments p
     WHERE p.status = 'PENDING' AND p.auto_complete_outcome IS NOT NULL
       AND p.created_at <= ${latestNowSql('$1')} AND p.created_at <= ${merchantNowSql('$1', 'p.merchant_id')}
     ORDER BY p.created_at LIMIT $2`,
    [formatIso(addSeconds(deps.clock.now(), -delaySeconds)), limit],
  );
  let done = 0;
  for (const row of due.rows) {
    try {
      await completeS2sPayment(deps, null, row.order_id, row.auto_complete_outcome);
      done++;
    } catch (err) {
      // Another process completed it first: the state machine refuses the second move.
      if (!(err instanceof DomainError && err.code === 'ERR_ORDER_422')) throw err;
    }
  }
  return done;
}

import { DomainError, validationError } from '../core/errors.js';
import { normalizeMopType } from '../orders/input.js';
import { cappedCount, DEFAULT_PAGE_SIZE, keysetClauses, pageRequest, toPage, type Page } from '../core/pagination.js';
import { paymentMachine, type PaymentStatus } from '../core/state-machines.js';
import { dayRange } from '../core/clock.js';
import { paymentListItemView, paymentView, type PaymentListRow, type PaymentSettlementRow } from './view.js';
import { REFUND_COLUMNS, type RefundRow } from '../refunds/view.js';
import type { ServiceDeps } from '../core/deps.js';
import { touchOrder } from '../orders/service.js';
import { PAYMENT_COLUMNS, type PaymentRow } from '../orders/rows.js';
import { scopeCondition, tenantCondition, type Scope } from '../core/scope.js';
import { Params } from '../db/params.js';

/** GET /pg/payments/{payment_id}/: the Payment with its order, settlement and refunds. Others' => 404 ERR_PAYMENT_404. */
export async function getPayment(deps: ServiceDeps, scope: Scope, paymentId: string): Promise<ReturnType<typeof paymentView>> {
  const p = new Params();
  const { rows } = await deps.db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM payments p WHERE p.id = ${p.add(paymentId)} AND ${scopeCondition(scope, 'p.merchant_id', p)}`,
    p.values,
  );
  let payment = rows[0];
  if (!payment) throw new DomainError('ERR_PAYMENT_404', 'Payment not found', { payment_id: `no payment ${paymentId}` });
  const order = await touchOrder(deps, null, payment.order_id);
  if (payment.status === 'PENDING') {
    // Expiry may just have failed it.
    const again = await deps.db.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM payments p WHERE p.id = $1`, [paymentId]);
    payment = again.rows[0] ?? payment;
  }
  // number_of_transactions: a settlement's lines are numbered 0..n-1 (settlements/service.ts), so the last position
  // answers through the primary key instead of counting every line (issue 22)
  const [settlement, refunds] = await Promise.all([
    payment.settlement_id
      ? deps.db.query<PaymentSettlementRow>(
          `SELECT s.id, s.completed_at, s.settlement_amount_cents, s.settlement_currency, s.utr_number, s.created_at,
                  s.number_of_transactions
           FROM settlements s WHERE s.id = $1 AND s.status = 'completed'`,
          [payment.settlement_id],
        )
      : Promise.resolve({ rows: [] as PaymentSettlementRow[] }),
    deps.db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM refunds r WHERE r.payment_id = $1 ORDER BY r.created_at, r.id`, [paymentId]),
  ]);
  return paymentView(payment, order, settlement.rows[0] ?? null, refunds.rows);
}

/** Filters of GET /pg/payments/ (all optional, combinable). */
export interface PaymentFilters {
  currency?: string | undefined;
  merchant_id?: string | undefined;
  payment_id?: string | undefined;
  reference_id?: string | undefined;
  buyer_name?: string | undefined;
  mop_type?: string | undefined;
  status?: string | undefined;
  from_created_date?: string | undefined;
  to_created_date?: string | undefined;
  page?: number | string | undefined;
  page_size?: number | string | undefined;
  cursor?: string | undefined;
}

/**
 * GET /pg/payments/: newest first, by keyset on (created_at, id) (D108). buyer_name matches the whole name,
 * case-insensitively (D109); dates are inclusive UTC days. Every filter is served by an index led by the tenant.
 */
export async function listPayments(
  deps: ServiceDeps,
  scope: Scope,
  f: PaymentFilters = {},
): Promise<Page<ReturnType<typeof paymentListItemView>>> {
  const req = pageRequest(f.page, f.page_size, DEFAULT_PAGE_SIZE.payments, f.cursor);
  const p = new Params();
  const where = [tenantCondition(scope, 'p', p)];
  if (f.currency !== undefined) {
    if (!/^[A-Z]{3}$/.test(f.currency)) throw validationError('currency', 'must be three upper-case letters');
    where.push(`p.currency = ${p.add(f.currency)}`);
  }
  if (f.merchant_id !== undefined) where.push(`p.merchant_id = ${p.add(f.merchant_id)}`);
  if (f.payment_id !== undefined) where.push(`p.id = ${p.add(f.payment_id)}`);
  if (f.reference_id !== undefined) {
    // the merchant is in the condition, so orders_reference_unique (merchant_id, reference_id) finds the order at once
    where.push(
      `p.order_id IN (SELECT o.id FROM orders o WHERE o.reference_id = ${p.add(f.reference_id)} AND ${scopeCondition(scope, 'o.merchant_id', p)})`,
    );
  }
  if (f.buyer_name !== undefined && f.buyer_name !== '') where.push(`p.buyer_name_key = lower(${p.add(f.buyer_name)})`);
  if (f.mop_type !== undefined) {
    const mop = normalizeMopType(f.mop_type);
    if (!mop) throw validationError('mop_type', 'must be one of UPI, CREDIT_CARD, DEBIT_CARD, NET_BANKING, QR');
    where.push(`p.mop_type = ${p.add(mop)}`);
  }
  if (f.status !== undefined) {
    if (!paymentMachine.states.includes(f.status as PaymentStatus))
      throw validationError('status', 'must be one of PENDING, CAPTURED, FAILED');
    where.push(`p.status = ${p.add(f.status)}`);
  }
  const range = dayRange({ field: 'from_created_date', day: f.from_created_date }, { field: 'to_created_date', day: f.to_created_date });
  if (range.fromIso) where.push(`p.created_at >= ${p.add(range.fromIso)}`);
  if (range.toExclusiveIso) where.push(`p.created_at < ${p.add(range.toExclusiveIso)}`);

  const fromWhere = `FROM payments p WHERE ${where.join(' AND ')}`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 'p.created_at', 'p.id', p);
  // The page's rows are picked from payments alone (an index walk from the cursor), then joined to their orders.
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 'p.created_at', 'p.id'),
    deps.db.query<PaymentListRow>(
      `SELECT p.id, p.merchant_id, m.company_details->>'brand_name' AS merchant_name, o.reference_id,
              o.buyer->>'name' AS buyer_name, o.buyer->>'email' AS buyer_email, o.buyer->>'phone' AS buyer_phone,
              o.id AS order_id, p.amount_minor, p.currency, p.created_at, p.mop_type, p.status
       FROM (SELECT p.id, p.merchant_id, p.order_id, p.amount_minor, p.currency, p.created_at, p.mop_type, p.status
             ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}) p
       JOIN orders o ON o.id = p.order_id JOIN merchants m ON m.id = p.merchant_id`,
      p.values,
    ),
  ]);
  const sorted = [...list.rows].sort(byKeyDesc);
  if (req.cursor?.dir === 'before') sorted.reverse();
  return toPage(req, count, sorted, (r) => ({ at: r.created_at, id: r.id }), paymentListItemView);
}

/** The joined rows come back in no particular order: newest first again, as the keyset walk picked them. */
function byKeyDesc(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

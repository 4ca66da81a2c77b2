import { DomainError, validationError } from '../core/errors.js';
import { normalizeMopType } from '../orders/input.js';
import {
  COUNT_CAP,
  cappedCount,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  keysetClauses,
  pageRequest,
  toPage,
  type Page,
  type PageRequest,
} from '../core/pagination.js';
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
 * Rows a payments page with two or more filters reads at most (bounded scan, D344). When these rows hold fewer matches
 * than the page wants, the page ends early with a `next` cursor after the last row read and `incomplete_results`.
 */
export const LIST_SCAN_LIMIT = 500;

/**
 * An enum value the caller validated, written into the statement as a literal: a generic plan (a prepared statement
 * after its fifth run) then still sees the value and uses the index of that status or method (D344 every list bounded by its page). Only values
 * matched against a closed list or `^[A-Z0-9_]+$` get here.
 */
function enumLiteral(value: string): string {
  if (!/^[A-Z0-9_]+$/.test(value)) throw new Error(`not an enum value: ${value}`);
  return `'${value}'`;
}

/**
 * GET /pg/payments/: newest first, by keyset on (created_at, id) (D108 lists page by keyset over tenant indexes). buyer_name matches the whole name,
 * case-insensitively (D109 buyer_name filter matches the whole name); dates are inclusive UTC days. Every single filter is served by an index led by the tenant.
 * Every list bounded by its page (D344): two or more of status, mop_type, currency and buyer_name walk the index of one
 * of them (buyer name first, then status, method, currency) for at most LIST_SCAN_LIMIT rows and test the others on
 * them; matches that rarely overlap end the page early (`incomplete_results`, a `next` cursor to continue) instead of
 * reading the merchant's whole history.
 */
export async function listPayments(
  deps: ServiceDeps,
  scope: Scope,
  f: PaymentFilters = {},
): Promise<Page<ReturnType<typeof paymentListItemView>>> {
  const req = pageRequest(f.page, f.page_size, DEFAULT_PAGE_SIZE.payments, f.cursor);
  const p = new Params();
  const where = [tenantCondition(scope, 'p', p)];
  /** The equality filters that have their own index, most selective first. */
  const filters: string[] = [];
  if (f.merchant_id !== undefined) where.push(`p.merchant_id = ${p.add(f.merchant_id)}`);
  let point = false;
  if (f.payment_id !== undefined) {
    where.push(`p.id = ${p.add(f.payment_id)}`);
    point = true;
  }
  if (f.reference_id !== undefined) {
    // the merchant is in the condition, so orders_reference_unique (merchant_id, reference_id) finds the order at once
    where.push(
      `p.order_id IN (SELECT o.id FROM orders o WHERE o.reference_id = ${p.add(f.reference_id)} AND ${scopeCondition(scope, 'o.merchant_id', p)})`,
    );
    point = true;
  }
  if (f.buyer_name !== undefined && f.buyer_name !== '') filters.push(`p.buyer_name_key = lower(${p.add(f.buyer_name)})`);
  if (f.status !== undefined) {
    if (!paymentMachine.states.includes(f.status as PaymentStatus))
      throw validationError('status', 'must be one of PENDING, CAPTURED, FAILED');
    filters.push(`p.status = ${enumLiteral(f.status)}`);
  }
  if (f.mop_type !== undefined) {
    const mop = normalizeMopType(f.mop_type);
    if (!mop) throw validationError('mop_type', 'must be one of UPI, CREDIT_CARD, DEBIT_CARD, NET_BANKING, QR');
    filters.push(`p.mop_type = ${enumLiteral(mop)}`);
  }
  if (f.currency !== undefined) {
    if (!/^[A-Z]{3}$/.test(f.currency)) throw validationError('currency', 'must be three upper-case letters');
    filters.push(`p.currency = ${enumLiteral(f.currency)}`);
  }
  const range = dayRange({ field: 'from_created_date', day: f.from_created_date }, { field: 'to_created_date', day: f.to_created_date });
  if (range.fromIso) where.push(`p.created_at >= ${p.add(range.fromIso)}`);
  if (range.toExclusiveIso) where.push(`p.created_at < ${p.add(range.toExclusiveIso)}`);
  if (!point && filters.length >= 2) return boundedPaymentsPage(deps, req, p, where, filters);
  where.push(...filters);

  const fromWhere = `FROM payments p WHERE ${where.join(' AND ')}`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 'p.created_at', 'p.id', p);
  // The page's rows are picked from payments alone (an index walk from the cursor), then joined to their orders.
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 'p.created_at', 'p.id'),
    deps.db.query<PaymentListRow>(
      `SELECT ${LIST_COLUMNS}
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

const LIST_COLUMNS = `p.id, p.merchant_id, m.company_details->>'brand_name' AS merchant_name, o.reference_id,
              o.buyer->>'name' AS buyer_name, o.buyer->>'email' AS buyer_email, o.buyer->>'phone' AS buyer_phone,
              o.id AS order_id, p.amount_minor, p.currency, p.created_at, p.mop_type, p.status`;

/**
 * A page of payments with two or more filters, bounded by LIST_SCAN_LIMIT rows read (D344 every list bounded by its page): the first filter's index
 * is walked from the cursor and the other filters are tested on the rows it gives, until the page is full. `count`
 * counts the matches among the rows read; `incomplete_results` says when that is not all of them (the page filled or
 * the window ran out before the driver's last row, or the page started at a cursor).
 */
async function boundedPaymentsPage(
  deps: ServiceDeps,
  req: PageRequest,
  p: Params,
  where: string[],
  filters: string[],
): Promise<Page<ReturnType<typeof paymentListItemView>>> {
  const [driver, ...rest] = filters as [string, ...string[]];
  const hit = rest.join(' AND ');
  const fromWhere = `FROM payments p WHERE ${[...where, driver].join(' AND ')}`;
  // the window: LIST_SCAN_LIMIT rows from the cursor (an OFFSET page skips matches, not rows: it stays in the window)
  const keyset = keysetClauses({ ...req, pageSize: LIST_SCAN_LIMIT - 1, offset: 0 }, 'p.created_at', 'p.id', p);
  // Stops as soon as the page is full: only the matches (and the window's last row, when it is reached) come back,
  // numbered in the walk's order (the window's own order: OVER () numbers the rows as the subquery yields them).
  const need = req.offset + req.pageSize + 1;
  const scanned = await deps.db.query<{ id: string; created_at: string; hit: boolean; n: string }>(
    `SELECT w.id, w.created_at, w.hit, w.n FROM (
       SELECT s.*, row_number() OVER () AS n FROM (
         SELECT p.id, p.created_at, (${hit}) AS hit ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}
       ) s
     ) w WHERE w.hit OR w.n = ${LIST_SCAN_LIMIT} LIMIT ${need + 1}`,
    p.values,
  );
  const matched = scanned.rows.filter((r) => r.hit);
  // `count`: the matches among the rows read
  const count = Math.min(COUNT_CAP + 1, matched.length);
  const last = scanned.rows.find((r) => Number(r.n) === LIST_SCAN_LIMIT);
  const windowFull = last !== undefined;
  const stoppedEarly = matched.length >= need;
  const hits = matched.slice(req.offset, need);
  const { rows } = hits.length
    ? await deps.db.query<PaymentListRow>(
        `SELECT ${LIST_COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id JOIN merchants m ON m.id = p.merchant_id
         WHERE p.id = ANY($1::text[])`,
        [hits.map((h) => h.id)],
      )
    : { rows: [] as PaymentListRow[] };
  const sorted = [...rows].sort(byKeyDesc);
  const before = req.cursor?.dir === 'before';
  if (before) sorted.reverse();
  const page = toPage(req, count, sorted, (r) => ({ at: r.created_at, id: r.id }), paymentListItemView);
  if (hits.length <= req.pageSize && windowFull) {
    // the window ran out before the page filled: continue after the last row read, not the last match
    const link = {
      page: before ? Math.max(1, req.page - 1) : req.page + 1,
      cursor: encodeCursor({ dir: before ? 'before' : 'after', at: last.created_at, id: last.id }),
    };
    return { ...page, ...(before ? { previous: link } : { next: link }), incomplete_results: true };
  }
  // `count` is every match only when this first page read all of the driver's rows
  return req.cursor || stoppedEarly ? { ...page, incomplete_results: true } : page;
}

/** The joined rows come back in no particular order: newest first again, as the keyset walk picked them. */
function byKeyDesc(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

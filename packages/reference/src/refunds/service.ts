import { DomainError, validationError } from '../core/errors.js';
import { ID_PATTERN, newBankRefNum } from '../core/ids.js';
import { formatAmount, parseAmountField } from '../core/money.js';
import { cappedCount, DEFAULT_PAGE_SIZE, keysetClauses, pageRequest, toPage, type Page } from '../core/pagination.js';
import { refundMachine } from '../core/state-machines.js';
import { addSeconds, dayRange, formatIso } from '../core/clock.js';
import { REFUND_COLUMNS, refundCreatedView, refundView, type RefundRow } from './view.js';
import type { ServiceDeps } from '../core/deps.js';
import { scopeCondition, tenantCondition, type Scope } from '../core/scope.js';
import { Params } from '../db/params.js';
import { resolveRefundReserve } from '../settlements/reserves.js';
import { latestNowSql, merchantNowSql, merchantOffsetSql, shifted } from '../core/merchant-clock.js';
import type { Micros } from '../core/clock.js';
import type { Db } from '../db/db.js';
import { amountToNumber } from '../core/money.js';
import { refundFinishedEvent } from '../webhooks/events.js';
import { emitEvent } from '../webhooks/outbox.js';
import { insertInto, param, sql, VALUE } from '../db/insert.js';

/** Sandbox: INITIATED refunds become PROCESSED this many (sandbox) seconds after creation. */
export const SANDBOX_REFUND_SECONDS = 60;

export const REFUND_MESSAGE = {
  initiated: 'Refund request has been queued for processing',
  processed: 'Refund processed successfully',
  failed: 'Refund could not be processed',
} as const;

/** A new INITIATED refund: the refunds row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_REFUND = insertInto(
  'refunds',
  {
    id: VALUE,
    payment_id: VALUE,
    merchant_id: VALUE,
    amount_minor: VALUE,
    currency: VALUE,
    status: sql("'INITIATED'"),
    message: VALUE,
    transaction_id: VALUE,
    created_at: VALUE,
    updated_at: param('created_at'),
  },
  { alias: 'r', tail: `RETURNING ${REFUND_COLUMNS}` },
);

/**
 * POST /pg/refunds. Locks the payment row (SELECT ... FOR UPDATE) so concurrent refunds of one payment serialise:
 * the amount must be >= 0.01 and <= captured - sum(non-FAILED refunds), else 422 ERR_REFUND_422 details.refund_amount.
 * Payment not CAPTURED => 422 ERR_REFUND_422 details.payment_id; unknown / other tenant => 404 ERR_PAYMENT_404.
 */
export async function createRefund(
  deps: ServiceDeps,
  scope: Scope,
  input: { payment_id: string; refund_amount: string },
): Promise<ReturnType<typeof refundCreatedView>> {
  const amountMinor = parseAmountField('refund_amount', input.refund_amount);
  if (typeof input.payment_id !== 'string' || input.payment_id.length === 0) throw validationError('payment_id', 'is required');
  return deps.db.transaction(async (tx) => {
    const p = new Params();
    const { rows } = await tx.query<{
      id: string;
      merchant_id: string;
      status: string;
      amount_minor: number;
      currency: string;
      clock_offset_seconds: number;
    }>(
      `SELECT p.id, p.merchant_id, p.status, p.amount_minor, p.currency, ${merchantOffsetSql('p.merchant_id')} AS clock_offset_seconds FROM payments p
       WHERE p.id = ${p.add(input.payment_id)} AND ${scopeCondition(scope, 'p.merchant_id', p)} FOR UPDATE OF p`,
      p.values,
    );
    const payment = rows[0];
    if (!payment) throw new DomainError('ERR_PAYMENT_404', 'Payment not found', { payment_id: `no payment ${input.payment_id}` });
    if (payment.status !== 'CAPTURED') {
      throw new DomainError('ERR_REFUND_422', 'Only captured payments can be refunded', {
        payment_id: `payment status is ${payment.status}`,
      });
    }
    const { rows: sums } = await tx.query<{ total: number }>(
      `SELECT COALESCE(sum(amount_minor), 0)::bigint AS total FROM refunds WHERE payment_id = $1 AND status <> 'FAILED'`,
      [payment.id],
    );
    const refundable = payment.amount_minor - (sums[0]?.total ?? 0);
    if (amountMinor < 1 || amountMinor > refundable) {
      throw new DomainError('ERR_REFUND_422', 'Refund amount exceeds the refundable amount', {
        refund_amount: `must be between 0.01 and ${formatAmount(Math.max(refundable, 0))} (captured minus earlier refunds)`,
      });
    }
    const at = formatIso(shifted(deps.clock.now(), payment.clock_offset_seconds));
    const id = await deps.ids.next(tx, 'refund');
    const transactionId = await deps.ids.next(tx, 'transaction');
    const { rows: created } = await tx.query<RefundRow>(
      INSERT_REFUND.text,
      INSERT_REFUND.values({
        id,
        payment_id: payment.id,
        merchant_id: payment.merchant_id,
        amount_minor: amountMinor,
        currency: payment.currency,
        message: REFUND_MESSAGE.initiated,
        transaction_id: transactionId,
        created_at: at,
      }),
    );
    return refundCreatedView(created[0] as RefundRow);
  });
}

/** GET /pg/refunds/{refund_id}. Unknown / other tenant => 404 ERR_REFUND_404. */
export async function getRefund(deps: ServiceDeps, scope: Scope, refundId: string): Promise<ReturnType<typeof refundView>> {
  const p = new Params();
  const { rows } = await deps.db.query<RefundRow>(
    `SELECT ${REFUND_COLUMNS} FROM refunds r WHERE r.id = ${p.add(refundId)} AND ${scopeCondition(scope, 'r.merchant_id', p)}`,
    p.values,
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_REFUND_404', 'Refund not found', { refund_id: `no refund ${refundId}` });
  return refundView(row);
}

export interface RefundFilters {
  payment_id?: string | undefined;
  reference_id?: string | undefined;
  from_date?: string | undefined;
  to_date?: string | undefined;
  merchant_id?: string | undefined;
  page?: number | string | undefined;
  page_size?: number | string | undefined;
  cursor?: string | undefined;
}

/** GET /pg/refunds: newest first by keyset (D108 lists page by keyset over tenant indexes); dates are inclusive UTC days on created_at; reference_id is the order's. */
export async function listRefunds(deps: ServiceDeps, scope: Scope, f: RefundFilters = {}): Promise<Page<ReturnType<typeof refundView>>> {
  const req = pageRequest(f.page, f.page_size, DEFAULT_PAGE_SIZE.refunds, f.cursor);
  const p = new Params();
  const where = [tenantCondition(scope, 'r', p)];
  if (f.payment_id !== undefined) where.push(`r.payment_id = ${p.add(f.payment_id)}`);
  if (f.merchant_id !== undefined) where.push(`r.merchant_id = ${p.add(f.merchant_id)}`);
  if (f.reference_id !== undefined) {
    // the order first, with the merchant in the condition (orders_reference_unique), then its payments' refunds
    where.push(`r.payment_id IN (SELECT py.id FROM orders o JOIN payments py ON py.order_id = o.id
                                 WHERE o.reference_id = ${p.add(f.reference_id)} AND ${scopeCondition(scope, 'o.merchant_id', p)})`);
  }
  const range = dayRange({ field: 'from_date', day: f.from_date }, { field: 'to_date', day: f.to_date });
  if (range.fromIso) where.push(`r.created_at >= ${p.add(range.fromIso)}`);
  if (range.toExclusiveIso) where.push(`r.created_at < ${p.add(range.toExclusiveIso)}`);
  const fromWhere = `FROM refunds r WHERE ${where.join(' AND ')}`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 'r.created_at', 'r.id', p);
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 'r.created_at', 'r.id'),
    deps.db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}`, p.values),
  ]);
  return toPage(req, count, list.rows, (r) => ({ at: r.created_at, id: r.id }), refundView);
}

/**
 * Finish an INITIATED refund: PROCESSED (refunded_at and bank_ref_num set) or FAILED (amount becomes refundable
 * again). Anything else => 422 ERR_REFUND_422. `scope` null = system (worker / sandbox endpoint without tenant).
 */
export async function completeRefund(
  deps: ServiceDeps,
  scope: Scope | null,
  refundId: string,
  outcome: 'PROCESSED' | 'FAILED' = 'PROCESSED',
): Promise<ReturnType<typeof refundView>> {
  if (!ID_PATTERN.refund.test(refundId))
    throw new DomainError('ERR_REFUND_404', 'Refund not found', { refund_id: `no refund ${refundId}` });
  return deps.db.transaction(async (tx) => {
    const p = new Params();
    const where = [`r.id = ${p.add(refundId)}`];
    if (scope) where.push(scopeCondition(scope, 'r.merchant_id', p));
    const { rows } = await tx.query<RefundRow & { clock_offset_seconds: number }>(
      `SELECT ${REFUND_COLUMNS}, ${merchantOffsetSql('r.merchant_id')} AS clock_offset_seconds FROM refunds r WHERE ${where.join(' AND ')} FOR UPDATE OF r`,
      p.values,
    );
    const refund = rows[0];
    if (!refund) throw new DomainError('ERR_REFUND_404', 'Refund not found', { refund_id: `no refund ${refundId}` });
    refundMachine.assertTransition(refund.status, outcome);
    const atMicros = shifted(deps.clock.now(), refund.clock_offset_seconds);
    const at = formatIso(atMicros);
    const { rows: updated } = await tx.query<RefundRow>(
      `UPDATE refunds AS r SET status = $2, message = $3, refunded_at = $4, bank_ref_num = $5, updated_at = $6
       WHERE r.id = $1 RETURNING ${REFUND_COLUMNS}`,
      [
        refundId,
        outcome,
        outcome === 'PROCESSED' ? REFUND_MESSAGE.processed : REFUND_MESSAGE.failed,
        outcome === 'PROCESSED' ? at : null,
        outcome === 'PROCESSED' ? newBankRefNum() : null,
        at,
      ],
    );
    await resolveRefundReserve(tx, refundId, outcome, at);
    const finished = updated[0] as RefundRow;
    await announceRefund(tx, finished, outcome, atMicros);
    return refundView(finished);
  });
}

/**
 * Worker (sandbox): INITIATED refunds older than 60 seconds on their merchant's sandbox clock -> PROCESSED. SKIP
 * LOCKED shares work across processes.
 */
export async function processDueRefunds(deps: ServiceDeps, afterSeconds = SANDBOX_REFUND_SECONDS, limit = 100): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const { rows } = await tx.query<{ id: string; clock_offset_seconds: number }>(
      `SELECT r.id, ${merchantOffsetSql('r.merchant_id')} AS clock_offset_seconds FROM refunds r
       WHERE r.status = 'INITIATED' AND r.created_at <= ${latestNowSql('$1')} AND r.created_at <= ${merchantNowSql('$1', 'r.merchant_id')}
       ORDER BY r.created_at LIMIT $2 FOR UPDATE OF r SKIP LOCKED`,
      [formatIso(addSeconds(now, -afterSeconds)), limit],
    );
    for (const { id, clock_offset_seconds: offset } of rows) {
      const atMicros = shifted(now, offset);
      const at = formatIso(atMicros);
      refundMachine.assertTransition('INITIATED', 'PROCESSED');
      const { rows: updated } = await tx.query<RefundRow>(
        `UPDATE refunds AS r SET status = 'PROCESSED', message = $2, refunded_at = $3, bank_ref_num = $4, updated_at = $3 WHERE r.id = $1
         RETURNING ${REFUND_COLUMNS}`,
        [id, REFUND_MESSAGE.processed, at, newBankRefNum()],
      );
      await resolveRefundReserve(tx, id, 'PROCESSED', at);
      await announceRefund(tx, updated[0] as RefundRow, 'PROCESSED', atMicros);
    }
    return rows.length;
  });
}

/** REFUND_PROCESSED / REFUND_FAILED into the outbox, in the transaction that finished the refund (D77 payment captured and refund events as extensions). */
async function announceRefund(tx: Db, refund: RefundRow, outcome: 'PROCESSED' | 'FAILED', at: Micros): Promise<void> {
  const { rows } = await tx.query<{ partner_id: string }>('SELECT partner_id FROM merchants WHERE id = $1', [refund.merchant_id]);
  const partnerId = rows[0]?.partner_id;
  if (partnerId === undefined) throw new Error(`refund ${refund.id} names merchant ${refund.merchant_id}, which does not exist`);
  await emitEvent(tx, at, { partnerId, merchantId: refund.merchant_id }, (seq) =>
    refundFinishedEvent(seq, at, outcome, {
      id: refund.id,
      payment_id: refund.payment_id,
      amount: amountToNumber(refund.amount_minor),
      message: refund.message,
      bank_ref_num: refund.bank_ref_num,
    }),
  );
}

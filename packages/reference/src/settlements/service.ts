import type { Db } from '../db/db.js';
import { isSupportedCurrency, type Currency } from '../core/currency.js';
import { DomainError } from '../core/errors.js';
import { paymentSettledEvent, type PaymentSettledItem } from '../webhooks/events.js';
import { newUtr } from '../core/ids.js';
import { amountToNumber } from '../core/money.js';
import { DEFAULT_PAGE_SIZE, pageRequest, toPage, type Page } from '../core/pagination.js';
import {
  forexRateCents,
  forexRateNumber,
  refundAdjustment,
  settlementAmountCents,
  sumBreakdowns,
  transactionBreakdown,
  type TransactionBreakdown,
} from './arithmetic.js';
import { dayRange, formatIso } from '../core/clock.js';
import { SETTLEMENT_COLUMNS, settlementView, type SettlementRow, type SettlementTransactionRow } from './view.js';
import type { ServiceDeps } from '../core/deps.js';
import { emitEvent } from '../webhooks/outbox.js';
import { scopeCondition, type Scope } from '../core/scope.js';
import { Params } from '../db/params.js';

interface UnsettledPayment {
  id: string;
  mop_type: string;
  currency: string;
  amount_minor: number;
}

/** PROCESSED refunds not yet deducted by any settlement, per payment (ids kept so exactly these are marked). */
interface PendingRefunds {
  ids: string[];
  total: number;
}

function currencyOf(code: string): Currency {
  if (!isSupportedCurrency(code)) throw new Error(`unsupported currency ${code} in stored data`);
  return code;
}

interface Line {
  paymentId: string;
  type: 'capture' | 'refund';
  mopType: string;
  b: TransactionBreakdown;
  refundIds: string[];
}

/**
 * Settle one merchant: per transaction currency, one settlement with a `capture` line per captured unsettled payment
 * (its processed refunds netted in) and a `refund` line per already-settled payment with refunds processed since.
 * A currency whose net would not be positive is carried forward untouched (nothing is paid out or lost).
 */
async function settleMerchant(tx: Db, deps: ServiceDeps, merchantId: string): Promise<string[]> {
  const { rows: merchants } = await tx.query<{ partner_id: string; settlement_currency: string }>(
    'SELECT partner_id, settlement_currency FROM merchants WHERE id = $1',
    [merchantId],
  );
  const merchant = merchants[0];
  if (!merchant) return [];
  // SKIP LOCKED: a concurrent run settles the rows it locked; FOR UPDATE re-checks settlement_id IS NULL.
  const { rows: payments } = await tx.query<UnsettledPayment>(
    `SELECT id, mop_type, currency, amount_minor FROM payments
     WHERE merchant_id = $1 AND status = 'CAPTURED' AND settlement_id IS NULL
     ORDER BY currency, created_at, id FOR UPDATE SKIP LOCKED`,
    [merchantId],
  );
  // Lock the refunds this run deducts, and later mark exactly those: a refund processed after this read stays
  // pending and is deducted by the next run.
  const { rows: refundRows } = await tx.query<{ id: string; payment_id: string; amount_minor: number }>(
    `SELECT r.id, r.payment_id, r.amount_minor FROM refunds r JOIN payments p ON p.id = r.payment_id
     WHERE p.merchant_id = $1 AND r.status = 'PROCESSED' AND r.settlement_id IS NULL
     ORDER BY r.id FOR UPDATE OF r SKIP LOCKED`,
    [merchantId],
  );
  const pending = new Map<string, PendingRefunds>();
  for (const r of refundRows) {
    const entry = pending.get(r.payment_id) ?? { ids: [], total: 0 };
    entry.ids.push(r.id);
    entry.total += r.amount_minor;
    pending.set(r.payment_id, entry);
  }
  const unsettledIds = new Set(payments.map((p) => p.id));
  const settledWithRefunds = [...pending.keys()].filter((id) => !unsettledIds.has(id));
  const { rows: refunded } = settledWithRefunds.length
    ? await tx.query<{ id: string; mop_type: string; currency: string }>(
        'SELECT id, mop_type, currency FROM payments WHERE id = ANY($1::text[]) AND settlement_id IS NOT NULL ORDER BY id',
        [settledWithRefunds],
      )
    : { rows: [] };

  const byCurrency = new Map<string, Line[]>();
  const add = (currency: string, line: Line) => byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), line]);
  for (const p of payments) {
    const refunds = pending.get(p.id);
    add(p.currency, { paymentId: p.id, type: 'capture', mopType: p.mop_type, b: transactionBreakdown(p.amount_minor, refunds?.total ?? 0), refundIds: refunds?.ids ?? [] });
  }
  for (const p of refunded) {
    const refunds = pending.get(p.id)!;
    add(p.currency, { paymentId: p.id, type: 'refund', mopType: p.mop_type, b: refundAdjustment(refunds.total), refundIds: refunds.ids });
  }
  if (byCurrency.size === 0) return [];

  const at = deps.clock.now();
  const now = formatIso(at);
  const items: PaymentSettledItem[] = [];
  const ids: string[] = [];
  for (const [currency, lines] of [...byCurrency].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const totals = sumBreakdowns(
      lines.filter((l) => l.type === 'capture').map((l) => l.b),
      lines.filter((l) => l.type === 'refund').map((l) => l.b),
    );
    if (totals.net <= 0) continue;
    const rate = forexRateCents(currencyOf(currency), currencyOf(merchant.settlement_currency));
    const amountCents = settlementAmountCents(totals.net, rate);
    const id = await deps.ids.next(tx, 'settlement');
    const utr = newUtr();
    await tx.query(
      `INSERT INTO settlements (id, merchant_id, transaction_currency, settlement_currency, forex_rate_cents, gross_minor, fee_minor,
                                tax_minor, refunds_minor, net_minor, settlement_amount_cents, utr_number, completed_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
      [id, merchantId, currency, merchant.settlement_currency, rate, totals.gross, totals.fee, totals.tax, totals.refunds, totals.net, amountCents, utr, now],
    );
    let position = 0;
    for (const { paymentId, type, mopType, b, refundIds } of lines) {
      await tx.query(
        `INSERT INTO settlement_transactions (settlement_id, payment_id, settlement_type, transaction_amount, fee_minor, tax_minor,
                                              refunds_minor, net_minor, mop_type, transaction_currency, forex_rate_cents, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [id, paymentId, type, b.amount, b.fee, b.tax, b.refunds, b.net, mopType, currency, rate, position++],
      );
      if (type === 'capture') {
        await tx.query(`UPDATE payments SET settlement_id = $2, settlement_status = 'settled', updated_at = $3 WHERE id = $1`, [paymentId, id, now]);
      }
      if (refundIds.length > 0) await tx.query('UPDATE refunds SET settlement_id = $2 WHERE id = ANY($1::text[])', [refundIds, id]);
    }
    ids.push(id);
    items.push({
      settlement_id: id,
      settlement_utr: utr,
      settlement_done_at: now,
      forex_rate: forexRateNumber(rate),
      settlement_amount: amountToNumber(amountCents),
    });
  }
  if (items.length > 0) {
    await emitEvent(tx, at, { partnerId: merchant.partner_id, merchantId }, (seq) => paymentSettledEvent(seq, at, items));
  }
  return ids;
}

/**
 * Settlement run: for each merchant in scope (optionally one) with captured unsettled payments or refunds not yet
 * deducted, settle per transaction currency (see settleMerchant) and emit PAYMENT_SETTLED. One transaction per
 * merchant. Returns the new ids.
 */
export async function runSettlements(deps: ServiceDeps, scope: Scope | null = null): Promise<string[]> {
  const p = new Params();
  const inScope = scope ? `AND ${scopeCondition(scope, 'p.merchant_id', p)}` : '';
  const { rows } = await deps.db.query<{ merchant_id: string }>(
    `SELECT DISTINCT p.merchant_id FROM payments p
     WHERE ((p.status = 'CAPTURED' AND p.settlement_id IS NULL)
        OR EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND r.status = 'PROCESSED' AND r.settlement_id IS NULL)) ${inScope}
     ORDER BY p.merchant_id`,
    p.values,
  );
  const created: string[] = [];
  for (const { merchant_id } of rows) {
    created.push(...(await deps.db.transaction((tx) => settleMerchant(tx, deps, merchant_id))));
  }
  return created;
}

async function transactionsOf(db: Db, ids: string[]): Promise<Map<string, SettlementTransactionRow[]>> {
  const map = new Map<string, SettlementTransactionRow[]>();
  if (ids.length === 0) return map;
  const { rows } = await db.query<SettlementTransactionRow>(
    `SELECT settlement_id, payment_id, settlement_type, transaction_amount, fee_minor, tax_minor, net_minor, mop_type,
            transaction_currency, forex_rate_cents
     FROM settlement_transactions WHERE settlement_id = ANY($1::text[]) ORDER BY settlement_id, position`,
    [ids],
  );
  for (const r of rows) map.set(r.settlement_id, [...(map.get(r.settlement_id) ?? []), r]);
  return map;
}

/** GET /pg/settlements/{settlement_id}. Unknown / other tenant => 404 ERR_SETTLEMENT_404. */
export async function getSettlement(deps: ServiceDeps, scope: Scope, settlementId: string): Promise<ReturnType<typeof settlementView>> {
  const p = new Params();
  const { rows } = await deps.db.query<SettlementRow>(
    `SELECT ${SETTLEMENT_COLUMNS} FROM settlements s WHERE s.id = ${p.add(settlementId)} AND ${scopeCondition(scope, 's.merchant_id', p)}`,
    p.values,
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_SETTLEMENT_404', 'Settlement not found', { settlement_id: `no settlement ${settlementId}` });
  return settlementView(row, (await transactionsOf(deps.db, [row.id])).get(row.id) ?? []);
}

/** GET /pg/settlements: newest first; from_date / to_date are inclusive UTC days on settlement_completed_date. */
export async function listSettlements(
  deps: ServiceDeps,
  scope: Scope,
  f: { from_date?: string | undefined; to_date?: string | undefined; page?: number | string | undefined; page_size?: number | string | undefined } = {},
): Promise<Page<ReturnType<typeof settlementView>>> {
  const req = pageRequest(f.page, f.page_size, DEFAULT_PAGE_SIZE.settlements);
  const p = new Params();
  const where = [scopeCondition(scope, 's.merchant_id', p)];
  const range = dayRange({ field: 'from_date', day: f.from_date }, { field: 'to_date', day: f.to_date });
  if (range.fromIso) where.push(`s.completed_at >= ${p.add(range.fromIso)}`);
  if (range.toExclusiveIso) where.push(`s.completed_at < ${p.add(range.toExclusiveIso)}`);
  const cond = where.join(' AND ');
  const count = await deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM settlements s WHERE ${cond}`, p.values);
  const list = await deps.db.query<SettlementRow>(
    `SELECT ${SETTLEMENT_COLUMNS} FROM settlements s WHERE ${cond} ORDER BY s.completed_at DESC, s.id DESC
     LIMIT ${p.add(req.pageSize)} OFFSET ${p.add(req.offset)}`,
    p.values,
  );
  const tx = await transactionsOf(deps.db, list.rows.map((r) => r.id));
  return toPage(req, count.rows[0]?.n ?? 0, list.rows.map((r) => settlementView(r, tx.get(r.id) ?? [])));
}

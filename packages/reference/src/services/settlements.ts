import type { Db } from '../db/db.js';
import { isSupportedCurrency, type Currency } from '../domain/currency.js';
import { DomainError } from '../domain/errors.js';
import { paymentSettledEvent, type PaymentSettledItem } from '../domain/events.js';
import { newUtr } from '../domain/ids.js';
import { amountToNumber } from '../domain/money.js';
import { DEFAULT_PAGE_SIZE, pageRequest, toPage, type Page } from '../domain/pagination.js';
import {
  forexRateCents,
  forexRateNumber,
  settlementAmountCents,
  sumBreakdowns,
  transactionBreakdown,
  type TransactionBreakdown,
} from '../domain/settlement.js';
import { dayRange, formatIso } from '../domain/time.js';
import { SETTLEMENT_COLUMNS, settlementView, type SettlementRow, type SettlementTransactionRow } from '../views/settlement.js';
import type { ServiceDeps } from './deps.js';
import { emitEvent } from './outbox.js';
import { scopeCondition, type Scope } from './scope.js';
import { Params } from './sql.js';

interface UnsettledPayment {
  id: string;
  mop_type: string;
  currency: string;
  amount_minor: number;
}

function currencyOf(code: string): Currency {
  if (!isSupportedCurrency(code)) throw new Error(`unsupported currency ${code} in stored data`);
  return code;
}

/** Settle one merchant: one settlement per transaction currency, PAYMENT_SETTLED listing them. */
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
  if (payments.length === 0) return [];
  const at = deps.clock.now();
  const now = formatIso(at);
  const byCurrency = new Map<string, UnsettledPayment[]>();
  for (const p of payments) byCurrency.set(p.currency, [...(byCurrency.get(p.currency) ?? []), p]);

  const items: PaymentSettledItem[] = [];
  const ids: string[] = [];
  for (const [currency, group] of byCurrency) {
    const rate = forexRateCents(currencyOf(currency), currencyOf(merchant.settlement_currency));
    const lines: { payment: UnsettledPayment; b: TransactionBreakdown }[] = [];
    for (const payment of group) {
      const { rows: refunds } = await tx.query<{ total: number }>(
        `SELECT COALESCE(sum(amount_minor), 0)::bigint AS total FROM refunds
         WHERE payment_id = $1 AND status = 'PROCESSED' AND settlement_id IS NULL`,
        [payment.id],
      );
      lines.push({ payment, b: transactionBreakdown(payment.amount_minor, refunds[0]?.total ?? 0) });
    }
    const totals = sumBreakdowns(lines.map((l) => l.b));
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
    for (const { payment, b } of lines) {
      await tx.query(
        `INSERT INTO settlement_transactions (settlement_id, payment_id, settlement_type, transaction_amount, fee_minor, tax_minor,
                                              refunds_minor, net_minor, mop_type, transaction_currency, forex_rate_cents, position)
         VALUES ($1, $2, 'capture', $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [id, payment.id, b.amount, b.fee, b.tax, b.refunds, b.net, payment.mop_type, currency, rate, position++],
      );
      await tx.query(`UPDATE payments SET settlement_id = $2, settlement_status = 'settled', updated_at = $3 WHERE id = $1`, [payment.id, id, now]);
      await tx.query(`UPDATE refunds SET settlement_id = $2 WHERE payment_id = $1 AND status = 'PROCESSED' AND settlement_id IS NULL`, [payment.id, id]);
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
  await emitEvent(tx, at, { partnerId: merchant.partner_id, merchantId }, (seq) => paymentSettledEvent(seq, at, items));
  return ids;
}

/**
 * Settlement run: for each merchant in scope (optionally one), group its CAPTURED unsettled payments per transaction
 * currency into one completed settlement (fee 2 %, tax 18 % of fee, net minus processed refunds, forex to the
 * merchant's settlement currency) and emit PAYMENT_SETTLED. One transaction per merchant. Returns the new ids.
 */
export async function runSettlements(deps: ServiceDeps, scope: Scope | null = null): Promise<string[]> {
  const p = new Params();
  const where = [`status = 'CAPTURED'`, 'settlement_id IS NULL'];
  if (scope) where.push(scopeCondition(scope, 'merchant_id', p));
  const { rows } = await deps.db.query<{ merchant_id: string }>(
    `SELECT DISTINCT merchant_id FROM payments WHERE ${where.join(' AND ')} ORDER BY merchant_id`,
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

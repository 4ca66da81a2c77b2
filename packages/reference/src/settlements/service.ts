import type { Schemas } from '../core/contract.js';
import type { Db } from '../db/db.js';
import { isSupportedCurrency, type Currency } from '../core/currency.js';
import { DomainError } from '../core/errors.js';
import { paymentSettledEvent, type PaymentSettledItem } from '../webhooks/events.js';
import { newUtr } from '../core/ids.js';
import { amountToNumber } from '../core/money.js';
import { cappedCount, DEFAULT_PAGE_SIZE, keysetClauses, MAX_SETTLEMENT_PAGE_SIZE, pageRequest, toPage, type Page } from '../core/pagination.js';
import {
  convertMinor,
  forexRate,
  forexRateCents,
  forexRateNumber,
  refundAdjustment,
  reserveRelease,
  sumLines,
  transactionBreakdown,
  type TransactionBreakdown,
} from './arithmetic.js';
import { dayRange, formatIso } from '../core/clock.js';
import { merchantOffsetSql, shifted } from '../core/merchant-clock.js';
import { SETTLEMENT_COLUMNS, settlementView, type SettlementRow, type SettlementTransactionRow } from './view.js';
import type { ServiceDeps } from '../core/deps.js';
import { emitEvent } from '../webhooks/outbox.js';
import { scopeCondition, tenantCondition, type Scope } from '../core/scope.js';
import { Params } from '../db/params.js';

interface UnsettledPayment {
  id: string;
  mop_type: string;
  currency: string;
  amount_minor: number;
}

/** Refunds of one payment that this run deducts, reserves or releases (each kept, so exactly these are marked). */
interface RefundGroup {
  ids: string[];
  amounts: number[];
  total: number;
}

function currencyOf(code: string): Currency {
  if (!isSupportedCurrency(code)) throw new Error(`unsupported currency ${code} in stored data`);
  return code;
}

type LineType = Schemas['SettlementTransaction']['settlement_type'];

interface Line {
  paymentId: string;
  type: LineType;
  mopType: string;
  b: TransactionBreakdown;
  /** PROCESSED refunds this line deducts (their settlement_id becomes this settlement). */
  deducted: string[];
  /** INITIATED refunds this line reserves, or releasable reserves it pays back, by refund id. */
  reserves: { refundId: string; amount: number }[];
}

function groupRefunds(rows: { id: string; payment_id: string; amount_minor: number }[]): Map<string, RefundGroup> {
  const groups = new Map<string, RefundGroup>();
  for (const r of rows) {
    const g = groups.get(r.payment_id) ?? { ids: [], amounts: [], total: 0 };
    g.ids.push(r.id);
    g.amounts.push(r.amount_minor);
    g.total += r.amount_minor;
    groups.set(r.payment_id, g);
  }
  return groups;
}

/**
 * Settle one merchant. Per transaction currency, one settlement with:
 * - a `capture` line per captured unsettled payment (its processed refunds netted in);
 * - a `refund` line per already-settled payment with refunds processed since;
 * - a `refund_reserve` line per payment (settled now or before) with refunds still INITIATED: held back until they end;
 * - a `reserve_release` line per payment whose reserved refunds failed since: paid back.
 * The payout is the sum of the lines converted once with the exact rate; a non-positive sum is recorded too (a debit).
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so concurrent runs (several processes) never take the same row, and a
 * refund being completed right now is left to the next run.
 */
async function settleMerchant(tx: Db, deps: ServiceDeps, merchantId: string): Promise<string[]> {
  const { rows: merchants } = await tx.query<{ partner_id: string; settlement_currency: string; clock_offset_seconds: number }>(
    `SELECT partner_id, settlement_currency, ${merchantOffsetSql('id')} AS clock_offset_seconds FROM merchants WHERE id = $1`,
    [merchantId],
  );
  const merchant = merchants[0];
  if (!merchant) return [];
  const { rows: payments } = await tx.query<UnsettledPayment>(
    `SELECT id, mop_type, currency, amount_minor FROM payments
     WHERE merchant_id = $1 AND status = 'CAPTURED' AND settlement_id IS NULL
     ORDER BY currency, created_at, id FOR UPDATE SKIP LOCKED`,
    [merchantId],
  );
  const settlingNow = new Set(payments.map((p) => p.id));
  // Refunds are claimed only for payments this run settles now or that are settled already, so a concurrent run that
  // got none of these payments never locks (and so hides) the refunds this run must net or reserve.
  const ofOurPayments = `(p.settlement_id IS NOT NULL OR p.id = ANY($2::text[]))`;
  const processed = groupRefunds(
    (
      await tx.query<{ id: string; payment_id: string; amount_minor: number }>(
        `SELECT r.id, r.payment_id, r.amount_minor FROM refunds r JOIN payments p ON p.id = r.payment_id
         WHERE p.merchant_id = $1 AND r.status = 'PROCESSED' AND r.settlement_id IS NULL AND ${ofOurPayments}
         ORDER BY r.id FOR UPDATE OF r SKIP LOCKED`,
        [merchantId, [...settlingNow]],
      )
    ).rows,
  );
  // INITIATED refunds not reserved yet, of payments settled now or before: held back by this run.
  const { rows: pendingRows } = await tx.query<{ id: string; payment_id: string; amount_minor: number }>(
    `SELECT r.id, r.payment_id, r.amount_minor FROM refunds r JOIN payments p ON p.id = r.payment_id
     WHERE p.merchant_id = $1 AND r.status = 'INITIATED' AND ${ofOurPayments}
       AND NOT EXISTS (SELECT 1 FROM settlement_reserves sr WHERE sr.refund_id = r.id)
     ORDER BY r.id FOR UPDATE OF r SKIP LOCKED`,
    [merchantId, [...settlingNow]],
  );
  // A concurrent run may have reserved one of these and committed while this statement waited for its row lock (it
  // only locked the refund, it did not change it): read the reserves again, with a fresh snapshot, and skip those.
  const reservedMeanwhile = pendingRows.length
    ? new Set(
        (await tx.query<{ refund_id: string }>('SELECT refund_id FROM settlement_reserves WHERE refund_id = ANY($1::text[])', [pendingRows.map((r) => r.id)]))
          .rows.map((r) => r.refund_id),
      )
    : new Set<string>();
  const pending = groupRefunds(pendingRows.filter((r) => !reservedMeanwhile.has(r.id)));
  const { rows: releasableRows } = await tx.query<{ refund_id: string; payment_id: string; amount_minor: number }>(
    `SELECT refund_id, payment_id, amount_minor FROM settlement_reserves
     WHERE merchant_id = $1 AND status = 'releasable' ORDER BY refund_id FOR UPDATE SKIP LOCKED`,
    [merchantId],
  );
  const releasable = groupRefunds(releasableRows.map((r) => ({ id: r.refund_id, payment_id: r.payment_id, amount_minor: r.amount_minor })));

  // payments named by refund, reserve and release lines that are not settled in this run
  const others = [...new Set([...processed.keys(), ...pending.keys(), ...releasable.keys()])].filter((id) => !settlingNow.has(id));
  const { rows: otherPayments } = others.length
    ? await tx.query<UnsettledPayment>(
        'SELECT id, mop_type, currency, amount_minor FROM payments WHERE id = ANY($1::text[]) AND settlement_id IS NOT NULL ORDER BY id',
        [others],
      )
    : { rows: [] };

  const byCurrency = new Map<string, Line[]>();
  const add = (currency: string, line: Line) => byCurrency.set(currency, [...(byCurrency.get(currency) ?? []), line]);
  const reserveLines = (p: UnsettledPayment) => {
    const held = pending.get(p.id);
    if (held) add(p.currency, { paymentId: p.id, type: 'refund_reserve', mopType: p.mop_type, b: refundAdjustment(held.total), deducted: [], reserves: held.ids.map((refundId, i) => ({ refundId, amount: held.amounts[i] ?? 0 })) });
    const back = releasable.get(p.id);
    if (back) add(p.currency, { paymentId: p.id, type: 'reserve_release', mopType: p.mop_type, b: reserveRelease(back.total), deducted: [], reserves: back.ids.map((refundId, i) => ({ refundId, amount: back.amounts[i] ?? 0 })) });
  };
  for (const p of payments) {
    const refunds = processed.get(p.id);
    add(p.currency, { paymentId: p.id, type: 'capture', mopType: p.mop_type, b: transactionBreakdown(p.amount_minor, refunds?.total ?? 0), deducted: refunds?.ids ?? [], reserves: [] });
    reserveLines(p);
  }
  for (const p of otherPayments) {
    const refunds = processed.get(p.id);
    if (refunds) add(p.currency, { paymentId: p.id, type: 'refund', mopType: p.mop_type, b: refundAdjustment(refunds.total), deducted: refunds.ids, reserves: [] });
    reserveLines(p);
  }
  if (byCurrency.size === 0) return [];

  const at = shifted(deps.clock.now(), merchant.clock_offset_seconds); // the merchant's sandbox clock (D38)
  const now = formatIso(at);
  const items: PaymentSettledItem[] = [];
  const ids: string[] = [];
  for (const [currency, lines] of [...byCurrency].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const totals = sumLines(lines.map((l) => ({ type: l.type, b: l.b })));
    const from = currencyOf(currency);
    const to = currencyOf(merchant.settlement_currency);
    const rate = forexRate(from, to);
    const rateCents = forexRateCents(from, to);
    // ONE rounding step: the net of every line, converted with the exact rate (see docs/decisions.md, settlement arithmetic)
    const amountCents = convertMinor(totals.net, rate);
    const id = await deps.ids.next(tx, 'settlement');
    const utr = newUtr();
    await tx.query(
      `INSERT INTO settlements (id, merchant_id, transaction_currency, settlement_currency, forex_rate_cents, forex_rate_num, forex_rate_den,
                                gross_minor, fee_minor, tax_minor, refunds_minor, reserved_minor, released_minor, net_minor,
                                settlement_amount_cents, utr_number, completed_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)`,
      [id, merchantId, currency, merchant.settlement_currency, rateCents, rate.num.toString(), rate.den.toString(), totals.gross, totals.fee,
        totals.tax, totals.refunds, totals.reserved, totals.released, totals.net, amountCents, utr, now],
    );
    let position = 0;
    for (const { paymentId, type, mopType, b, deducted, reserves } of lines) {
      await tx.query(
        `INSERT INTO settlement_transactions (settlement_id, payment_id, settlement_type, transaction_amount, fee_minor, tax_minor,
                                              refunds_minor, net_minor, mop_type, transaction_currency, forex_rate_cents, position)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [id, paymentId, type, b.amount, b.fee, b.tax, b.refunds, b.net, mopType, currency, rateCents, position++],
      );
      if (type === 'capture') {
        await tx.query(`UPDATE payments SET settlement_id = $2, settlement_status = 'settled', updated_at = $3 WHERE id = $1`, [paymentId, id, now]);
      }
      if (deducted.length > 0) await tx.query('UPDATE refunds SET settlement_id = $2 WHERE id = ANY($1::text[])', [deducted, id]);
      for (const r of reserves) {
        if (type === 'refund_reserve') {
          await tx.query(
            `INSERT INTO settlement_reserves (refund_id, payment_id, merchant_id, currency, amount_minor, held_by, status, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'held', $7)`,
            [r.refundId, paymentId, merchantId, currency, r.amount, id, now],
          );
        } else {
          await tx.query(
            `UPDATE settlement_reserves SET status = 'released', released_by = $2 WHERE refund_id = $1 AND status = 'releasable'`,
            [r.refundId, id],
          );
        }
      }
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
 * Settlement run: for each merchant in scope (optionally one) with captured unsettled payments, refunds not yet
 * deducted or reserved, or reserves to release, settle per transaction currency (see settleMerchant) and emit
 * PAYMENT_SETTLED. One transaction per merchant. Returns the new ids.
 */
export async function runSettlements(deps: ServiceDeps, scope: Scope | null = null): Promise<string[]> {
  const p = new Params();
  const inScope = scope ? `AND ${scopeCondition(scope, 'p.merchant_id', p)}` : '';
  const { rows } = await deps.db.query<{ merchant_id: string }>(
    `SELECT DISTINCT p.merchant_id FROM payments p
     WHERE ((p.status = 'CAPTURED' AND p.settlement_id IS NULL)
        OR EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND r.status = 'PROCESSED' AND r.settlement_id IS NULL)
        OR (p.settlement_id IS NOT NULL AND EXISTS (
              SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND r.status = 'INITIATED'
              AND NOT EXISTS (SELECT 1 FROM settlement_reserves sr WHERE sr.refund_id = r.id)))
        OR EXISTS (SELECT 1 FROM settlement_reserves sr WHERE sr.payment_id = p.id AND sr.status = 'releasable')) ${inScope}
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
            transaction_currency
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

/**
 * GET /pg/settlements: newest first on (completed_at, id) by keyset (D108), pages of at most 25 (D110);
 * from_date / to_date are inclusive UTC days on settlement_completed_date.
 */
export async function listSettlements(
  deps: ServiceDeps,
  scope: Scope,
  f: {
    from_date?: string | undefined;
    to_date?: string | undefined;
    page?: number | string | undefined;
    page_size?: number | string | undefined;
    cursor?: string | undefined;
  } = {},
): Promise<Page<ReturnType<typeof settlementView>>> {
  const req = pageRequest(f.page, f.page_size, DEFAULT_PAGE_SIZE.settlements, f.cursor, MAX_SETTLEMENT_PAGE_SIZE);
  const p = new Params();
  const where = [tenantCondition(scope, 's', p)];
  const range = dayRange({ field: 'from_date', day: f.from_date }, { field: 'to_date', day: f.to_date });
  if (range.fromIso) where.push(`s.completed_at >= ${p.add(range.fromIso)}`);
  if (range.toExclusiveIso) where.push(`s.completed_at < ${p.add(range.toExclusiveIso)}`);
  const fromWhere = `FROM settlements s WHERE ${where.join(' AND ')}`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 's.completed_at', 's.id', p);
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 's.completed_at', 's.id'),
    deps.db.query<SettlementRow>(`SELECT ${SETTLEMENT_COLUMNS} ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}`, p.values),
  ]);
  const tx = await transactionsOf(deps.db, list.rows.slice(0, req.pageSize).map((r) => r.id));
  return toPage(req, count, list.rows, (r) => ({ at: r.completed_at, id: r.id }), (r) => settlementView(r, tx.get(r.id) ?? []));
}

import type { Schemas } from '../core/contract.js';
import type { Db } from '../db/db.js';
import { isSupportedCurrency, type Currency } from '../core/currency.js';
import { DomainError, validationError } from '../core/errors.js';
import { paymentSettledEvent, type PaymentSettledItem } from '../webhooks/events.js';
import { newUtr } from '../core/ids.js';
import { amountToNumber } from '../core/money.js';
import {
  cappedCount,
  DEFAULT_PAGE_SIZE,
  keysetClauses,
  MAX_PAGE,
  MAX_SETTLEMENT_PAGE_SIZE,
  pageRequest,
  toPage,
  type Page,
} from '../core/pagination.js';
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
import {
  EMBEDDED_TRANSACTIONS,
  SETTLEMENT_COLUMNS,
  settlementTransactionsView,
  settlementView,
  type SettlementRow,
  type SettlementTransactionRow,
} from './view.js';
import type { ServiceDeps } from '../core/deps.js';
import { emitEvent } from '../webhooks/outbox.js';
import { scopeCondition, tenantCondition, type Scope } from '../core/scope.js';
import { Params } from '../db/params.js';
import { insertInto, param, sql, VALUE } from '../db/insert.js';

interface UnsettledPayment {
  id: string;
  mop_type: string;
  currency: string;
  amount_minor: number;
}

interface ClaimedPayment extends UnsettledPayment {
  created_at: string;
}

/** Refunds of one payment that this batch deducts, reserves or releases (each kept, so exactly these are marked). */
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
    let g = groups.get(r.payment_id);
    if (!g) groups.set(r.payment_id, (g = { ids: [], amounts: [], total: 0 }));
    g.ids.push(r.id);
    g.amounts.push(r.amount_minor);
    g.total += r.amount_minor;
  }
  return groups;
}

/** Payments claimed per batch transaction (D112 settlement runs in batches of 1,000 payments): the memory and the lock time of a run are bounded by it. */
export const SETTLEMENT_BATCH_SIZE = 1000;

export interface SettlementRunOptions {
  /** Payments per batch transaction (default {@link SETTLEMENT_BATCH_SIZE}). */
  batchSize?: number;
  /** Called after each batch commits (tests and fault probes watch a run progress). */
  onBatch?: (info: { merchantId: string; lines: number }) => void | Promise<void>;
}

interface MerchantRun {
  id: string;
  partnerId: string;
  settlementCurrency: string;
  /** the merchant's sandbox clock offset (D38 per-merchant sandbox clocks) */
  offsetSeconds: number;
}

/**
 * How often a batch looks for (or opens) the open settlement of a currency before it gives up. Each miss means
 * another run closed the settlement this batch just met (see openSettlement); a loser of two races in a row is
 * already rare, so a handful of rounds only bounds a pathological case.
 */
const OPEN_SETTLEMENT_ATTEMPTS = 5;

/** An open settlement, its totals zero: the settlements row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_SETTLEMENT = insertInto(
  'settlements',
  {
    id: VALUE,
    merchant_id: VALUE,
    transaction_currency: VALUE,
    settlement_currency: VALUE,
    forex_rate_cents: VALUE,
    forex_rate_num: VALUE,
    forex_rate_den: VALUE,
    gross_minor: sql('0'),
    fee_minor: sql('0'),
    tax_minor: sql('0'),
    refunds_minor: sql('0'),
    reserved_minor: sql('0'),
    released_minor: sql('0'),
    net_minor: sql('0'),
    settlement_amount_cents: sql('0'),
    utr_number: VALUE,
    completed_at: param('created_at'),
    created_at: VALUE,
    status: sql("'open'"),
    number_of_transactions: sql('0'),
  },
  { tail: 'ON CONFLICT DO NOTHING RETURNING id' },
);

/** A batch's lines of one settlement, one row per element of the arrays (set-based: one statement per batch). */
const INSERT_SETTLEMENT_LINES = insertInto(
  'settlement_transactions',
  {
    settlement_id: VALUE,
    payment_id: sql('u.payment_id'),
    settlement_type: sql('u.settlement_type'),
    transaction_amount: sql('u.amount'),
    fee_minor: sql('u.fee'),
    tax_minor: sql('u.tax'),
    refunds_minor: sql('u.refunds'),
    net_minor: sql('u.net'),
    mop_type: sql('u.mop_type'),
    transaction_currency: VALUE,
    forex_rate_cents: VALUE,
    position: sql<'first_position'>(($) => `${$('first_position')}::int + u.ord - 1`),
  },
  {
    from: ($) =>
      `unnest(${$('payment_ids')}::text[], ${$('settlement_types')}::text[], ${$('amounts')}::bigint[], ${$('fees')}::bigint[], ${$('taxes')}::bigint[],
              ${$('refunds')}::bigint[], ${$('nets')}::bigint[], ${$('mop_types')}::text[])
         WITH ORDINALITY AS u(payment_id, settlement_type, amount, fee, tax, refunds, net, mop_type, ord)`,
    extra: ['first_position', 'payment_ids', 'settlement_types', 'amounts', 'fees', 'taxes', 'refunds', 'nets', 'mop_types'],
  },
);

/** Reserves a batch holds back for refunds, one row per element of the arrays. */
const INSERT_RESERVES = insertInto(
  'settlement_reserves',
  {
    refund_id: sql('u.refund_id'),
    payment_id: sql('u.payment_id'),
    merchant_id: VALUE,
    currency: VALUE,
    amount_minor: sql('u.amount'),
    held_by: VALUE,
    status: sql("'held'"),
    created_at: VALUE,
  },
  {
    from: ($) =>
      `unnest(${$('refund_ids')}::text[], ${$('payment_ids')}::text[], ${$('amounts')}::bigint[]) AS u(refund_id, payment_id, amount)`,
    extra: ['refund_ids', 'payment_ids', 'amounts'],
  },
);

/**
 * The open settlement of (merchant, currency), created if there is none, locked for this batch (FOR UPDATE: a
 * concurrent run adding to it, or closing it, waits for this short transaction only).
 *
 * Settlement runs that race (two processes settling one merchant): this batch's INSERT ... ON CONFLICT DO NOTHING can
 * meet another run's open settlement, and that run can close it before this batch's SELECT ... FOR UPDATE gets the
 * row (the lock waits for the close, then the re-checked row is no longer `open`). Nothing is lost then: the winner
 * closed what it had, and this batch opens the next settlement on its next round (the unique index on open
 * settlements now lets its INSERT through). Read committed takes a new snapshot per statement, so a round sees the
 * winner's close.
 */
async function openSettlement(
  tx: Db,
  deps: ServiceDeps,
  m: MerchantRun,
  currency: string,
  now: string,
): Promise<{ id: string; lines: number }> {
  const find = async () =>
    (
      await tx.query<{ id: string; number_of_transactions: number }>(
        `SELECT id, number_of_transactions FROM settlements WHERE merchant_id = $1 AND transaction_currency = $2 AND status = 'open' FOR UPDATE`,
        [m.id, currency],
      )
    ).rows[0];
  for (let attempt = 1; attempt <= OPEN_SETTLEMENT_ATTEMPTS; attempt++) {
    const found = await find();
    if (found) return { id: found.id, lines: found.number_of_transactions };
    const from = currencyOf(currency);
    const to = currencyOf(m.settlementCurrency);
    const rate = forexRate(from, to);
    const id = await deps.ids.next(tx, 'settlement');
    // ON CONFLICT: a concurrent run opened it first (the unique index on open settlements); then add to theirs
    const inserted = await tx.query<{ id: string }>(
      INSERT_SETTLEMENT.text,
      INSERT_SETTLEMENT.values({
        id,
        merchant_id: m.id,
        transaction_currency: currency,
        settlement_currency: m.settlementCurrency,
        forex_rate_cents: forexRateCents(from, to),
        forex_rate_num: rate.num.toString(),
        forex_rate_den: rate.den.toString(),
        utr_number: newUtr(),
        created_at: now,
      }),
    );
    // ours: this transaction holds the new row (no one else sees it before commit), no lock to take
    if (inserted.rows[0]) return { id, lines: 0 };
    const theirs = await find();
    if (theirs) return { id: theirs.id, lines: theirs.number_of_transactions };
    // the winner closed it between our INSERT and our SELECT: look again (next round opens a new one)
  }
  throw new Error(
    `settlement run of ${m.id} ${currency}: the open settlement was closed by a concurrent run ${OPEN_SETTLEMENT_ATTEMPTS} times in a row; run again`,
  );
}

/**
 * Write one batch's lines into the open settlements of their currencies with set-based statements (lines, payments,
 * refunds and reserves: one statement each per currency, whatever the batch size) and add the batch's totals.
 */
async function writeLines(
  tx: Db,
  deps: ServiceDeps,
  m: MerchantRun,
  lines: readonly (Line & { currency: string })[],
  now: string,
): Promise<void> {
  const byCurrency = new Map<string, Line[]>();
  for (const l of lines) {
    let list = byCurrency.get(l.currency);
    if (!list) byCurrency.set(l.currency, (list = []));
    list.push(l);
  }
  for (const [currency, ls] of [...byCurrency].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const s = await openSettlement(tx, deps, m, currency, now);
    const rateCents = forexRateCents(currencyOf(currency), currencyOf(m.settlementCurrency));
    await tx.query(
      INSERT_SETTLEMENT_LINES.text,
      INSERT_SETTLEMENT_LINES.values({
        settlement_id: s.id,
        transaction_currency: currency,
        forex_rate_cents: rateCents,
        first_position: s.lines,
        payment_ids: ls.map((l) => l.paymentId),
        settlement_types: ls.map((l) => l.type),
        amounts: ls.map((l) => l.b.amount),
        fees: ls.map((l) => l.b.fee),
        taxes: ls.map((l) => l.b.tax),
        refunds: ls.map((l) => l.b.refunds),
        nets: ls.map((l) => l.b.net),
        mop_types: ls.map((l) => l.mopType),
      }),
    );
    const captured = ls.filter((l) => l.type === 'capture').map((l) => l.paymentId);
    if (captured.length > 0) {
      await tx.query(`UPDATE payments SET settlement_id = $2, settlement_status = 'settled', updated_at = $3 WHERE id = ANY($1::text[])`, [
        captured,
        s.id,
        now,
      ]);
    }
    const deducted = ls.flatMap((l) => l.deducted);
    if (deducted.length > 0) await tx.query('UPDATE refunds SET settlement_id = $2 WHERE id = ANY($1::text[])', [deducted, s.id]);
    const held = ls.filter((l) => l.type === 'refund_reserve').flatMap((l) => l.reserves.map((r) => ({ ...r, paymentId: l.paymentId })));
    if (held.length > 0) {
      await tx.query(
        INSERT_RESERVES.text,
        INSERT_RESERVES.values({
          merchant_id: m.id,
          currency,
          held_by: s.id,
          created_at: now,
          refund_ids: held.map((r) => r.refundId),
          payment_ids: held.map((r) => r.paymentId),
          amounts: held.map((r) => r.amount),
        }),
      );
      // on the refund too: "INITIATED and not reserved" is a partial index, empty when nothing is due (D343 refund reserve recorded on the refund)
      await tx.query('UPDATE refunds SET reserved_by = $2 WHERE id = ANY($1::text[])', [held.map((r) => r.refundId), s.id]);
    }
    const released = ls.filter((l) => l.type === 'reserve_release').flatMap((l) => l.reserves.map((r) => r.refundId));
    if (released.length > 0) {
      await tx.query(
        `UPDATE settlement_reserves SET status = 'released', released_by = $2 WHERE refund_id = ANY($1::text[]) AND status = 'releasable'`,
        [released, s.id],
      );
    }
    const t = sumLines(ls);
    await tx.query(
      `UPDATE settlements SET gross_minor = gross_minor + $2, fee_minor = fee_minor + $3, tax_minor = tax_minor + $4,
              refunds_minor = refunds_minor + $5, reserved_minor = reserved_minor + $6, released_minor = released_minor + $7,
              net_minor = net_minor + $8, number_of_transactions = number_of_transactions + $9
       WHERE id = $1`,
      [s.id, t.gross, t.fee, t.tax, t.refunds, t.reserved, t.released, t.net, ls.length],
    );
  }
}

/** INITIATED refunds of `paymentIds` not reserved yet, locked (SKIP LOCKED), by payment. */
async function unreservedRefunds(tx: Db, paymentIds: readonly string[]): Promise<Map<string, RefundGroup>> {
  const { rows } = await tx.query<{ id: string; payment_id: string; amount_minor: number }>(
    `SELECT r.id, r.payment_id, r.amount_minor FROM refunds r
     WHERE r.payment_id = ANY($1::text[]) AND r.status = 'INITIATED' AND r.reserved_by IS NULL
     ORDER BY r.id FOR UPDATE OF r SKIP LOCKED`,
    [paymentIds],
  );
  if (rows.length === 0) return new Map();
  // A concurrent run may have reserved one of these and committed while this statement waited for its row lock (it
  // only locked the refund, it did not change it): read the reserves again, with a fresh snapshot, and skip those.
  const { rows: meanwhile } = await tx.query<{ refund_id: string }>(
    'SELECT refund_id FROM settlement_reserves WHERE refund_id = ANY($1::text[])',
    [rows.map((r) => r.id)],
  );
  const reserved = new Set(meanwhile.map((r) => r.refund_id));
  return groupRefunds(rows.filter((r) => !reserved.has(r.id)));
}

/** PROCESSED refunds of `paymentIds` not deducted yet, locked (SKIP LOCKED: one being changed now waits for the next run). */
async function undeductedRefunds(tx: Db, paymentIds: readonly string[]): Promise<Map<string, RefundGroup>> {
  const { rows } = await tx.query<{ id: string; payment_id: string; amount_minor: number }>(
    `SELECT r.id, r.payment_id, r.amount_minor FROM refunds r
     WHERE r.payment_id = ANY($1::text[]) AND r.status = 'PROCESSED' AND r.settlement_id IS NULL
     ORDER BY r.id FOR UPDATE OF r SKIP LOCKED`,
    [paymentIds],
  );
  return groupRefunds(rows);
}

function reserveLines(
  p: UnsettledPayment,
  pending: Map<string, RefundGroup>,
  releasable: Map<string, RefundGroup>,
  out: (Line & { currency: string })[],
): void {
  const held = pending.get(p.id);
  if (held) {
    out.push({
      currency: p.currency,
      paymentId: p.id,
      type: 'refund_reserve',
      mopType: p.mop_type,
      b: refundAdjustment(held.total),
      deducted: [],
      reserves: held.ids.map((refundId, i) => ({ refundId, amount: held.amounts[i] ?? 0 })),
    });
  }
  const back = releasable.get(p.id);
  if (back) {
    out.push({
      currency: p.currency,
      paymentId: p.id,
      type: 'reserve_release',
      mopType: p.mop_type,
      b: reserveRelease(back.total),
      deducted: [],
      reserves: back.ids.map((refundId, i) => ({ refundId, amount: back.amounts[i] ?? 0 })),
    });
  }
}

/** Keyset position in the walk over captured unsettled payments. */
interface CaptureCursor {
  currency: string;
  createdAt: string;
  id: string;
}

/**
 * One capture batch, in its own transaction: claim up to `limit` captured unsettled payments after `after` (FOR UPDATE
 * SKIP LOCKED: a payment a refund holds right now is left to the next batch or run), net their processed refunds into
 * `capture` lines, hold their INITIATED refunds as `refund_reserve` lines. Returns how many were claimed and where the
 * walk goes on.
 */
async function settleCaptureBatch(tx: Db, deps: ServiceDeps, m: MerchantRun, after: CaptureCursor, limit: number, now: string) {
  const { rows: payments } = await tx.query<ClaimedPayment>(
    `SELECT id, mop_type, currency, amount_minor, created_at FROM payments
     WHERE merchant_id = $1 AND status = 'CAPTURED' AND settlement_id IS NULL AND (currency, created_at, id) > ($2::char(3), $3::timestamptz, $4::text)
     ORDER BY currency, created_at, id LIMIT $5 FOR UPDATE SKIP LOCKED`,
    [m.id, after.currency, after.createdAt, after.id, limit],
  );
  const last = payments[payments.length - 1];
  if (!last) return { claimed: 0, lines: 0, next: after };
  const ids = payments.map((p) => p.id);
  const processed = await undeductedRefunds(tx, ids);
  const pending = await unreservedRefunds(tx, ids);
  const lines: (Line & { currency: string })[] = [];
  const none = new Map<string, RefundGroup>();
  for (const p of payments) {
    const refunds = processed.get(p.id);
    lines.push({
      currency: p.currency,
      paymentId: p.id,
      type: 'capture',
      mopType: p.mop_type,
      b: transactionBreakdown(p.amount_minor, refunds?.total ?? 0),
      deducted: refunds?.ids ?? [],
      reserves: [],
    });
    reserveLines(p, pending, none, lines);
  }
  await writeLines(tx, deps, m, lines, now);
  return { claimed: payments.length, lines: lines.length, next: { currency: last.currency, createdAt: last.created_at, id: last.id } };
}

/**
 * Payments settled before that need an adjustment line (refunds processed since, refunds still INITIATED and not
 * reserved, reserves to release), in payment id order after `after`, at most `limit`: each from a partial index.
 */
async function adjustmentCandidates(db: Db, merchantId: string, after: string, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ payment_id: string }>(
    `SELECT payment_id FROM (
       SELECT r.payment_id FROM refunds r WHERE r.merchant_id = $1 AND r.status = 'PROCESSED' AND r.settlement_id IS NULL AND r.payment_id > $2
       UNION
       SELECT r.payment_id FROM refunds r WHERE r.merchant_id = $1 AND r.status = 'INITIATED' AND r.reserved_by IS NULL AND r.payment_id > $2
       UNION
       SELECT sr.payment_id FROM settlement_reserves sr WHERE sr.merchant_id = $1 AND sr.status = 'releasable' AND sr.payment_id > $2
     ) c JOIN payments p ON p.id = c.payment_id AND p.settlement_id IS NOT NULL
     ORDER BY payment_id LIMIT $3`,
    [merchantId, after, limit],
  );
  return rows.map((r) => r.payment_id);
}

/** One adjustment batch (its own transaction): `refund`, `refund_reserve` and `reserve_release` lines of settled payments. */
async function settleAdjustmentBatch(tx: Db, deps: ServiceDeps, m: MerchantRun, paymentIds: string[], now: string): Promise<number> {
  const processed = await undeductedRefunds(tx, paymentIds);
  const pending = await unreservedRefunds(tx, paymentIds);
  const { rows: releasableRows } = await tx.query<{ refund_id: string; payment_id: string; amount_minor: number }>(
    `SELECT refund_id, payment_id, amount_minor FROM settlement_reserves
     WHERE payment_id = ANY($1::text[]) AND status = 'releasable' ORDER BY refund_id FOR UPDATE SKIP LOCKED`,
    [paymentIds],
  );
  const releasable = groupRefunds(releasableRows.map((r) => ({ id: r.refund_id, payment_id: r.payment_id, amount_minor: r.amount_minor })));
  const { rows: payments } = await tx.query<UnsettledPayment>(
    'SELECT id, mop_type, currency, amount_minor FROM payments WHERE id = ANY($1::text[]) AND settlement_id IS NOT NULL ORDER BY id',
    [paymentIds],
  );
  const lines: (Line & { currency: string })[] = [];
  for (const p of payments) {
    const refunds = processed.get(p.id);
    if (refunds)
      lines.push({
        currency: p.currency,
        paymentId: p.id,
        type: 'refund',
        mopType: p.mop_type,
        b: refundAdjustment(refunds.total),
        deducted: refunds.ids,
        reserves: [],
      });
    reserveLines(p, pending, releasable, lines);
  }
  if (lines.length > 0) await writeLines(tx, deps, m, lines, now);
  return lines.length;
}

/**
 * Close every open settlement of the merchant (one short transaction): its payout is the sum of its lines converted
 * ONCE with the exact rate (see docs/decisions.md, settlement arithmetic); a non-positive sum is recorded too (a
 * debit). It becomes visible and PAYMENT_SETTLED announces it. Returns the ids closed.
 */
async function closeSettlements(tx: Db, deps: ServiceDeps, m: MerchantRun): Promise<string[]> {
  const { rows } = await tx.query<{
    id: string;
    transaction_currency: string;
    net_minor: number;
    utr_number: string;
    forex_rate_num: number;
    forex_rate_den: number;
  }>(
    `SELECT id, transaction_currency, net_minor, utr_number, forex_rate_num, forex_rate_den FROM settlements
     WHERE merchant_id = $1 AND status = 'open' ORDER BY transaction_currency FOR UPDATE`,
    [m.id],
  );
  if (rows.length === 0) return [];
  const at = shifted(deps.clock.now(), m.offsetSeconds); // the merchant's sandbox clock (D38 per-merchant sandbox clocks)
  const now = formatIso(at);
  const items: PaymentSettledItem[] = [];
  for (const s of rows) {
    const rate = { num: BigInt(s.forex_rate_num), den: BigInt(s.forex_rate_den) };
    const amountCents = convertMinor(s.net_minor, rate);
    await tx.query(`UPDATE settlements SET status = 'completed', settlement_amount_cents = $2, completed_at = $3 WHERE id = $1`, [
      s.id,
      amountCents,
      now,
    ]);
    items.push({
      settlement_id: s.id,
      settlement_utr: s.utr_number,
      settlement_done_at: now,
      forex_rate: forexRateNumber(rate),
      settlement_amount: amountToNumber(amountCents),
    });
  }
  await emitEvent(tx, at, { partnerId: m.partnerId, merchantId: m.id }, (seq) => paymentSettledEvent(seq, at, items));
  return rows.map((s) => s.id);
}

/**
 * Settle one merchant in batches (D112 settlement runs in batches of 1,000 payments), each its own short transaction. Per transaction currency one settlement with:
 * - a `capture` line per captured unsettled payment (its processed refunds netted in);
 * - a `refund` line per already-settled payment with refunds processed since;
 * - a `refund_reserve` line per payment (settled now or before) with refunds still INITIATED: held back until they end;
 * - a `reserve_release` line per payment whose reserved refunds failed since: paid back.
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so concurrent runs (several processes) never take the same row, and a
 * refund being completed right now is left to the next run. The settlement stays `open` (hidden) until every batch is
 * in; a crash leaves it open and the next run carries on.
 */
async function settleMerchant(deps: ServiceDeps, merchantId: string, options: SettlementRunOptions): Promise<string[]> {
  const { rows: merchants } = await deps.db.query<{ partner_id: string; settlement_currency: string; clock_offset_seconds: number }>(
    `SELECT partner_id, settlement_currency, ${merchantOffsetSql('id')} AS clock_offset_seconds FROM merchants WHERE id = $1`,
    [merchantId],
  );
  const row = merchants[0];
  if (!row) return [];
  const m: MerchantRun = {
    id: merchantId,
    partnerId: row.partner_id,
    settlementCurrency: row.settlement_currency,
    offsetSeconds: row.clock_offset_seconds,
  };
  const limit = Math.max(1, options.batchSize ?? SETTLEMENT_BATCH_SIZE);
  const stamp = () => formatIso(shifted(deps.clock.now(), m.offsetSeconds));
  let cursor: CaptureCursor = { currency: '', createdAt: '-infinity', id: '' };
  for (;;) {
    const batch = await deps.db.transaction((tx) => settleCaptureBatch(tx, deps, m, cursor, limit, stamp()));
    if (batch.claimed > 0) await options.onBatch?.({ merchantId, lines: batch.lines });
    if (batch.claimed < limit) break;
    cursor = batch.next;
  }
  let after = '';
  for (;;) {
    const ids = await adjustmentCandidates(deps.db, merchantId, after, limit);
    const lastId = ids[ids.length - 1];
    if (lastId === undefined) break;
    const lines = await deps.db.transaction((tx) => settleAdjustmentBatch(tx, deps, m, ids, stamp()));
    if (lines > 0) await options.onBatch?.({ merchantId, lines });
    if (ids.length < limit) break;
    after = lastId;
  }
  return deps.db.transaction((tx) => closeSettlements(tx, deps, m));
}

/**
 * Merchants a run has something to do for: each merchant in scope is probed with EXISTS on small partial indexes
 * (captured unsettled payments, processed refunds not deducted, INITIATED refunds not reserved, releasable reserves,
 * settlements left open by an interrupted run), so a run with nothing due costs one index probe per merchant, never
 * a read of the payment history (D112 settlement runs in batches of 1,000 payments).
 */
async function dueMerchants(deps: ServiceDeps, scope: Scope | null): Promise<string[]> {
  const p = new Params();
  const inScope = scope ? `AND ${scopeCondition(scope, 'm.id', p)}` : '';
  const { rows } = await deps.db.query<{ merchant_id: string }>(
    `SELECT m.id AS merchant_id FROM merchants m
     WHERE (EXISTS (SELECT 1 FROM payments p WHERE p.merchant_id = m.id AND p.status = 'CAPTURED' AND p.settlement_id IS NULL)
        OR EXISTS (SELECT 1 FROM refunds r WHERE r.merchant_id = m.id AND r.status = 'PROCESSED' AND r.settlement_id IS NULL)
        OR EXISTS (SELECT 1 FROM refunds r JOIN payments p ON p.id = r.payment_id
                   WHERE r.merchant_id = m.id AND r.status = 'INITIATED' AND r.reserved_by IS NULL AND p.settlement_id IS NOT NULL)
        OR EXISTS (SELECT 1 FROM settlement_reserves sr WHERE sr.merchant_id = m.id AND sr.status = 'releasable')
        OR EXISTS (SELECT 1 FROM settlements s WHERE s.merchant_id = m.id AND s.status = 'open')) ${inScope}
     ORDER BY m.id`,
    p.values,
  );
  return rows.map((r) => r.merchant_id);
}

/**
 * Settlement run: for each merchant in scope (optionally one) with captured unsettled payments, refunds not yet
 * deducted or reserved, reserves to release or a settlement left open, settle per transaction currency (see
 * settleMerchant) and emit PAYMENT_SETTLED. Batches of bounded size, each its own transaction. Returns the new ids.
 */
export async function runSettlements(deps: ServiceDeps, scope: Scope | null = null, options: SettlementRunOptions = {}): Promise<string[]> {
  const created: string[] = [];
  for (const merchantId of await dueMerchants(deps, scope)) {
    for (const id of await settleMerchant(deps, merchantId, options)) created.push(id);
  }
  return created;
}

/**
 * The first lines of each settlement (D113 settlement transactions paged beyond the first 100): at most EMBEDDED_TRANSACTIONS each, read by primary key
 * (settlement_id, position), so a settlement of 100k lines costs what one of 10 does.
 */
async function transactionsOf(db: Db, ids: string[]): Promise<Map<string, SettlementTransactionRow[]>> {
  const map = new Map<string, SettlementTransactionRow[]>();
  if (ids.length === 0) return map;
  const { rows } = await db.query<SettlementTransactionRow>(
    `SELECT ${TRANSACTION_COLUMNS} FROM settlement_transactions
     WHERE settlement_id = ANY($1::text[]) AND position < $2 ORDER BY settlement_id, position`,
    [ids, EMBEDDED_TRANSACTIONS],
  );
  for (const r of rows) {
    let list = map.get(r.settlement_id);
    if (!list) map.set(r.settlement_id, (list = []));
    list.push(r);
  }
  return map;
}

const TRANSACTION_COLUMNS = `settlement_id, payment_id, settlement_type, transaction_amount, fee_minor, tax_minor, net_minor, mop_type, transaction_currency`;

/** A completed settlement in scope, or 404 ERR_SETTLEMENT_404 (unknown, another tenant's, or still being built). */
async function settlementRow(deps: ServiceDeps, scope: Scope, settlementId: string): Promise<SettlementRow> {
  const p = new Params();
  const { rows } = await deps.db.query<SettlementRow>(
    `SELECT ${SETTLEMENT_COLUMNS} FROM settlements s
     WHERE s.id = ${p.add(settlementId)} AND s.status = 'completed' AND ${scopeCondition(scope, 's.merchant_id', p)}`,
    p.values,
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_SETTLEMENT_404', 'Settlement not found', { settlement_id: `no settlement ${settlementId}` });
  return row;
}

/** GET /pg/settlements/{settlement_id}: with its first lines embedded (D113 settlement transactions paged beyond the first 100). Unknown / other tenant => 404 ERR_SETTLEMENT_404. */
export async function getSettlement(deps: ServiceDeps, scope: Scope, settlementId: string): Promise<ReturnType<typeof settlementView>> {
  const row = await settlementRow(deps, scope, settlementId);
  return settlementView(row, (await transactionsOf(deps.db, [row.id])).get(row.id) ?? []);
}

/**
 * GET /pg/settlements/{settlement_id}/transactions (D113 settlement transactions paged beyond the first 100): lines in order, a page read by primary key range on
 * (settlement_id, position) (positions run 0..n-1), so any page costs the same; `count` is the stored exact total.
 */
const TRANSACTIONS_PAGE_SIZE = 250;

export async function listSettlementTransactions(
  deps: ServiceDeps,
  scope: Scope,
  settlementId: string,
  f: { page?: number | string | undefined; page_size?: number | string | undefined } = {},
): Promise<Page<Schemas['SettlementTransaction']>> {
  // page numbers at any depth (no OFFSET window here: a page is a position range, never a scan)
  const page = pageRequest(undefined, f.page_size, TRANSACTIONS_PAGE_SIZE);
  const number = f.page === undefined || f.page === '' ? 1 : Number(f.page);
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_PAGE)
    throw validationError('page', `must be an integer from 1 to ${MAX_PAGE}`);
  const size = page.pageSize;
  const row = await settlementRow(deps, scope, settlementId);
  const { rows } = await deps.db.query<SettlementTransactionRow>(
    `SELECT ${TRANSACTION_COLUMNS} FROM settlement_transactions WHERE settlement_id = $1 AND position >= $2 AND position < $3 ORDER BY position`,
    [row.id, (number - 1) * size, number * size],
  );
  const count = row.number_of_transactions;
  const lastPage = Math.max(1, Math.ceil(count / size));
  return {
    count,
    page: number,
    page_size: size,
    results: settlementTransactionsView(row, rows),
    next: number < lastPage ? { page: number + 1, cursor: null } : null,
    previous: number > 1 ? { page: Math.min(number - 1, lastPage), cursor: null } : null,
  };
}

/**
 * GET /pg/settlements: newest first on (completed_at, id) by keyset (D108 lists page by keyset over tenant indexes), pages of at most 25 (D110 settlements list serves at most 25 per page);
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
  const where = [tenantCondition(scope, 's', p), `s.status = 'completed'`];
  const range = dayRange({ field: 'from_date', day: f.from_date }, { field: 'to_date', day: f.to_date });
  if (range.fromIso) where.push(`s.completed_at >= ${p.add(range.fromIso)}`);
  if (range.toExclusiveIso) where.push(`s.completed_at < ${p.add(range.toExclusiveIso)}`);
  const fromWhere = `FROM settlements s WHERE ${where.join(' AND ')}`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 's.completed_at', 's.id', p);
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 's.completed_at', 's.id'),
    deps.db.query<SettlementRow>(
      `SELECT ${SETTLEMENT_COLUMNS} ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}`,
      p.values,
    ),
  ]);
  const tx = await transactionsOf(
    deps.db,
    list.rows.slice(0, req.pageSize).map((r) => r.id),
  );
  return toPage(
    req,
    count,
    list.rows,
    (r) => ({ at: r.completed_at, id: r.id }),
    (r) => settlementView(r, tx.get(r.id) ?? []),
  );
}

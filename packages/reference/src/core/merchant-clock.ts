import type { Db } from '../db/db.js';
import { validationError } from './errors.js';
import { formatIso, type Clock, type Micros } from './clock.js';
import { insertInto, VALUE } from '../db/insert.js';

/**
 * Per-merchant sandbox clocks (decision D38). The gateway's clock (`ServiceDeps.clock`: system time, or a ManualClock
 * in tests) is the base; a merchant's time is the base plus the merchant's own offset from `merchant_clocks` (0
 * without a row). Everything that belongs to one merchant runs on its time: order and session expiry, payment and
 * refund times, settlements, its events and the retries of their deliveries. Credentials, idempotency keys and rate
 * limits run on the gateway's time. The offset is read from the database where it is needed (in the transaction
 * that uses it), so every process sees a move at once; nothing is cached.
 */

/** Largest single move (the request schema's maximum, one year). */
export const MAX_ADVANCE_SECONDS = 31_536_000;

const MICROS_PER_SECOND = 1_000_000;

/** SQL: the offset in seconds of the merchant whose id is the SQL expression `merchantId` (0 without a clock). */
export function merchantOffsetSql(merchantId: string): string {
  return `coalesce((SELECT mc.offset_seconds FROM merchant_clocks mc WHERE mc.merchant_id = ${merchantId}), 0)`;
}

/** SQL: the merchant's now, from `base` (a placeholder holding the gateway's now as an ISO string). */
export function merchantNowSql(base: string, merchantId: string): string {
  return `(${base}::timestamptz + ${merchantOffsetSql(merchantId)} * interval '1 second')`;
}

/**
 * SQL: the latest "now" of any merchant. Comparing a column with it first keeps a range condition an index can use
 * (the per-merchant comparison follows); production has no clocks, so it is the gateway's now.
 */
export function latestNowSql(base: string): string {
  return `(${base}::timestamptz + coalesce((SELECT max(offset_seconds) FROM merchant_clocks), 0) * interval '1 second')`;
}

/** `base` shifted by an offset in seconds. */
export function shifted(base: Micros, offsetSeconds: number): Micros {
  return base + offsetSeconds * MICROS_PER_SECOND;
}

/** The merchant's clock offset in seconds (0 without a clock, or for an unknown merchant). */
export async function merchantOffset(db: Db, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ offset_seconds: number }>('SELECT offset_seconds FROM merchant_clocks WHERE merchant_id = $1', [
    merchantId,
  ]);
  return rows[0]?.offset_seconds ?? 0;
}

/** The merchant's now: the gateway clock plus the merchant's offset (read through `db`, e.g. the caller's transaction). */
export async function merchantNow(clock: Clock, db: Db, merchantId: string): Promise<Micros> {
  return shifted(clock.now(), await merchantOffset(db, merchantId));
}

/** A merchant's clock as the sandbox API shows it. */
export interface MerchantClockView {
  merchant_id: string;
  now: string;
  offset_seconds: number;
}

/** The merchant's clock (the caller has checked the merchant is in scope). */
export async function readMerchantClock(clock: Clock, db: Db, merchantId: string): Promise<MerchantClockView> {
  const offset = await merchantOffset(db, merchantId);
  return { merchant_id: merchantId, now: formatIso(shifted(clock.now(), offset)), offset_seconds: offset };
}

/** A merchant's sandbox clock moved on: the merchant_clocks row's one column list (D460, "An INSERT is built from its table's column list"). */
const ADVANCE_CLOCK = insertInto(
  'merchant_clocks',
  { merchant_id: VALUE, offset_seconds: VALUE, updated_at: VALUE },
  {
    tail: `ON CONFLICT (merchant_id) DO UPDATE SET offset_seconds = merchant_clocks.offset_seconds + EXCLUDED.offset_seconds,
                                             updated_at = EXCLUDED.updated_at
     RETURNING offset_seconds`,
  },
);

/**
 * Move one merchant's clock forward by `seconds` (1 .. one year; 400 naming `seconds` otherwise). Clocks never move
 * back. Returns the clock after the move.
 */
export async function advanceMerchantClock(clock: Clock, db: Db, merchantId: string, seconds: number): Promise<MerchantClockView> {
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_ADVANCE_SECONDS) {
    throw validationError('seconds', `must be an integer from 1 to ${MAX_ADVANCE_SECONDS}`);
  }
  const { rows } = await db.query<{ offset_seconds: number }>(
    ADVANCE_CLOCK.text,
    ADVANCE_CLOCK.values({ merchant_id: merchantId, offset_seconds: seconds, updated_at: formatIso(clock.now()) }),
  );
  const offset = rows[0]?.offset_seconds ?? seconds;
  return { merchant_id: merchantId, now: formatIso(shifted(clock.now(), offset)), offset_seconds: offset };
}

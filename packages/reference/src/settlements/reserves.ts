import type { Db } from '../db/db.js';

/**
 * Settlement reserves: a refund still INITIATED when a settlement run settles (or has settled) its payment is held back
 * by that settlement as a `refund_reserve` line. When the refund ends, its reserve is resolved exactly once, in the
 * refund's own transaction:
 * - PROCESSED: the reserve is used; the refund counts as deducted by the settlement that held it (its settlement_id),
 *   so no later run deducts it again;
 * - FAILED: the reserve becomes releasable; the next run pays it back as a `reserve_release` line.
 * A refund without a reserve (its payment not settled yet, or processed before any run) is unaffected.
 */
export async function resolveRefundReserve(tx: Db, refundId: string, outcome: 'PROCESSED' | 'FAILED', at: string): Promise<void> {
  const { rows } = await tx.query<{ held_by: string }>(
    `UPDATE settlement_reserves SET status = $2, resolved_at = $3 WHERE refund_id = $1 AND status = 'held' RETURNING held_by`,
    [refundId, outcome === 'PROCESSED' ? 'used' : 'releasable', at],
  );
  const reserve = rows[0];
  if (reserve && outcome === 'PROCESSED') {
    await tx.query('UPDATE refunds SET settlement_id = $2 WHERE id = $1 AND settlement_id IS NULL', [refundId, reserve.held_by]);
  }
}

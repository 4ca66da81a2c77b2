import type { Db } from '../db/db.js';
import { newRandomId, type IdKind } from './ids.js';
import type { SecretBox } from './secret-box.js';
import type { Clock } from './clock.js';

/** Source of row ids. */
export interface IdSource {
  next(tx: Db, kind: IdKind): Promise<string>;
}

/** Where each kind of id lives (the column is the table's primary key, or unique). */
const ID_COLUMN: Record<IdKind, { table: string; column: string }> = {
  order: { table: 'orders', column: 'id' },
  payment: { table: 'payments', column: 'id' },
  refund: { table: 'refunds', column: 'id' },
  settlement: { table: 'settlements', column: 'id' },
  transaction: { table: 'refunds', column: 'transaction_id' },
  merchant: { table: 'merchants', column: 'id' },
};

/** Attempts before giving up: with 10^16 (9 x 10^9 for merchants) ids, a second attempt is already unheard of. */
const ID_ATTEMPTS = 8;

/**
 * Random ids, checked free in the caller's transaction and retried on a collision; the primary key (or unique
 * constraint) is the final guard against a concurrent twin. `draw` is the generator (tests inject collisions).
 */
export function randomIds(draw: (kind: IdKind) => string = newRandomId): IdSource {
  return {
    async next(tx, kind) {
      const { table, column } = ID_COLUMN[kind];
      for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
        const id = draw(kind);
        const { rows } = await tx.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [id]);
        if (rows.length === 0) return id;
      }
      throw new Error(`no free ${kind} id after ${ID_ATTEMPTS} random draws: is the id generator broken?`);
    },
  };
}

/** What every service function needs. */
export interface ServiceDeps {
  db: Db;
  clock: Clock;
  ids: IdSource;
  /**
   * Seals / opens the secrets kept for later use (merchant encryption keys, webhook signing secrets, idempotent
   * responses) under the master key. Contexts: `merchant:<id>:encryption_key`, `webhook_endpoint:<id>:secret`,
   * `idempotency:<credential id>:<key>`.
   */
  secrets: SecretBox;
}

import type { Db } from '../db/db.js';
import { formatMerchantId, formatSequenceId, SEQUENCE_NAME, type SequenceKind } from './ids.js';
import type { SecretBox } from './secret-box.js';
import type { Clock } from './clock.js';

/** Source of sequence-backed ids; the default draws from the PostgreSQL sequences inside the caller's transaction. */
export interface IdSource {
  next(tx: Db, kind: SequenceKind): Promise<string>;
}

export const sequenceIds: IdSource = {
  async next(tx, kind) {
    const { rows } = await tx.query<{ v: number }>(`SELECT nextval('${SEQUENCE_NAME[kind]}') AS v`);
    const v = rows[0]?.v;
    if (v === undefined) throw new Error(`sequence ${SEQUENCE_NAME[kind]} returned no value`);
    return kind === 'merchant' ? formatMerchantId(v) : formatSequenceId(kind, v);
  },
};

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

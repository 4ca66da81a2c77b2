import type { Db } from '../db/db.js';
import { newRandomId, type IdKind } from './ids.js';
import type { SecretBox } from './secret-box.js';
import type { Clock } from './clock.js';
import { insertInto, VALUE } from '../db/insert.js';

/** Source of row ids. */
export interface IdSource {
  next(tx: Db, kind: IdKind): Promise<string>;
  /**
   * A candidate id, not reserved: for a statement that reserves it in `issued_ids` itself (D175: the hosted order is
   * created in one statement) and draws again, up to {@link ID_ATTEMPTS} times, when the reservation finds it taken.
   */
  draw(kind: IdKind): string;
}

/** Attempts before giving up: with 10^16 (9 x 10^9 for merchants) ids, a second attempt is already unheard of. */
export const ID_ATTEMPTS = 8;

/** The error after {@link ID_ATTEMPTS} taken draws. */
export function noFreeId(kind: IdKind): Error {
  return new Error(`no free ${kind} id after ${ID_ATTEMPTS} random draws: is the id generator broken?`);
}

/** An id taken for good: the issued_ids row's one column list (D460, "An INSERT is built from its table's column list"), also used by the hosted order's statement. */
export const ISSUED_ID_COLUMNS = { kind: VALUE, id: VALUE } as const;
const INSERT_ISSUED_ID = insertInto('issued_ids', ISSUED_ID_COLUMNS, { tail: 'ON CONFLICT DO NOTHING RETURNING id' });

/**
 * Random ids, reserved in `issued_ids` in the caller's transaction and drawn again on a collision. The reservation's
 * primary key also covers a concurrent twin: its INSERT waits for the first transaction and, once that commits,
 * finds the id taken and draws again (migration 006). The row's own primary key stays the final guard. `draw` is the
 * generator (tests inject collisions).
 */
export function randomIds(draw: (kind: IdKind) => string = newRandomId): IdSource {
  return {
    draw,
    async next(tx, kind) {
      for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
        const id = draw(kind);
        const { rows } = await tx.query(INSERT_ISSUED_ID.text, INSERT_ISSUED_ID.values({ kind, id }));
        if (rows.length === 1) return id;
      }
      throw noFreeId(kind);
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

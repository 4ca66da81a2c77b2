import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db.js';
import type { EventEnvelope } from './events.js';
import { formatIso, type Micros } from '../core/clock.js';
import { insertInto, VALUE } from '../db/insert.js';

/** An outbox event: the events row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_EVENT = insertInto('events', {
  sequence_number: VALUE,
  type: VALUE,
  partner_id: VALUE,
  merchant_id: VALUE,
  payload: VALUE,
  created_at: VALUE,
});

/**
 * Write an event to the outbox. Call it with the SAME transaction handle as the state change it announces, so
 * the event exists if and only if the change committed. `build` receives the new sequence_number (UUID).
 */
export async function emitEvent<E extends EventEnvelope<string>>(
  tx: Db,
  at: Micros,
  owner: { partnerId: string; merchantId: string },
  build: (sequenceNumber: string) => E,
): Promise<E> {
  const envelope = build(randomUUID());
  await tx.query(
    INSERT_EVENT.text,
    INSERT_EVENT.values({
      sequence_number: envelope.sequence_number,
      type: envelope.event_type,
      partner_id: owner.partnerId,
      merchant_id: owner.merchantId,
      payload: JSON.stringify(envelope),
      created_at: formatIso(at),
    }),
  );
  return envelope;
}

import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db.js';
import type { EventEnvelope } from './events.js';
import { formatIso, type Micros } from '../core/clock.js';

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
    `INSERT INTO events (sequence_number, type, partner_id, merchant_id, payload, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [envelope.sequence_number, envelope.event_type, owner.partnerId, owner.merchantId, JSON.stringify(envelope), formatIso(at)],
  );
  return envelope;
}

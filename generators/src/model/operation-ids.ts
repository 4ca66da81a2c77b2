/** operationIds: an explicit one used twice is refused, synthesised ones that collide get a suffix. */
import { pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import type { OperationModel } from './types.js';

/** Synthesised ids can collide (`/a-b` vs `/a_b`): suffix later ones deterministically. Explicit ids are left alone. */
export function dedupeOperationIds(operations: OperationModel[]): void {
  const seen = new Set<string>();
  for (const op of operations) if (!op.synthesizedId) seen.add(op.operationId);
  for (const op of operations) {
    if (!op.synthesizedId) continue;
    let id = op.operationId;
    for (let n = 2; seen.has(id); n++) id = `${op.operationId}${n}`;
    seen.add(id);
    op.operationId = id;
  }
}

/** Two operations with one explicit operationId would share a handler, a client method and a route-table key. */
export function refuseDuplicateOperationIds(operations: readonly OperationModel[], file: string): void {
  const first = new Map<string, OperationModel>();
  for (const op of operations) {
    if (op.synthesizedId) continue;
    const earlier = first.get(op.operationId);
    if (earlier === undefined) {
      first.set(op.operationId, op);
      continue;
    }
    throw new UnsupportedSpecError(
      file,
      `#/paths/${pointerToken(op.path)}/${op.method}/operationId`,
      `operationId ${JSON.stringify(op.operationId)} is already used by ${earlier.method.toUpperCase()} ${earlier.path}; operationIds must be unique.`,
      'give one of the two operations another operationId (or remove it: a missing one is derived from the method and path).',
    );
  }
}

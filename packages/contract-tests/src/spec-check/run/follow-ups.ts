/**
 * The checks of an operation right after its positive request (D276 checks after a 2xx: Location, replay, reuse), while what it made is fresh: on a 2xx, its
 * Location, an idempotent replay, another tenant's read, an amount above its parent's, boundary values; then, on the
 * 2xx or the last try's request, no or wrong credentials. Then its `positive` event.
 */
import { boundaries } from '../checks/boundaries.js';
import { idempotency } from '../checks/idempotency.js';
import { invariants } from '../checks/invariants.js';
import { isolation } from '../checks/isolation.js';
import { followLocation } from '../checks/stateful.js';
import { unauthenticated } from '../checks/unauthenticated.js';
import { emitPositive } from './events.js';
import type { OpState, RunState } from './state.js';

export async function followUps(run: RunState, state: OpState): Promise<void> {
  const spec = state.success;
  const checks = run.checks;
  if (spec !== undefined) {
    if (checks.has('stateful') && state.successSent) await followLocation(run, state, spec, state.successSent);
    if (checks.has('idempotency') && state.lastResponse && state.op.method === 'post')
      await idempotency(run, state, spec, state.lastResponse);
    if (checks.has('isolation')) await isolation(run, state, spec);
    if (checks.has('invariants')) await invariants(run, state, spec);
    if (checks.has('boundaries')) await boundaries(run, state, spec);
  }
  const basis = spec ?? run.lastSpec.get(state.op.operationId);
  if (basis !== undefined && checks.has('unauthenticated')) await unauthenticated(run, state, basis);
  emitPositive(run, state);
}

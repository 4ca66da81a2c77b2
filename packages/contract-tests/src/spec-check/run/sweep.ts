/**
 * The stateless checks of every operation, after the stateful run (D276 checks after a 2xx: Location, replay, reuse): negative data and undeclared methods on the
 * request that worked (or the last one tried). They come last so that a stateful defect shows after a few hundred
 * requests, not after every negative variant of every operation before it. Then the operation's final event.
 */
import { unsupportedMethod } from '../checks/methods.js';
import { negatives } from '../checks/negative.js';
import { emitOperation } from './events.js';
import type { OpState, RunState } from './state.js';

export async function sweep(run: RunState, state: OpState): Promise<void> {
  const basis = state.success ?? run.lastSpec.get(state.op.operationId);
  if (basis !== undefined) {
    if (run.checks.has('negative')) await negatives(run, state, basis);
    if (run.checks.has('methods')) await unsupportedMethod(run, state, basis);
  }
  const failed = state.cases.some((c) => c.failures.length > 0);
  state.outcome = failed ? 'failed' : state.outcome;
  emitOperation(run, state);
}

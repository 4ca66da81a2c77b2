/**
 * Clean-up (D273 contract checker sends only reserved hosts): what this run made and a selected delete operation (one path parameter) can remove is deleted, as
 * the set that made it; what is left is reported (`leftBehind`). Skipped when the run timed out or stopped early.
 */
import { included, setsFor } from '../credentials.js';
import type { OperationInfo } from '../document.js';
import { inputKey } from '../pool.js';
import { pathOnlyRequest } from '../request/request-spec.js';
import type { ApiCheckReport } from '../types.js';
import { runCase } from './run-case.js';
import { DeadlineReached, FirstFailure, stateOf, type RunState } from './state.js';

export async function cleanUp(run: RunState): Promise<ApiCheckReport['leftBehind']> {
  if (!run.timedOut && !run.stoppedEarly) {
    const { include = [], exclude = [] } = run.options;
    for (const op of run.allOperations.filter((o) => o.method === 'delete' && included(o, include, exclude)))
      await deleteWhatItCan(run, op);
  }
  return leftBehind(run);
}

/** Every value the run made that `op` takes, deleted (a failure with `failFast` or the deadline ends it). */
async function deleteWhatItCan(run: RunState, op: OperationInfo): Promise<void> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  if (pathParams.length !== 1) return;
  const param = pathParams[0]!;
  const key = inputKey(param.name);
  const state = stateOf(run, op);
  for (const made of run.pool.candidates(key, (v) => run.validators.accepts(param.schemaAt, v), undefined)) {
    if (!made.created || run.deleted.some((d) => d.key === key && d.value === made.value)) continue;
    const set = run.sets.find((s) => s.name === made.set) ?? setsFor(op, run.sets, run.rules, run.learntSets)[0];
    const request = pathOnlyRequest(op, set, { [param.name]: String(made.value) }, `clean-up of what ${made.from} made`);
    try {
      const sent = await runCase(run, state, 'cleanup', request, () => undefined);
      if (sent && sent.response.status < 300) run.deleted.push({ key, value: made.value });
    } catch (error) {
      if (error instanceof FirstFailure) return;
      if (!(error instanceof DeadlineReached)) throw error;
      run.timedOut = true;
      return;
    }
  }
}

/** What the run made (not the spec's examples) and did not delete. */
function leftBehind(run: RunState): ApiCheckReport['leftBehind'] {
  const left: ApiCheckReport['leftBehind'] = [];
  for (const key of run.pool.keys)
    for (const v of run.pool.candidates(key, () => true, undefined))
      if (v.created && !run.deleted.some((d) => d.key === key && d.value === v.value) && v.from !== '')
        left.push({ key, value: String(v.value), from: v.from });
  return left;
}

/** The progress events of a run (`onEvent`, D277): an operation's positive answer, then its finished line. */
import type { OpState, RunState } from './state.js';

/** The positive request and the stateful checks of an operation are done. */
export function emitPositive(run: RunState, state: OpState): void {
  run.options.onEvent?.({
    type: 'positive',
    operationId: state.op.operationId,
    method: state.op.method.toUpperCase(),
    path: state.op.path,
    status: state.lastResponse?.status,
    credentialSet: state.success?.set?.name,
  });
}

/** Every check of an operation is done (once per operation). */
export function emitOperation(run: RunState, state: OpState): void {
  run.emitted.add(state.op.operationId);
  run.options.onEvent?.({
    type: 'operation',
    operationId: state.op.operationId,
    method: state.op.method.toUpperCase(),
    path: state.op.path,
    outcome: state.outcome ?? 'skipped',
    note: state.outcome === 'passed' ? undefined : state.note,
    credentialSet: state.success?.set?.name,
    cases: state.cases,
    durationMs: Math.round(performance.now() - (state.startedAt ?? performance.now())),
  });
}

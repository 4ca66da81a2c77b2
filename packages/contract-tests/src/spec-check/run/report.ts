/**
 * The end of a run: every operation's final outcome and event (those the run did not reach: `skipped`, with why), the
 * run-level failures (unseen response properties with `failOnUnseenProperties`, the time bound), and the report.
 */
import type { ApiCheckReport, CheckCase } from '../types.js';
import { emitOperation } from './events.js';
import type { RunState } from './state.js';

/** Outcomes and `operation` events of the operations the sweep did not finish. */
export function settleOutcomes(run: RunState): void {
  for (const state of run.states.values()) {
    if (run.emitted.has(state.op.operationId)) continue;
    if (state.outcome === undefined) {
      state.outcome = 'skipped';
      state.note = run.timedOut
        ? 'not run: the run reached its time bound'
        : run.stoppedEarly
          ? 'not run: stopped at the first failure'
          : state.note;
    } else if (state.cases.some((c) => c.failures.length > 0)) state.outcome = 'failed';
    emitOperation(run, state);
  }
}

/** A failure of the run as a whole, as a case of its own. */
function runFailureCase(
  operationId: string,
  request: string,
  failure: Omit<CheckCase['failures'][number], 'operationId' | 'status'>,
): CheckCase {
  return {
    operationId,
    check: 'positive',
    request,
    status: undefined,
    durationMs: 0,
    failures: [
      {
        check: failure.check,
        operationId,
        status: undefined,
        pointer: failure.pointer,
        message: failure.message,
        request: failure.request,
      },
    ],
  };
}

export function assembleReport(run: RunState, leftBehind: ApiCheckReport['leftBehind']): ApiCheckReport {
  const unseenProperties = run.properties.unseen((pointer) => run.r.at(pointer), run.r.deref);
  if (run.options.failOnUnseenProperties)
    for (const u of unseenProperties)
      run.cases.push(
        runFailureCase(u.operationId, `responses ${u.status} ${u.mediaType}`, {
          check: 'unseen_response_properties',
          pointer: u.schemaAt,
          message: `declared but never seen in any ${u.status} answer: ${u.unseen.join(', ')}`,
          request: `${u.operationId} ${u.status}`,
        }),
      );
  if (run.timedOut)
    run.cases.push(
      runFailureCase('(run)', 'the whole run', {
        check: 'time_bound',
        pointer: '#',
        message: `the run reached its time bound (${run.options.maxTimeMs} ms) before every operation was checked`,
        request: '',
      }),
    );
  const failures = run.cases.flatMap((c) => c.failures);
  return {
    ok: failures.length === 0,
    cases: run.cases,
    failures,
    coverage: run.operations.map((op) => ({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      statuses: Object.fromEntries(run.coverage.get(op.operationId)!),
      outcome: run.states.get(op.operationId)!.outcome ?? 'skipped',
    })),
    unseenProperties,
    leftBehind,
    timedOut: run.timedOut,
    durationMs: Math.round(performance.now() - run.startedAt),
  };
}

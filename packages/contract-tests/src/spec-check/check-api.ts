import { boundaries } from './checks/boundaries.js';
import { idempotency } from './checks/idempotency.js';
import { invariants } from './checks/invariants.js';
import { isolation } from './checks/isolation.js';
import { unsupportedMethod } from './checks/methods.js';
import { negatives } from './checks/negative.js';
import { attemptPositive as attemptPositiveOf, judgeRefusal } from './checks/positive.js';
import { followLocation, readAgainAtEnd, rememberDeleted, useAfterFree } from './checks/stateful.js';
import { unauthenticated } from './checks/unauthenticated.js';
import { included, setsFor, type CredentialSet } from './credentials.js';
import type { OperationInfo } from './document.js';
import { planOrder } from './operation-order.js';
import { inputKey, type Scalar } from './pool.js';
import { positiveSpec as buildPositiveSpec } from './request/positive-request.js';
import { emitOperation } from './run/events.js';
import { runCase as runOneCase } from './run/run-case.js';
import { DeadlineReached, FirstFailure, createRunState, type OpState } from './run/state.js';
import type { ApiCheckReport, CheckApiOptions } from './types.js';

export async function checkApi(options: CheckApiOptions): Promise<ApiCheckReport> {
  const run = createRunState(options);
  const { r, allOperations, operations, sets, rules, checks, settleMs, sleep } = run;
  const { validators, pool, learntSets, cases, coverage, properties, states, deleted, lastSpec, emitted } = run;
  const positiveSpec = (state: OpState, set: CredentialSet | undefined, pins: Record<string, Scalar>, final: boolean) =>
    buildPositiveSpec(run, state, set, pins, final);
  const emit = (state: OpState) => emitOperation(run, state);
  const attemptPositive = (state: OpState, final: boolean) => attemptPositiveOf(run, state, final);

  /** The checks of an operation after its positive request (a success, or the last answer on the final try). */
  const followUps = async (state: OpState): Promise<void> => {
    const spec = state.success;
    if (spec !== undefined) {
      if (checks.has('stateful') && state.successSent) await followLocation(run, state, spec, state.successSent);
      if (checks.has('idempotency') && state.lastResponse && state.op.method === 'post')
        await idempotency(run, state, spec, state.lastResponse);
      if (checks.has('isolation')) await isolation(run, state, spec);
      if (checks.has('invariants')) await invariants(run, state, spec);
      if (checks.has('boundaries')) await boundaries(run, state, spec);
    }
    const basis = spec ?? lastSpec.get(state.op.operationId);
    if (basis !== undefined && checks.has('unauthenticated')) await unauthenticated(run, state, basis);
    options.onEvent?.({
      type: 'positive',
      operationId: state.op.operationId,
      method: state.op.method.toUpperCase(),
      path: state.op.path,
      status: state.lastResponse?.status,
      credentialSet: state.success?.set?.name,
    });
  };

  /**
   * The stateless checks of every operation, after the stateful run (D276): negative data and undeclared methods on
   * the request that worked. They come last so that a stateful defect shows after a few hundred requests, not after
   * every negative variant of every operation before it.
   */
  const sweep = async (state: OpState): Promise<void> => {
    const basis = state.success ?? lastSpec.get(state.op.operationId);
    if (basis !== undefined) {
      if (checks.has('negative')) await negatives(run, state, basis);
      if (checks.has('methods')) await unsupportedMethod(run, state, basis);
    }
    const failed = state.cases.some((c) => c.failures.length > 0);
    state.outcome = failed ? 'failed' : state.outcome;
    emit(state);
  };

  const order = planOrder(operations, r);
  const mainOps = order.filter((op) => op.method !== 'delete');
  const deleteOps = order.filter((op) => op.method === 'delete');

  const finishPositive = async (state: OpState, result: Awaited<ReturnType<typeof attemptPositive>>) => {
    if (result === 'passed') state.outcome = 'passed';
    else state.outcome = result === 'failed' ? 'failed' : 'unreached';
    await followUps(state);
  };

  const runPhase = async (ops: readonly OperationInfo[]) => {
    const pending = ops.map((op) => states.get(op.operationId)!);
    let settleLeft = settleMs;
    for (let round = 0; round < 6 && pending.some((s) => s.outcome === undefined); round++) {
      let progress = false;
      for (const state of pending) {
        if (state.outcome !== undefined) continue;
        const result = await attemptPositive(state, false);
        if (result === 'passed' || result === 'failed') {
          progress = true;
          await finishPositive(state, result);
        }
      }
      if (!progress && round >= 1) {
        // what is left may wait for something the API does on its own time (a worker): give it a moment, bounded
        if (settleLeft <= 0) break;
        const wait = Math.min(settleLeft, 500 * 2 ** Math.min(round, 3));
        settleLeft -= wait;
        await sleep(wait);
      }
    }
    for (const state of pending) {
      if (state.outcome !== undefined) continue;
      const result = await attemptPositive(state, true);
      judgeRefusal(state, result);
      const spec = positiveSpec(state, setsFor(state.op, sets, rules, learntSets)[0], {}, true);
      if (!('waiting' in spec)) lastSpec.set(state.op.operationId, spec);
      await finishPositive(state, result);
    }
  };

  try {
    await runPhase(mainOps);
    if (checks.has('stateful')) await readAgainAtEnd(run, mainOps);
    await runPhase(deleteOps);
    rememberDeleted(run, deleteOps);
    if (checks.has('stateful')) await useAfterFree(run);
    for (const op of order) await sweep(states.get(op.operationId)!);
  } catch (error) {
    if (error instanceof FirstFailure) run.stoppedEarly = true;
    else if (!(error instanceof DeadlineReached)) throw error;
    else run.timedOut = true;
  }

  // clean-up: what this run made and a delete operation can remove
  const leftBehind: ApiCheckReport['leftBehind'] = [];
  if (!run.timedOut && !run.stoppedEarly) {
    for (const op of allOperations.filter((o) => o.method === 'delete' && included(o, options.include ?? [], options.exclude ?? []))) {
      const pathParams = op.params.filter((p) => p.in === 'path');
      if (pathParams.length !== 1) continue;
      const key = inputKey(pathParams[0]!.name);
      const state = states.get(op.operationId)!;
      for (const made of pool.candidates(key, (v) => validators.accepts(pathParams[0]!.schemaAt, v), undefined)) {
        if (!made.created || deleted.some((d) => d.key === key && d.value === made.value)) continue;
        const set = sets.find((s) => s.name === made.set) ?? setsFor(op, sets, rules, learntSets)[0];
        try {
          const sent = await runOneCase(
            run,
            state,
            'cleanup',
            {
              op,
              set,
              authMode: 'normal',
              path: { [pathParams[0]!.name]: String(made.value) },
              params: [],
              media: undefined,
              body: undefined,
              uses: new Map(),
              note: `clean-up of what ${made.from} made`,
            },
            () => undefined,
          );
          if (sent && sent.response.status < 300) deleted.push({ key, value: made.value });
        } catch (error) {
          if (error instanceof FirstFailure) break;
          if (!(error instanceof DeadlineReached)) throw error;
          run.timedOut = true;
          break;
        }
      }
    }
  }
  for (const key of pool.keys)
    for (const v of pool.candidates(key, () => true, undefined))
      if (v.created && !deleted.some((d) => d.key === key && d.value === v.value) && v.from !== '')
        leftBehind.push({ key, value: String(v.value), from: v.from });

  for (const state of states.values()) {
    if (emitted.has(state.op.operationId)) continue;
    if (state.outcome === undefined) {
      state.outcome = 'skipped';
      state.note = run.timedOut
        ? 'not run: the run reached its time bound'
        : run.stoppedEarly
          ? 'not run: stopped at the first failure'
          : state.note;
    } else if (state.cases.some((c) => c.failures.length > 0)) state.outcome = 'failed';
    emit(state);
  }

  const unseenProperties = properties.unseen((pointer) => r.at(pointer), r.deref);
  if (options.failOnUnseenProperties)
    for (const u of unseenProperties)
      cases.push({
        operationId: u.operationId,
        check: 'positive',
        request: `responses ${u.status} ${u.mediaType}`,
        status: undefined,
        durationMs: 0,
        failures: [
          {
            check: 'unseen_response_properties',
            operationId: u.operationId,
            status: undefined,
            pointer: u.schemaAt,
            message: `declared but never seen in any ${u.status} answer: ${u.unseen.join(', ')}`,
            request: `${u.operationId} ${u.status}`,
          },
        ],
      });
  if (run.timedOut)
    cases.push({
      operationId: '(run)',
      check: 'positive',
      request: 'the whole run',
      status: undefined,
      durationMs: 0,
      failures: [
        {
          check: 'time_bound',
          operationId: '(run)',
          status: undefined,
          pointer: '#',
          message: `the run reached its time bound (${options.maxTimeMs} ms) before every operation was checked`,
          request: '',
        },
      ],
    });

  const failures = cases.flatMap((c) => c.failures);
  return {
    ok: failures.length === 0,
    cases,
    failures,
    coverage: operations.map((op) => ({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      statuses: Object.fromEntries(coverage.get(op.operationId)!),
      outcome: states.get(op.operationId)!.outcome ?? 'skipped',
    })),
    unseenProperties,
    leftBehind,
    timedOut: run.timedOut,
    durationMs: Math.round(performance.now() - run.startedAt),
  };
}

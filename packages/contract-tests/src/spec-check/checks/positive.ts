/**
 * positive: each operation reaches a 2xx with positive data (D270 stateful contract checker; D272 contract request bodies per media type). Its request carries what earlier answers
 * made; a 401/403 tries the next credential set; a 4xx that names an input teaches the next try; an operation that
 * still cannot succeed waits for the next round, then gets fresh resources. A final refusal other than the
 * state-dependent ones fails `positive_data_acceptance` (Schemathesis' rule).
 */
import type { CheckFailure } from '../conformance.js';
import { setsFor } from '../credentials.js';
import { inputKey, type Scalar } from '../pool.js';
import { positiveSpec } from '../request/positive-request.js';
import { isSecured, type RequestSpec } from '../request/request-spec.js';
import { learnFrom } from '../run/learn-from-answer.js';
import { remake } from '../run/remake.js';
import { runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';

/** `passed`: a 2xx; `failed`: a 5xx or no answer; `waiting`/`deferred`: try again in a later round; `unreached`: final. */
export type PositiveResult = 'passed' | 'failed' | 'waiting' | 'deferred' | 'unreached';

/**
 * Tries an operation's positive request (learning as it goes); on the final try (`final`) anything but a 2xx is
 * recorded as it is.
 */
export async function attemptPositive(run: RunState, state: OpState, final: boolean): Promise<PositiveResult> {
  const op = state.op;
  state.startedAt ??= performance.now();
  state.rounds++;
  const candidates = setsFor(op, run.sets, run.rules, run.learntSets);
  const secured = isSecured(op);
  const best = () => (secured ? candidates[0] : (candidates[0] ?? undefined));
  const tried = new Set<string>();
  let set = best();
  const pins: Record<string, Scalar> = {};
  let recovered = 0;
  for (let attempt = 0; attempt < 10; attempt++) {
    const spec = positiveSpec(run, state, set, pins, final);
    if ('waiting' in spec) {
      if (await madeWhatItWaitsFor(run, state, spec.waiting, pins)) continue;
      state.note = `waits for a ${spec.waiting} no answer has carried yet`;
      return 'waiting';
    }
    if (attempt > 0 && spec.note === undefined) spec.note = 'retry';
    const sent = await runCase(run, state, 'positive', spec, () => undefined);
    if (sent === undefined) return 'failed';
    const status = sent.response.status;
    state.lastResponse = { status, text: sent.text };
    if (status < 300) {
      state.success = spec;
      state.successSent = sent;
      if (set) run.learntSets.set(op.operationId, set.name);
      return 'passed';
    }
    if (status >= 500) return 'failed';
    if ((status === 401 || status === 403) && secured) {
      if (set) tried.add(set.name);
      const next = candidates.find((s) => !tried.has(s.name));
      if (next !== undefined) {
        set = next;
        continue;
      }
    }
    // what the answer teaches is tried with the best set again (a 401 about a used session is no credential's fault)
    if (learnFrom(run, state, spec, sent.text) !== undefined) {
      tried.clear();
      set = best();
      continue;
    }
    if (!final && state.rounds < 2) {
      state.note = `answered ${status}`;
      return 'deferred';
    }
    if (recovered < 3) {
      recovered++;
      if (await remadeAnInput(run, spec, pins)) {
        tried.clear();
        set = best();
        continue;
      }
    }
    state.note = `no 2xx: answered ${status}`;
    return final ? 'unreached' : 'deferred';
  }
  return final ? 'unreached' : 'deferred';
}

/** Nothing made a path input yet (from the second round): what can make it runs again (a list that was empty...). */
async function madeWhatItWaitsFor(run: RunState, state: OpState, waiting: string, pins: Record<string, Scalar>): Promise<boolean> {
  if (state.rounds < 2) return false;
  const value = await remake(run, inputKey(waiting), undefined, 0);
  if (value === undefined) return false;
  pins[inputKey(waiting)] = value;
  return true;
}

/** Fresh resources: the first pooled input this request used (path inputs first) that its producer makes again. */
async function remadeAnInput(run: RunState, spec: RequestSpec, pins: Record<string, Scalar>): Promise<boolean> {
  const pooled = [...spec.uses.entries()]
    .filter(([, u]) => u.pooled)
    .sort(([a], [b]) => Number(b.startsWith('path:')) - Number(a.startsWith('path:')));
  for (const [, use] of pooled) {
    const value = await remake(run, use.key, use.value, 0);
    if (value !== undefined) {
      pins[use.key] = value;
      return true;
    }
  }
  return false;
}

/**
 * After the final try without a 2xx: a last positive 4xx fails `positive_data_acceptance`, unless it is one the API
 * may give to correct data (Schemathesis: 401, 403, 404; and the state-dependent 409, 410, 422).
 */
export function judgeRefusal(state: OpState, result: PositiveResult): void {
  const lastPositive = [...state.cases].reverse().find((c) => c.check === 'positive');
  if (result === 'passed' || !lastPositive || lastPositive.status === undefined) return;
  const status = lastPositive.status;
  if (status < 400 || status >= 500 || [401, 403, 404, 409, 410, 422].includes(status)) return;
  const failure: CheckFailure = {
    check: 'positive_data_acceptance',
    operationId: state.op.operationId,
    status,
    pointer: state.op.at,
    message: `positive data was refused with ${status} after every credential set and what its answers taught; body: ${state.lastResponse?.text.slice(0, 200) ?? ''}`,
    request: lastPositive.request,
  };
  lastPositive.failures.push(failure);
}

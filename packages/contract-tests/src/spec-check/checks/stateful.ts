/**
 * stateful: what an answer says holds for later requests (D276 checks after a 2xx: Location, replay, reuse). A 2xx's `Location` that names one of the API's own
 * paths is readable (`ensure_resource_availability`); a collection read before the run made anything still answers
 * 2xx at the end; what a delete removed is gone for every by-id read that takes it (`use_after_free`).
 */
import { setsFor } from '../credentials.js';
import type { OperationInfo } from '../document.js';
import { inputKey } from '../pool.js';
import { pathOnlyRequest, type RequestSpec, type Sent } from '../request/request-spec.js';
import { is4xx, runCase } from '../run/run-case.js';
import { stateOf, type OpState, type RunState } from '../run/state.js';

/** A 2xx that names another of the API's paths in `Location` is followed with GET (Schemathesis' ensure_resource_availability). */
export async function followLocation(run: RunState, state: OpState, spec: RequestSpec, sent: Sent): Promise<void> {
  const location = sent.response.headers.get('location');
  if (!location) return;
  const target = new URL(location, `${run.base}/`);
  if (target.origin !== run.baseUrl.origin) return;
  const relative = target.pathname.startsWith(run.basePath) ? target.pathname.slice(run.basePath.length) : target.pathname;
  const params = run.pool.paramsOfUrl(relative);
  const next = run.operations.find(
    (o) =>
      o.method === 'get' &&
      params !== undefined &&
      Object.keys(params).every((k) => o.params.some((p) => p.in === 'path' && p.name === k)) &&
      o.params.filter((p) => p.in === 'path').length === Object.keys(params).length,
  );
  if (next === undefined || params === undefined) return;
  await runCase(
    run,
    stateOf(run, next),
    'stateful',
    pathOnlyRequest(next, spec.set, params, `Location of ${state.op.operationId}`),
    (status) => (is4xx(status) ? `following the Location of ${state.op.operationId} answered ${status}` : undefined),
    { failureCheck: 'ensure_resource_availability' },
  );
}

/** Reads again what was read before the run made anything (a list that was empty then), for property coverage. */
export async function readAgainAtEnd(run: RunState, ops: readonly OperationInfo[]): Promise<void> {
  for (const op of ops) {
    const state = stateOf(run, op);
    if (op.method !== 'get' || state.success === undefined || op.params.some((p) => p.in === 'path')) continue;
    await runCase(run, state, 'stateful', { ...state.success, note: 'read again at the end' }, (status) =>
      status >= 300 ? `read again at the end of the run, it answered ${status} (it answered 2xx before)` : undefined,
    );
  }
}

/** Records what each delete removed: the resource its path ends with (`/endpoints/{id}`, not `/merchants/{id}/credentials/previous`). */
export function rememberDeleted(run: RunState, deleteOps: readonly OperationInfo[]): void {
  for (const state of deleteOps.map((op) => stateOf(run, op))) {
    const last = /\{([^}]+)\}\/?$/.exec(state.op.path)?.[1];
    const use = last === undefined ? undefined : state.success?.uses.get(`path:${last.toLowerCase()}`);
    if (use !== undefined) run.deleted.push({ key: use.key, value: use.value });
  }
}

/** Use after free: what a delete removed is gone for every GET whose one path parameter takes it. */
export async function useAfterFree(run: RunState): Promise<void> {
  for (const gone of run.deleted) {
    for (const op of run.operations) {
      if (op.method !== 'get') continue;
      const pathParams = op.params.filter((p) => p.in === 'path');
      if (pathParams.length !== 1 || inputKey(pathParams[0]!.name) !== gone.key) continue;
      const set = setsFor(op, run.sets, run.rules, run.learntSets)[0];
      await runCase(
        run,
        stateOf(run, op),
        'stateful',
        pathOnlyRequest(op, set, { [pathParams[0]!.name]: String(gone.value) }, `after its delete`),
        (status) => (status < 300 ? `${gone.key} ${gone.value} was deleted and still answers ${status}` : undefined),
        { failureCheck: 'use_after_free' },
      );
    }
  }
}

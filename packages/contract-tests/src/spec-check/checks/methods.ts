/**
 * methods: a method the spec does not declare for a path (the first of PUT, PATCH, POST, DELETE it lacks) is refused
 * with a 4xx, once per path: `unsupported_method`. The answer is not checked against the spec (none is declared).
 */
import type { RequestSpec } from '../request/request-spec.js';
import { expect4xx, runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';

export async function unsupportedMethod(run: RunState, state: OpState, spec: RequestSpec): Promise<void> {
  const path = state.op.path;
  if (run.methodsChecked.has(path)) return;
  run.methodsChecked.add(path);
  const declared = new Set(run.allOperations.filter((o) => o.path === path).map((o) => o.method));
  const method = ['put', 'patch', 'post', 'delete'].find((m) => !declared.has(m));
  if (method === undefined) return;
  await runCase(
    run,
    state,
    'methods',
    { ...spec, method, media: undefined, body: undefined, note: `${method.toUpperCase()} is not declared for ${path}` },
    expect4xx(`an undeclared method`),
    { conformance: false, failureCheck: 'unsupported_method' },
  );
}

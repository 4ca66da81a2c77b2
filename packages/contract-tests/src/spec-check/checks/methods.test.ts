import { describe, expect, it } from 'vitest';
import { recordingFetch, runFor } from '../testing/things-api.js';
import { unsupportedMethod } from './methods.js';

describe('methods: an undeclared method is refused', () => {
  it('sends the first of PUT, PATCH, POST, DELETE the path lacks, once per path, without a body; a 405 passes', async () => {
    const api = recordingFetch(() => new Response(null, { status: 405 }));
    const { run, state, spec } = runFor('listThings', api.fetch);
    await unsupportedMethod(run, state, spec);
    await unsupportedMethod(run, state, spec);
    // GET and PUT are declared for /things: PATCH is the first one that is not; the second call sends nothing
    expect(api.calls.map((c) => `${c.method} ${c.url}`)).toEqual(['PATCH http://api.example/things']);
    expect(run.cases).toHaveLength(1);
    expect(run.cases[0]).toMatchObject({ check: 'methods', status: 405, failures: [] });
    expect(run.cases[0]!.request).toBe('PATCH /things (PATCH is not declared for /things)');
    expect(state.cases).toEqual(run.cases);
  });

  it('fails unsupported_method when the undeclared method is answered 2xx (its answer is not checked against the spec)', async () => {
    const api = recordingFetch(() => new Response('{"not":"declared"}', { status: 200, headers: { 'Content-Type': 'application/json' } }));
    const { run, state, spec } = runFor('listThings', api.fetch);
    await unsupportedMethod(run, state, spec);
    const failures = run.cases.flatMap((c) => c.failures);
    expect(failures.map((f) => f.check)).toEqual(['unsupported_method']);
    expect(failures[0]!.message).toMatch(/^an undeclared method was answered 200, not a 4xx/);
    // no conformance: the status is not counted against the operation's declared statuses
    expect([...run.coverage.get('listThings')!.values()]).toEqual([0, 0]);
  });

  it('sends nothing for a path that declares every one of them', async () => {
    const api = recordingFetch(() => new Response(null, { status: 405 }));
    const { run, state, spec } = runFor('listThings', api.fetch);
    for (const method of ['patch', 'post', 'delete']) run.allOperations.push({ ...state.op, method, operationId: `${method}Things` });
    await unsupportedMethod(run, state, spec);
    expect(api.calls).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { recordingFetch, runFor, type Call } from '../testing/things-api.js';
import { unauthenticated } from './unauthenticated.js';

/** The API as it should be: both keys, right, or 401. */
const strict = (call: Call) =>
  call.headers['X-Key'] === 'right-key' && call.headers['X-Secret'] === 'right-secret'
    ? new Response('[]', { status: 200, headers: { 'Content-Type': 'application/json' } })
    : new Response(null, { status: 401 });

describe('unauthenticated: a secured operation refuses missing, wrong and partial credentials', () => {
  it('sends no credentials, wrong ones, and each scheme of the AND dropped; 401s pass', async () => {
    const api = recordingFetch(strict);
    const { run, state, spec } = runFor('listThings', api.fetch, { concurrency: 1 });
    await unauthenticated(run, state, spec);
    const sent = api.calls.map((c) => ({ key: c.headers['X-Key'], secret: c.headers['X-Secret'] }));
    expect(sent).toHaveLength(4);
    expect(sent[0]).toEqual({ key: undefined, secret: undefined });
    expect(sent[1]!.key).toMatch(/^invalid-/);
    expect(sent[1]!.secret).toMatch(/^invalid-/);
    expect(sent[2]).toEqual({ key: undefined, secret: 'right-secret' });
    expect(sent[3]).toEqual({ key: 'right-key', secret: undefined });
    expect(run.cases.map((c) => c.request)).toEqual([
      'GET /things (no credentials)',
      'GET /things (wrong credentials)',
      'GET /things (without key)',
      'GET /things (without secret)',
    ]);
    expect(run.cases.every((c) => c.check === 'unauthenticated' && c.status === 401 && c.failures.length === 0)).toBe(true);
  });

  it('fails ignored_auth for each variant a deployment answers 2xx', async () => {
    // this one checks only that a key is there
    const api = recordingFetch((call) =>
      call.headers['X-Key'] !== undefined
        ? new Response('[]', { status: 200, headers: { 'Content-Type': 'application/json' } })
        : new Response(null, { status: 401 }),
    );
    const { run, state, spec } = runFor('listThings', api.fetch, { concurrency: 1 });
    await unauthenticated(run, state, spec);
    const failed = run.cases.filter((c) => c.failures.length > 0);
    expect(failed.map((c) => c.request)).toEqual(['GET /things (wrong credentials)', 'GET /things (without secret)']);
    expect(failed.flatMap((c) => c.failures.map((f) => f.check))).toEqual(['ignored_auth', 'ignored_auth']);
  });

  it('sends nothing for an operation that needs no credentials', async () => {
    const api = recordingFetch(strict);
    const { run, state, spec } = runFor('getPublic', api.fetch);
    await unauthenticated(run, state, spec);
    expect(api.calls).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { runCase } from '../run/run-case.js';
import { recordingFetch, runFor, type Call } from '../testing/things-api.js';
import { idempotency } from './idempotency.js';

const json = (status: number, value: unknown) =>
  new Response(JSON.stringify(value), { status, headers: { 'Content-Type': 'application/json' } });

/** A POST /things that keeps its keys (`honest`), or runs every request again (`twice`), or ignores the body (`lax`). */
function things(kind: 'honest' | 'twice' | 'lax') {
  const seen = new Map<string, { body: string | undefined; answer: unknown }>();
  let made = 0;
  return (call: Call) => {
    const key = call.headers['Idempotency-Key']!;
    const earlier = seen.get(key);
    if (earlier !== undefined && kind !== 'twice') {
      if (kind === 'honest' && earlier.body !== call.body) return new Response(null, { status: 422 });
      return json(201, earlier.answer);
    }
    const answer = { id: `t_${++made}`, name: (JSON.parse(call.body!) as { name: string }).name };
    seen.set(key, { body: call.body, answer });
    return json(201, answer);
  };
}

/** The accepted POST (as the positive check sends it), then the idempotency check on its answer. */
async function check(kind: 'honest' | 'twice' | 'lax') {
  const api = recordingFetch(things(kind));
  const { run, state, spec } = runFor('createThing', api.fetch);
  const sent = await runCase(run, state, 'positive', spec, () => undefined);
  await idempotency(run, state, spec, { status: sent!.response.status, text: sent!.text });
  return { api, cases: run.cases.filter((c) => c.check === 'idempotency') };
}

describe('idempotency: a replay gets the first answer, a key never serves another body', () => {
  it('replays with the same key and body, then sends the same key with another valid body; a deployment that keeps keys passes', async () => {
    const { api, cases } = await check('honest');
    expect(api.calls).toHaveLength(3);
    const [first, replay, other] = api.calls;
    expect(replay!.headers['Idempotency-Key']).toBe(first!.headers['Idempotency-Key']);
    expect(replay!.body).toBe(first!.body);
    expect(other!.headers['Idempotency-Key']).toBe(first!.headers['Idempotency-Key']);
    expect(other!.body).not.toBe(first!.body);
    expect(cases.map((c) => [c.status, c.failures.length])).toEqual([
      [201, 0],
      [422, 0],
    ]);
  });

  it('fails idempotent_replay when the replay made a second resource (another body: it ran twice)', async () => {
    const { cases } = await check('twice');
    const failures = cases.flatMap((c) => c.failures);
    expect(failures[0]).toMatchObject({ check: 'idempotent_replay', operationId: 'createThing' });
    expect(failures[0]!.message).toMatch(/got another body than the first: it ran twice/);
  });

  it('fails idempotent_replay when the same key with another body is answered 2xx', async () => {
    const { cases } = await check('lax');
    expect(cases[0]!.failures).toEqual([]);
    expect(cases[1]!.failures.map((f) => f.check)).toEqual(['idempotent_replay']);
    expect(cases[1]!.failures[0]!.message).toMatch(/with another body was answered 201: a key must not serve two requests/);
  });
});

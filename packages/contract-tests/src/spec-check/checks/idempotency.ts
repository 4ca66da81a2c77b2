/**
 * idempotency: a POST sent with an idempotency key is replayed with the same key and gets the same status and body
 * (else it ran twice); the same key with another valid body is not a 2xx (the IETF Idempotency-Key draft):
 * `idempotent_replay`.
 */
import { isFileSchema } from '../bodies.js';
import { isObj } from '../document.js';
import { IDEMPOTENCY, type RequestSpec } from '../request/request-spec.js';
import { childPointer, collectProperties } from '../request/schema-paths.js';
import { uniqueValue } from '../request/unique-values.js';
import { runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';
import type { Json, JsonObject } from '../samples.js';

/** `first`: the answer of the accepted request. */
export async function idempotency(
  run: RunState,
  state: OpState,
  spec: RequestSpec,
  first: { status: number; text: string },
): Promise<void> {
  const keyParam = spec.params.find(([p]) => IDEMPOTENCY.test(p.name));
  if (keyParam === undefined) return;
  const name = keyParam[0].name;
  const replay = await runCase(
    run,
    state,
    'idempotency',
    { ...spec, note: `replay with ${name} ${String(keyParam[1])}` },
    (status, sent) => {
      if (status !== first.status) return `a replay with the same ${name} was answered ${status}, the first ${first.status}: it ran twice`;
      if (stableJson(sent.text) !== stableJson(first.text))
        return `a replay with the same ${name} got another body than the first: it ran twice (first: ${first.text.slice(0, 200)})`;
      return undefined;
    },
    { failureCheck: 'idempotent_replay' },
  );
  if (replay === undefined || spec.body === undefined || !isObj(spec.body) || spec.media === undefined) return;
  const changed = changedBody(run, spec);
  if (changed === undefined) return;
  await runCase(
    run,
    state,
    'idempotency',
    { ...spec, body: changed, note: `same ${name}, another body` },
    (status) => (status < 300 ? `the same ${name} with another body was answered ${status}: a key must not serve two requests` : undefined),
    { failureCheck: 'idempotent_replay' },
  );
}

/** JSON compared without its formatting (text that is not JSON as it is). */
function stableJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/** The accepted body with one string (else number) property changed, still valid. */
function changedBody(run: RunState, spec: RequestSpec): Json | undefined {
  const body = spec.body as JsonObject;
  const schemaAt = spec.media!.schemaAt;
  const props = collectProperties(run.r, schemaAt);
  for (const [name, value] of Object.entries(body)) {
    // a file part is its bytes on the wire, whatever the JSON view holds
    if (typeof value !== 'string' || isFileSchema(run.r.deref(props[name]))) continue;
    const candidate = { ...body, [name]: uniqueValue(run, value, childPointer(run.r, schemaAt, name)) ?? value };
    if (candidate[name] !== value && run.validators.accepts(schemaAt, candidate)) return candidate;
  }
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'number') continue;
    const candidate = { ...body, [name]: value + 1 };
    if (run.validators.accepts(schemaAt, candidate)) return candidate;
  }
  return undefined;
}

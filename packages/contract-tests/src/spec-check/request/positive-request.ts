/** The positive request of an operation: every required input, what its answers asked for, an example body (D272 contract request bodies per media type). */
import { preferredMedia } from '../bodies.js';
import type { CredentialSet } from '../credentials.js';
import type { MediaSpec, ParamSpec } from '../document.js';
import { inputKey, type Scalar } from '../pool.js';
import type { OpState, RunState } from '../run/state.js';
import { safeValue } from '../safety.js';
import { sampleOf, type Json } from '../samples.js';
import { fillBody, paramValue, pooledFor, type InputContext } from './inputs.js';
import { IDEMPOTENCY, paramId, type RequestSpec, type Use } from './request-spec.js';

/**
 * A positive request for an operation, or the key it waits for (a path parameter no earlier answer provided, while
 * `final` is false).
 */
export function positiveSpec(
  run: RunState,
  state: OpState,
  set: CredentialSet | undefined,
  pins: Record<string, Scalar>,
  final: boolean,
): RequestSpec | { waiting: string } {
  const op = state.op;
  const uses = new Map<string, Use>();
  const c: InputContext = { run, state, set, uses, pins };
  const path: Record<string, string> = {};
  const params: [ParamSpec, Json][] = [];
  for (const p of op.params) {
    const key = inputKey(p.name);
    if (p.in === 'path') {
      if (!final && pins[key] === undefined && pooledFor(run, state, key, p.schemaAt, set).length === 0) return { waiting: p.name };
      path[p.name] = String(paramValue(c, p));
      continue;
    }
    const wanted = p.required || IDEMPOTENCY.test(p.name) || state.learnt.inputs.has(paramId(p));
    if (!wanted) continue;
    params.push([p, safeValue(paramValue(c, p), run.ownHosts)]);
  }
  let media: MediaSpec | undefined;
  let body: Json | undefined;
  if (op.body !== undefined && (op.body.required || [...state.learnt.inputs].some((i) => i.startsWith('body:')))) {
    media = preferredMedia(op.body.media);
    if (media !== undefined) {
      const examples = media.examples;
      const example = examples.length > 0 ? examples[state.exampleIndex % examples.length] : undefined;
      const start = structuredClone(example ?? sampleOf(media.schema, run.r.deref)) as Json;
      body = safeValue(fillBody(c, start, media.schemaAt, []), run.ownHosts);
    }
  }
  return { op, set, authMode: 'normal', path, params, media, body, uses, note: undefined };
}

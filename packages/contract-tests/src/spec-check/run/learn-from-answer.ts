/**
 * What a 4xx teaches a positive request (D272 contract request bodies per media type), from the names its body mentions: an optional input the request lacked
 * is sent next time, a pooled value it names is swapped for another, a value it names is made unique.
 */
import { mentionedNames } from '../conformance.js';
import { isObj } from '../document.js';
import { inputKey } from '../pool.js';
import { IDEMPOTENCY, paramId, type RequestSpec } from '../request/request-spec.js';
import { collectProperties } from '../request/schema-paths.js';
import type { Json } from '../samples.js';
import type { OpState, RunState } from './state.js';

type Mentions = (name: string) => boolean;

/** The lesson learnt (recorded on the operation's state), or undefined when the answer names nothing to change. */
export function learnFrom(run: RunState, state: OpState, spec: RequestSpec, text: string): string | undefined {
  const names = mentionedNames(text);
  const mentions: Mentions = (name) =>
    names.has(name.toLowerCase()) || [...names].some((n) => inputKey(n) === inputKey(name) && inputKey(name).length > 2);
  return (
    missingParameter(state, spec, mentions) ??
    namedValue(run, state, spec, mentions) ??
    namedBodyValue(state, spec, mentions) ??
    missingBodyProperty(run, state, spec, mentions)
  );
}

/** A parameter the error names that the request lacked: sent next time. */
function missingParameter(state: OpState, spec: RequestSpec, mentions: Mentions): string | undefined {
  for (const p of state.op.params) {
    if (p.in === 'path' || IDEMPOTENCY.test(p.name) || !mentions(p.name)) continue;
    const id = paramId(p);
    if (!spec.params.some(([q]) => q === p) && !state.learnt.inputs.has(id)) {
      state.learnt.inputs.add(id);
      return `the answer asks for ${p.in} ${p.name}`;
    }
  }
  return undefined;
}

/** An input the error names: another pooled value when there is one, else a unique value (not for path inputs). */
function namedValue(run: RunState, state: OpState, spec: RequestSpec, mentions: Mentions): string | undefined {
  for (const [id, use] of spec.uses) {
    const field = id.slice(id.indexOf(':') + 1);
    const leaf = field.split('.').pop()!;
    if (!mentions(leaf) && !mentions(field)) continue;
    if (use.pooled) {
      const avoid = state.avoid.get(use.key) ?? new Set();
      if (
        !avoid.has(use.value) &&
        run.pool.candidates(use.key, () => true, undefined).some((c) => c.value !== use.value && !avoid.has(c.value))
      ) {
        avoid.add(use.value);
        state.avoid.set(use.key, avoid);
        return `another ${leaf} than ${use.value}`;
      }
    } else if (!state.learnt.unique.has(id) && !id.startsWith('path:')) {
      state.learnt.unique.add(id);
      return `a value of ${leaf} no earlier request sent`;
    }
  }
  return undefined;
}

/** A body value the error names (a reference the API keeps unique): a fresh one next time. */
function namedBodyValue(state: OpState, spec: RequestSpec, mentions: Mentions): string | undefined {
  const leaves: string[] = [];
  const walk = (node: Json | undefined, path: string[]) => {
    if (!isObj(node) || path.length > 4) return;
    for (const [k, v] of Object.entries(node)) {
      if (isObj(v)) walk(v, [...path, k]);
      else if (typeof v === 'string' || typeof v === 'number') leaves.push([...path, k].join('.'));
    }
  };
  walk(spec.body, []);
  for (const field of leaves) {
    const id = `body:${field}`;
    if (spec.uses.get(id)?.pooled || state.learnt.unique.has(id)) continue;
    if (!mentions(field.split('.').pop()!) && !mentions(field)) continue;
    state.learnt.unique.add(id);
    return `a value of ${field} no earlier request sent`;
  }
  return undefined;
}

/** An optional body property the error names: sent next time. */
function missingBodyProperty(run: RunState, state: OpState, spec: RequestSpec, mentions: Mentions): string | undefined {
  const media = spec.media;
  if (media === undefined || !isObj(spec.body)) return undefined;
  const props = isObj(run.r.deref(run.r.at(media.schemaAt))) ? Object.keys(collectProperties(run.r, media.schemaAt)) : [];
  for (const name of props) {
    if (spec.body[name] !== undefined || !mentions(name) || state.learnt.inputs.has(`body:${name}`)) continue;
    state.learnt.inputs.add(`body:${name}`);
    return `the answer asks for body ${name}`;
  }
  return undefined;
}

/**
 * Values no earlier request of the run sent: for inputs the API keeps unique (learnt from its 4xx, D272) and for
 * idempotency keys, so that a check's variant is never answered as a replay of another request.
 */
import { randomUUID } from 'node:crypto';
import { isObj, type ParamSpec } from '../document.js';
import type { RunState } from '../run/state.js';
import type { Json } from '../samples.js';
import { IDEMPOTENCY, type RequestSpec } from './request-spec.js';

/** A tag no earlier call of this run returned. */
export function freshTag(run: RunState): string {
  return `${run.runTag}${(run.counter++).toString(36)}`;
}

/** A value for a string input that no earlier request sent (for inputs the API keeps unique), valid at `pointer`. */
export function uniqueValue(run: RunState, current: Json | undefined, pointer: string | undefined): Json | undefined {
  const tag = freshTag(run);
  const s = pointer !== undefined ? run.r.deref(run.r.at(pointer)) : undefined;
  const candidates: Json[] = [];
  if (typeof current === 'string') {
    const max = isObj(s) && typeof s['maxLength'] === 'number' ? s['maxLength'] : 64;
    candidates.push(`${current}-${tag}`.slice(-max), `${current.slice(0, Math.max(0, max - tag.length))}${tag}`);
    if (/^\d+$/.test(current))
      candidates.push(`${current.slice(0, Math.max(1, current.length - 6))}${String(Date.now() + run.counter).slice(-6)}`);
  }
  candidates.push(tag, `x${tag}`, tag.toUpperCase());
  if (typeof current === 'number') candidates.push(current + (run.counter % 97) + 1);
  return candidates.find((c) => run.validators.accepts(pointer, c));
}

/** A new idempotency key, valid for the parameter's schema when one can be made. */
export function freshIdempotencyKey(run: RunState, p: ParamSpec): Json {
  return uniqueValue(run, `ck-${randomUUID()}`, p.schemaAt) ?? randomUUID();
}

/** The request with new idempotency keys (a variant of an accepted request must not replay it). */
export function withFreshKeys(run: RunState, spec: RequestSpec): RequestSpec {
  return {
    ...spec,
    params: spec.params.map(([p, v]): [ParamSpec, Json] => [p, IDEMPOTENCY.test(p.name) ? freshIdempotencyKey(run, p) : v]),
  };
}

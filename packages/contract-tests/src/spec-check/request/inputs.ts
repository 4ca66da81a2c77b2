/**
 * A value for each input of a positive request: pinned (a value made for it), pooled (an id an earlier answer
 * carried, D271), unique (the API keeps it so, D272), the spec's example, else a sample of its schema.
 */
import type { CredentialSet } from '../credentials.js';
import { isObj, type ParamSpec } from '../document.js';
import { inputKey, type Scalar } from '../pool.js';
import type { OpState, RunState } from '../run/state.js';
import { sampleOf, type Json, type JsonObject } from '../samples.js';
import { IDEMPOTENCY, paramId, type Use } from './request-spec.js';
import { childPointer } from './schema-paths.js';
import { freshIdempotencyKey, uniqueValue } from './unique-values.js';

/** Pooled values for a key that the schema at `pointer` accepts and that did not fail this operation before. */
export const pooledFor = (run: RunState, state: OpState, key: string, pointer: string | undefined, set: CredentialSet | undefined) =>
  run.pool.candidates(key, (v) => run.validators.accepts(pointer, v) && !state.avoid.get(key)?.has(v), set?.name);

export interface InputContext {
  run: RunState;
  state: OpState;
  set: CredentialSet | undefined;
  /** Records where each input's value came from. */
  uses: Map<string, Use>;
  /** Values made for this request (a fresh resource), by input key. */
  pins: Record<string, Scalar>;
}

/** Fills the resource references of a body from the pool (and what the run learnt must be unique), in place. */
export function fillBody(c: InputContext, value: Json, at: string, path: string[]): Json {
  if (!isObj(value) || path.length > 5) return value;
  const { run, state } = c;
  const out: JsonObject = { ...value };
  for (const [name, v] of Object.entries(out)) {
    const pointer = childPointer(run.r, at, name);
    const field = [...path, name].join('.');
    const key = inputKey(name);
    if (run.pool.keys.has(key) && (typeof v === 'string' || typeof v === 'number')) {
      const pinned = c.pins[key];
      const pick = pinned !== undefined ? pinned : pooledFor(run, state, key, pointer, c.set)[0]?.value;
      if (pick !== undefined) {
        out[name] = pick;
        c.uses.set(`body:${field}`, { key, value: pick, pooled: true });
        continue;
      }
    }
    if (state.learnt.unique.has(`body:${field}`)) {
      const u = uniqueValue(run, v, pointer);
      if (u !== undefined) out[name] = u;
      continue;
    }
    if (isObj(v) && pointer !== undefined) out[name] = fillBody(c, v, pointer, [...path, name]);
  }
  addLearntOptionals(c, out, at, path);
  return out;
}

/** The optional properties at `path` the API asked for (its 4xx named them), pooled or sampled. */
function addLearntOptionals(c: InputContext, out: JsonObject, at: string, path: string[]): void {
  const { run, state } = c;
  for (const input of state.learnt.inputs) {
    if (!input.startsWith('body:')) continue;
    const field = input.slice(5).split('.');
    if (field.length !== path.length + 1 || field.slice(0, -1).join('.') !== path.join('.')) continue;
    const name = field[field.length - 1]!;
    if (out[name] !== undefined) continue;
    const pointer = childPointer(run.r, at, name);
    const key = inputKey(name);
    const pooled = run.pool.keys.has(key) ? pooledFor(run, state, key, pointer, c.set)[0]?.value : undefined;
    out[name] = pooled ?? sampleOf(pointer !== undefined ? run.r.at(pointer) : undefined, run.r.deref);
    if (pooled !== undefined) c.uses.set(`body:${field.join('.')}`, { key, value: pooled, pooled: true });
  }
}

/** A value for a parameter: a fresh idempotency key, pinned, pooled (a resource reference), its example, else a sample. */
export function paramValue(c: InputContext, p: ParamSpec): Json {
  const { run, state } = c;
  const key = inputKey(p.name);
  if (IDEMPOTENCY.test(p.name)) return freshIdempotencyKey(run, p);
  if (run.pool.keys.has(key)) {
    const pick = c.pins[key] ?? pooledFor(run, state, key, p.schemaAt, c.set)[0]?.value;
    if (pick !== undefined) {
      c.uses.set(paramId(p), { key, value: pick, pooled: true });
      return pick;
    }
  }
  let value: Json = p.example ?? sampleOf(p.schema, run.r.deref);
  if (state.learnt.unique.has(paramId(p))) value = uniqueValue(run, value, p.schemaAt) ?? value;
  c.uses.set(paramId(p), { key, value: typeof value === 'object' ? JSON.stringify(value) : (value as Scalar), pooled: false });
  return value;
}

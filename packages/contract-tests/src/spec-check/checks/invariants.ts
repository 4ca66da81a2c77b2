/**
 * invariants: a POST that refers to a resource and carries an amount-like field is sent again with twice the largest
 * amount of that resource (a refund above its payment, a capture above its order): it must be refused, else
 * `amount_above_parent` (D276; a heuristic of payment APIs, off with `--checks`).
 */
import { isObj, type OperationInfo } from '../document.js';
import { inputKey } from '../pool.js';
import { pathOnlyRequest, type RequestSpec, type Use } from '../request/request-spec.js';
import { withFreshKeys } from '../request/unique-values.js';
import { runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';
import type { Json, JsonObject } from '../samples.js';

const DECIMAL = /^\d+(\.\d+)?$/;

export async function invariants(run: RunState, state: OpState, spec: RequestSpec): Promise<void> {
  if (state.op.method !== 'post' || spec.media === undefined || !isObj(spec.body)) return;
  const refs = [...spec.uses.entries()].filter(([id, u]) => id.startsWith('body:') && u.pooled);
  const amountField = Object.entries(spec.body).find(
    ([name, v]) => /amount/i.test(name) && (typeof v === 'number' || (typeof v === 'string' && DECIMAL.test(v))),
  );
  if (refs.length === 0 || amountField === undefined) return;
  for (const [, ref] of refs) {
    const parent = await parentAmount(run, state, spec, ref);
    if (parent === undefined || parent <= 0) continue;
    const [name, current] = amountField;
    const over = parent * 2;
    const value =
      typeof current === 'string' ? over.toFixed(current.split('.')[1]?.length ?? 0) : Number.isInteger(current) ? Math.round(over) : over;
    const body = { ...spec.body, [name]: value };
    if (!run.validators.accepts(spec.media.schemaAt, body)) continue;
    await runCase(
      run,
      state,
      'invariants',
      { ...withFreshKeys(run, spec), body, note: `${name} ${value}, above the ${ref.key} ${ref.value}'s ${parent}` },
      (status) =>
        status < 300
          ? `${name} ${value} above the referenced ${ref.key.replace(/id$/, '')}'s amount ${parent} was accepted (${status})`
          : undefined,
      { failureCheck: 'amount_above_parent' },
    );
    return;
  }
}

/** The by-id read of what `ref` refers to (a GET with that one path parameter). */
function readerOf(run: RunState, ref: Use): OperationInfo | undefined {
  return run.operations.find(
    (o) =>
      o.method === 'get' &&
      o.params.filter((p) => p.in === 'path').length === 1 &&
      o.params.some((p) => p.in === 'path' && inputKey(p.name) === ref.key),
  );
}

/** The largest amount of the referenced resource as its by-id read answers it (undefined: no read, no 2xx, no JSON). */
async function parentAmount(run: RunState, state: OpState, spec: RequestSpec, ref: Use): Promise<number | undefined> {
  const reader = readerOf(run, ref);
  const readerState = reader ? run.states.get(reader.operationId) : undefined;
  if (reader === undefined || readerState === undefined) return undefined;
  const pathParam = reader.params.find((p) => p.in === 'path')!;
  const request = pathOnlyRequest(
    reader,
    spec.set,
    { [pathParam.name]: String(ref.value) },
    `the ${ref.key} ${state.op.operationId} refers to`,
  );
  const read = await runCase(run, readerState, 'stateful', request, () => undefined);
  if (read === undefined || read.response.status >= 300) return undefined;
  try {
    return largestAmount(JSON.parse(read.text));
  } catch {
    return undefined;
  }
}

/** The largest amount-like value (not a fee, tax or refund) anywhere in an answer, 0 when none. */
function largestAmount(answer: unknown): number {
  let parent = 0;
  const visit = (node: unknown, depth: number): void => {
    if (depth > 6) return;
    if (Array.isArray(node)) node.forEach((n) => visit(n, depth + 1));
    else if (isObj(node as Json))
      for (const [k, v] of Object.entries(node as JsonObject)) {
        if (/amount/i.test(k) && !/(fee|tax|refund)/i.test(k)) {
          const n = typeof v === 'number' ? v : typeof v === 'string' && DECIMAL.test(v) ? Number(v) : undefined;
          if (n !== undefined) parent = Math.max(parent, n);
        }
        visit(v, depth + 1);
      }
  };
  visit(answer, 0);
  return parent;
}

/**
 * negative: data the spec forbids is refused with a 4xx (`negative_data_rejection`): each required parameter missing,
 * each constraint of each parameter and body field broken, a required body missing (at most `maxNegatives`).
 */
import { isJsonMedia } from '../conformance.js';
import { bodyNegatives, scalarNegatives } from '../negatives.js';
import { IDEMPOTENCY, type RequestSpec } from '../request/request-spec.js';
import { withFreshKeys } from '../request/unique-values.js';
import { mapLimit } from '../run/map-limit.js';
import { expect4xx, runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';
import type { Json } from '../samples.js';

export async function negatives(run: RunState, state: OpState, spec: RequestSpec): Promise<void> {
  const list = [...parameterNegatives(run, state, spec), ...bodyVariants(run, state, spec)];
  const capped = list.slice(0, run.maxNegatives);
  await mapLimit(capped, run.concurrency, async (neg) => {
    await runCase(run, state, 'negative', neg, expect4xx('negative data'), { failureCheck: 'negative_data_rejection' });
  });
}

/** Parameters: missing when required, each constraint broken (a value the schema accepts is no negative). */
function parameterNegatives(run: RunState, state: OpState, spec: RequestSpec): RequestSpec[] {
  const list: RequestSpec[] = [];
  for (const p of state.op.params) {
    if (IDEMPOTENCY.test(p.name)) continue;
    const present = spec.params.find(([q]) => q === p);
    if (p.required && p.in !== 'path' && present)
      list.push({ ...withFreshKeys(run, spec), params: spec.params.filter(([q]) => q !== p), note: `${p.in} ${p.name} missing` });
    for (const n of scalarNegatives(p.schema, run.r.deref, true)) {
      const asSent = typeof n.value === 'string' && /^-?\d+(\.\d+)?$/.test(n.value) ? Number(n.value) : n.value;
      if (run.validators.accepts(p.schemaAt, asSent)) continue;
      const note = `${p.in} ${p.name}: ${n.reason}`;
      if (p.in === 'path') list.push({ ...withFreshKeys(run, spec), path: { ...spec.path, [p.name]: String(n.value) }, note });
      else list.push({ ...withFreshKeys(run, spec), params: [...spec.params.filter(([q]) => q !== p), [p, n.value]], note });
    }
  }
  return list;
}

/** The body: each field's constraint broken (bodies.ts/negatives.ts), then the required body missing. */
function bodyVariants(run: RunState, state: OpState, spec: RequestSpec): RequestSpec[] {
  const list: RequestSpec[] = [];
  if (spec.media !== undefined && spec.body !== undefined) {
    const formLike = !isJsonMedia(spec.media.mediaType.toLowerCase().split(';')[0]!.trim());
    // a file part is bytes on the wire; the schema sees a string there
    const validates = (value: Json) => run.validators.accepts(spec.media!.schemaAt, value);
    for (const n of bodyNegatives(spec.media.schema, spec.body, run.r.deref, validates, formLike))
      list.push({ ...withFreshKeys(run, spec), body: n.value ?? null, note: `${n.field}: ${n.reason}` });
  }
  if (state.op.body?.required && spec.body !== undefined && spec.media !== undefined)
    list.push({ ...withFreshKeys(run, spec), media: undefined, body: undefined, note: 'required body missing' });
  return list;
}

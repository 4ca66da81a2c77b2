/**
 * boundaries: the accepted request with each numeric query parameter and body property at its declared minimum and
 * maximum (at most 12 variants); the answer must conform (a 5xx at a bound is a defect).
 */
import { isFileSchema } from '../bodies.js';
import { isObj } from '../document.js';
import { IDEMPOTENCY, type RequestSpec } from '../request/request-spec.js';
import { collectProperties } from '../request/schema-paths.js';
import { withFreshKeys } from '../request/unique-values.js';
import { mapLimit } from '../run/map-limit.js';
import { runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';

const BOUNDS = ['minimum', 'maximum'] as const;

export async function boundaries(run: RunState, state: OpState, spec: RequestSpec): Promise<void> {
  const variants = [...queryBounds(run, state, spec), ...bodyBounds(run, state, spec)];
  await mapLimit(variants.slice(0, 12), run.concurrency, async (v) => {
    await runCase(run, state, 'boundaries', v, () => undefined);
  });
}

function queryBounds(run: RunState, state: OpState, spec: RequestSpec): RequestSpec[] {
  const variants: RequestSpec[] = [];
  for (const p of state.op.params) {
    if (p.in !== 'query' || IDEMPOTENCY.test(p.name)) continue;
    const s = run.r.deref(p.schema);
    if (!isObj(s)) continue;
    for (const bound of BOUNDS) {
      const v = s[bound];
      if (typeof v !== 'number' || !run.validators.accepts(p.schemaAt, v)) continue;
      variants.push({
        ...withFreshKeys(run, spec),
        params: [...spec.params.filter(([q]) => q !== p), [p, v]],
        note: `${p.name} at its ${bound} ${v}`,
      });
    }
  }
  return variants;
}

function bodyBounds(run: RunState, state: OpState, spec: RequestSpec): RequestSpec[] {
  const variants: RequestSpec[] = [];
  if (spec.media === undefined || !isObj(spec.body) || state.op.method === 'delete') return variants;
  const props = collectProperties(run.r, spec.media.schemaAt);
  for (const [name, raw] of Object.entries(props)) {
    const s = run.r.deref(raw);
    if (!isObj(s) || spec.body[name] === undefined || isFileSchema(s)) continue;
    for (const bound of BOUNDS) {
      const v = s[bound];
      if (typeof v !== 'number') continue;
      const body = { ...spec.body, [name]: v };
      if (!run.validators.accepts(spec.media.schemaAt, body)) continue;
      variants.push({ ...withFreshKeys(run, spec), body, note: `body.${name} at its ${bound} ${v}` });
    }
  }
  return variants;
}

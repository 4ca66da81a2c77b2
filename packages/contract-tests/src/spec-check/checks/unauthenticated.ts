/**
 * unauthenticated: a secured operation refuses a request with no credentials, with wrong ones, and (an AND of schemes)
 * with each scheme dropped: a 4xx, else `ignored_auth` (OWASP API2).
 */
import { isSecured, type RequestSpec } from '../request/request-spec.js';
import { withFreshKeys } from '../request/unique-values.js';
import { mapLimit } from '../run/map-limit.js';
import { expect4xx, runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';

export async function unauthenticated(run: RunState, state: OpState, spec: RequestSpec): Promise<void> {
  const op = state.op;
  if (!isSecured(op) || spec.set === undefined) return;
  const variants: RequestSpec[] = [
    { ...withFreshKeys(run, spec), authMode: 'none', note: 'no credentials' },
    { ...withFreshKeys(run, spec), authMode: 'garbage', note: 'wrong credentials' },
  ];
  const alternative = op.security.find((alt) => alt.every((s) => spec.set!.auth[s] !== undefined));
  if (alternative !== undefined && alternative.length > 1)
    for (const omit of alternative) variants.push({ ...withFreshKeys(run, spec), authMode: { omit }, note: `without ${omit}` });
  await mapLimit(variants, run.concurrency, async (v) => {
    await runCase(run, state, 'unauthenticated', v, expect4xx(`a request ${v.note}`), { failureCheck: 'ignored_auth' });
  });
}

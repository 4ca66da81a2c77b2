/**
 * isolation: a tenant (`tenants`) reading by id what another credential set made is refused, else `tenant_isolation`
 * (OWASP API1, RESTler's namespace rule).
 */
import { covers } from '../credentials.js';
import { isSecured, type RequestSpec } from '../request/request-spec.js';
import { runCase } from '../run/run-case.js';
import type { OpState, RunState } from '../run/state.js';

export async function isolation(run: RunState, state: OpState, spec: RequestSpec): Promise<void> {
  if (run.tenants.size === 0 || !isSecured(state.op) || state.op.method !== 'get' || spec.set === undefined) return;
  const owned = [...spec.uses.entries()].filter(([id]) => id.startsWith('path:')).map(([, u]) => run.pool.find(u.key, u.value));
  if (owned.length === 0 || owned.some((v) => v === undefined || !v.created)) return;
  const owner = owned[0]!.set;
  for (const tenant of run.tenants) {
    const set = run.sets.find((s) => s.name === tenant);
    if (set === undefined || set.name === owner || owned.some((v) => v!.set === tenant) || !covers(set, state.op)) continue;
    await runCase(
      run,
      state,
      'isolation',
      { ...spec, set, note: `as ${tenant}: made by ${owner}` },
      (status) =>
        status < 300 ? `${tenant} read what ${owner} made (answered ${status}): tenants must not see each other's resources` : undefined,
      { failureCheck: 'tenant_isolation' },
    );
  }
}

/**
 * A request's credentials as its `authMode` says: the set's own (normal), none, wrong values (garbage), or one scheme
 * of an AND requirement dropped (omit). Applied by the client runtime's `applyAuth`, the same code a generated client uses.
 */
import { applyAuth, type AuthTarget } from '@paygate/client/runtime/security.js';
import { isObj } from '../document.js';
import type { RunState } from '../run/state.js';
import type { Json } from '../samples.js';
import { isSecured, type RequestSpec } from './request-spec.js';
import { freshTag } from './unique-values.js';

/** The headers, query pairs and cookies the request's credentials add (nothing without a set or with `none`). */
export async function credentialsFor(run: RunState, spec: RequestSpec): Promise<AuthTarget> {
  const target: AuthTarget = { headers: {}, query: {}, cookies: [] };
  const op = spec.op;
  if (spec.set === undefined || spec.authMode === 'none') return target;
  let auth: Record<string, unknown> = { ...spec.set.auth };
  let requirement = op.security;
  if (spec.authMode === 'garbage')
    auth = Object.fromEntries(
      Object.entries(auth).map(([k, v]) => [
        k,
        isObj(v as Json) ? { username: 'contract-check', password: 'wrong-password' } : `invalid-${freshTag(run)}`,
      ]),
    );
  else if (typeof spec.authMode === 'object') {
    const omit = spec.authMode.omit;
    const alternative = op.security.find((alt) => alt.includes(omit) && alt.every((s) => auth[s] !== undefined));
    requirement = alternative ? [alternative.filter((s) => s !== omit)] : [];
    delete auth[omit];
  }
  if (isSecured(op) || spec.authMode !== 'normal') await applyAuth(run.schemes, auth, requirement, target);
  return target;
}

/**
 * Security from the spec (D120 one authenticator per security scheme): the credential each declared scheme carries, read the way the scheme says (apiKey
 * in a header, the query or a cookie; http bearer / basic in `Authorization`; oauth2 and openIdConnect as a bearer
 * token), handed to the app's authenticator for that scheme; and the start-up check that every operation declaring
 * `security` is covered by one.
 */
import type { Request } from 'express';
import type { OperationRoute, SecurityRequirement, SecuritySchemeInfo } from './types.js';

/** What a scheme carries: a string (apiKey, bearer token) or a user/password pair (http basic). */
export type Credential = string | { username: string; password: string };

export interface SchemeAuthenticatorInput<TPrincipal> {
  /** The scheme's name in `components.securitySchemes`. */
  scheme: string;
  info: SecuritySchemeInfo;
  /** The credential this scheme carries in the request (undefined when absent or malformed). */
  credential: Credential | undefined;
  /** The credentials of every scheme of the requirement being tried (an AND of schemes). */
  credentials: Readonly<Record<string, Credential | undefined>>;
  /** Scopes the requirement lists for this scheme (oauth2 / openIdConnect). */
  scopes: readonly string[];
  /** The principal the previous scheme of the same requirement returned (an AND of schemes), else undefined. */
  principal: TPrincipal | undefined;
  req: Request;
  operation: OperationRoute;
}

/** Returns the principal, or undefined (or throws) to refuse: the next alternative is tried, else 401. */
export type SchemeAuthenticator<TPrincipal> = (
  input: SchemeAuthenticatorInput<TPrincipal>,
) => TPrincipal | undefined | Promise<TPrincipal | undefined>;

/** Keyed by scheme name; the generated `SecuritySchemeName` of a spec narrows the keys (`createApp` does). */
export type SchemeAuthenticators<TPrincipal, TScheme extends string = string> = Partial<Record<TScheme, SchemeAuthenticator<TPrincipal>>>;

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return part.slice(eq + 1).trim();
      }
    }
  }
  return undefined;
}

function authorization(req: Request, scheme: string): string | undefined {
  const value = header(req, 'authorization');
  if (value === undefined) return undefined;
  const space = value.indexOf(' ');
  if (space === -1 || value.slice(0, space).toLowerCase() !== scheme) return undefined;
  const token = value.slice(space + 1).trim();
  return token === '' ? undefined : token;
}

/** The credential a scheme carries in a request, or undefined. */
export function readCredential(req: Request, info: SecuritySchemeInfo): Credential | undefined {
  if (info.type === 'apiKey' && info.name !== null) {
    if (info.in === 'header') return header(req, info.name);
    if (info.in === 'cookie') return cookie(req, info.name);
    if (info.in === 'query') {
      const value = (req.query as Record<string, unknown>)[info.name];
      return typeof value === 'string' ? value : undefined;
    }
    return undefined;
  }
  if (info.type === 'http' && info.scheme?.toLowerCase() === 'basic') {
    const encoded = authorization(req, 'basic');
    if (encoded === undefined) return undefined;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (info.type === 'http') return authorization(req, (info.scheme ?? 'bearer').toLowerCase());
  if (info.type === 'oauth2' || info.type === 'openIdConnect') return authorization(req, 'bearer');
  return undefined;
}

/**
 * Whether the request carries a credential of any scheme the operation's security names (D219: a refusal then says
 * the credentials are invalid rather than missing; which scheme was tried is not said).
 */
export function presentsCredentials(
  req: Request,
  operation: Pick<OperationRoute, 'security'>,
  schemes: Readonly<Record<string, SecuritySchemeInfo>>,
): boolean {
  for (const requirement of operation.security)
    for (const { scheme } of requirement) {
      const info = schemes[scheme];
      if (info !== undefined && readCredential(req, info) !== undefined) return true;
    }
  return false;
}

/** Operations whose `security` no alternative is fully covered for, with the schemes they name. */
export function coverage(
  operations: readonly OperationRoute[],
  covered: (scheme: string) => boolean,
): { operationId: string; schemes: string[] }[] {
  const uncovered: { operationId: string; schemes: string[] }[] = [];
  for (const op of operations) {
    if (op.security.length === 0) continue;
    if (op.security.some((requirement) => requirement.every((s) => covered(s.scheme)))) continue;
    uncovered.push({ operationId: op.operationId, schemes: [...new Set(op.security.flatMap((r) => r.map((s) => s.scheme)))].sort() });
  }
  return uncovered;
}

/** A requirement as the guard walks it, worked out once per requirement (D166 per-request work trimmed): its schemes and their scopes. */
interface PreparedRequirement {
  /** Every scheme has an authenticator and is declared: the requirement can be tried. */
  usable: boolean;
  names: readonly string[];
  scopes: readonly (readonly string[])[];
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * Tries the operation's requirements in order (OR); within one, every scheme's authenticator in order (AND). The
 * first requirement whose authenticators all return a principal wins; else the first refusal thrown, else
 * `refuse()`. An authenticator that answers synchronously is not awaited (D166 per-request work trimmed).
 */
export function createSchemeGuard<TPrincipal>(
  authenticators: SchemeAuthenticators<TPrincipal>,
  schemes: Readonly<Record<string, SecuritySchemeInfo>>,
  refuse: (req: Request, operation: OperationRoute) => Error,
): (req: Request, operation: OperationRoute) => Promise<TPrincipal> {
  const prepared = new WeakMap<readonly SecurityRequirement[], readonly PreparedRequirement[]>();
  const prepare = (security: readonly SecurityRequirement[]): readonly PreparedRequirement[] => {
    let found = prepared.get(security);
    if (found === undefined) {
      found = security.map((requirement) => {
        const names = requirement.map((s) => s.scheme);
        return {
          usable: names.every((name) => authenticators[name] !== undefined && schemes[name] !== undefined),
          names,
          scopes: names.map((name) => requirement.find((s) => s.scheme === name)?.scopes ?? []),
        };
      });
      prepared.set(security, found);
    }
    return found;
  };
  return async (req, operation) => {
    let firstError: unknown;
    for (const requirement of prepare(operation.security as readonly SecurityRequirement[])) {
      if (!requirement.usable) continue;
      const { names } = requirement;
      const credentials: Record<string, Credential | undefined> = {};
      for (const name of names) credentials[name] = readCredential(req, schemes[name]!);
      let principal: TPrincipal | undefined;
      let ok = true;
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        try {
          const answer = authenticators[name]!({
            scheme: name,
            info: schemes[name]!,
            credential: credentials[name],
            credentials,
            scopes: requirement.scopes[i]!,
            principal,
            req,
            operation,
          });
          const result = isPromiseLike(answer) ? await answer : answer;
          if (result === undefined) {
            ok = false;
            break;
          }
          principal = result;
        } catch (error) {
          firstError ??= error;
          ok = false;
          break;
        }
      }
      if (ok) return principal as TPrincipal;
    }
    throw firstError ?? refuse(req, operation);
  };
}

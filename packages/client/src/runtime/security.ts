/**
 * Credentials from the spec's security schemes (D121 client auth per security scheme). The generated client lists the schemes its spec declares
 * (`SECURITY_SCHEMES`) and, per operation, the requirement alternatives; the caller configures one credential per
 * scheme name (`auth: { bearerAuth: () => token, apiKey: 'k', basic: { username, password } }`). Each call sends
 * only what its operation's security requires: the first alternative whose schemes all have a credential; a public
 * operation (`security: []`) sends none. Nothing here knows any product's header names: they come from the spec.
 */

/** A security scheme as the generated client describes it (the spec's `components.securitySchemes` entry, reduced). */
export type SecuritySchemeSpec =
  | { readonly type: 'apiKey'; readonly in: 'header' | 'query' | 'cookie'; readonly name: string }
  /** `scheme` lower-cased: `bearer`, `basic`, or any other HTTP authentication scheme name. */
  | { readonly type: 'http'; readonly scheme: string }
  | { readonly type: 'oauth2' }
  | { readonly type: 'openIdConnect' }
  | { readonly type: 'mutualTLS' };

export type SecuritySchemes = Readonly<Record<string, SecuritySchemeSpec>>;

/** A value, or a function returning it (called on every request; may be async, e.g. to refresh an OAuth token). */
export type Secret<T> = T | (() => T | Promise<T>);

export interface BasicCredentials {
  username: string;
  password: string;
}

/** What one scheme takes: HTTP basic a username and password, mutual TLS nothing (configure it in `fetch`), else a string. */
export type CredentialFor<S extends SecuritySchemeSpec> = S extends { type: 'http'; scheme: 'basic' }
  ? Secret<BasicCredentials>
  : S extends { type: 'mutualTLS' }
    ? never
    : Secret<string>;

/** One optional credential per scheme the spec declares, keyed by the spec's scheme names. */
export type AuthConfig<S extends SecuritySchemes> = { [K in keyof S]?: CredentialFor<S[K]> };

/** Alternatives of an operation's requirement (OR), each a list of scheme names (AND). `[]` = public. */
export type SecurityRequirement = readonly (readonly string[])[];

/** Where credentials go on one request: headers, query parameters, cookies. */
export interface AuthTarget {
  headers: Record<string, string>;
  query: Record<string, string>;
  cookies: string[];
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The alternative to send: the first whose schemes all have a credential; undefined when none (or the operation is public). */
export function chooseAlternative(
  requirement: SecurityRequirement,
  auth: Readonly<Record<string, unknown>>,
): readonly string[] | undefined {
  for (const alternative of requirement) {
    if (alternative.length > 0 && alternative.every((name) => auth[name] !== undefined)) return alternative;
  }
  return undefined;
}

function place(scheme: SecuritySchemeSpec, name: string, value: unknown, target: AuthTarget): void {
  if (scheme.type === 'apiKey') {
    if (typeof value !== 'string') throw new TypeError(`auth.${name} must be a string (or return one)`);
    if (scheme.in === 'header') target.headers[scheme.name] = value;
    else if (scheme.in === 'query') target.query[scheme.name] = value;
    else target.cookies.push(`${scheme.name}=${value}`);
    return;
  }
  if (scheme.type === 'http' && scheme.scheme === 'basic') {
    const creds = value as Partial<BasicCredentials> | null;
    if (typeof creds?.username !== 'string' || typeof creds.password !== 'string') {
      throw new TypeError(`auth.${name} must be { username, password } (or return it)`);
    }
    target.headers.Authorization = `Basic ${base64(`${creds.username}:${creds.password}`)}`;
    return;
  }
  if (scheme.type === 'mutualTLS') return;
  if (typeof value !== 'string') throw new TypeError(`auth.${name} must be a string (or return one)`);
  // http bearer, oauth2 and openIdConnect access tokens; another http scheme keeps its own name (`Digest ...`).
  const prefix =
    scheme.type === 'http' && scheme.scheme !== 'bearer' ? scheme.scheme.charAt(0).toUpperCase() + scheme.scheme.slice(1) : 'Bearer';
  target.headers.Authorization = `${prefix} ${value}`;
}

/**
 * Put the credentials the requirement needs into `target`. Synchronous unless a credential function returns a
 * promise; then resolves once all are placed.
 */
export function applyAuth(
  schemes: SecuritySchemes,
  auth: Readonly<Record<string, unknown>>,
  requirement: SecurityRequirement,
  target: AuthTarget,
): void | Promise<void> {
  const alternative = chooseAlternative(requirement, auth);
  if (alternative === undefined) return;
  const pending: Promise<void>[] = [];
  for (const name of alternative) {
    const scheme = schemes[name];
    if (scheme === undefined) continue;
    const configured = auth[name];
    const value: unknown = typeof configured === 'function' ? (configured as () => unknown)() : configured;
    if (isThenable(value)) pending.push(Promise.resolve(value).then((resolved) => place(scheme, name, resolved, target)));
    else place(scheme, name, value, target);
  }
  if (pending.length > 0) return Promise.all(pending).then(() => undefined);
}

/** Throws when `auth` names a scheme the spec does not declare (a typo would otherwise silently send nothing). */
export function checkAuthConfig(schemes: SecuritySchemes, auth: Readonly<Record<string, unknown>>): void {
  for (const name of Object.keys(auth)) {
    if (auth[name] !== undefined && !Object.hasOwn(schemes, name)) {
      const known = Object.keys(schemes);
      throw new TypeError(
        `auth.${name}: the spec declares no security scheme "${name}"${known.length > 0 ? ` (it declares ${known.join(', ')})` : ' (it declares none)'}`,
      );
    }
  }
}

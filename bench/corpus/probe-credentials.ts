/**
 * The credentials the corpus probe sends (scaffold-check.ts): one token per security scheme, where each scheme says
 * (a header, a cookie, a query parameter), and the authenticators that accept it.
 */
import type { ProbedOperation } from '../../test/server/support/scaffold-probe.js';
import { isObj } from '../../generators/src/util/json.js';

export const GOOD = 'corpus-probe-token';

export type Scheme = { type?: unknown; in?: unknown; name?: unknown; scheme?: unknown };

/** Basic auth's header value as the probe sends it. */
const BASIC = `Basic ${Buffer.from(`probe:${GOOD}`).toString('base64')}`;

/**
 * Whether an authenticator is handed the good token (an API key or bearer token, or basic auth's password). An API
 * key read from the header an HTTP scheme of the same requirement writes (Conjur's and Azure Container Registry's
 * `basicAuth` with an `apiKey` in `Authorization`, required together) is handed the one value a request can carry
 * there, the HTTP scheme's: the probe sent it, so it is the good one.
 */
export const accepts = (credential: unknown): boolean =>
  credential === GOOD ||
  credential === BASIC ||
  (typeof credential === 'string' && credential.endsWith(` ${GOOD}`)) ||
  (isObj(credential) && credential['password'] === GOOD);

/** Headers and query pairs that carry the good token for every scheme of the operation's first usable alternative. */
export function credentialsFor(
  operation: Pick<ProbedOperation, 'security'>,
  schemes: Record<string, Scheme>,
): { headers: Record<string, string>; query: [string, string][] } {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  const cookies: string[] = [];
  const alternative = operation.security.find((names) => names.every((n) => schemes[n] !== undefined)) ?? operation.security[0] ?? [];
  for (const name of alternative) {
    const s = schemes[name] ?? {};
    if (s.type === 'apiKey' && typeof s.name === 'string') {
      if (s.in === 'query') query.push([s.name, GOOD]);
      else if (s.in === 'cookie') cookies.push(`${s.name}=${GOOD}`);
      // an HTTP scheme of the requirement writing the same header (`Authorization`) keeps its value (see `accepts`)
      else headers[s.name.toLowerCase()] ??= GOOD;
    } else if (s.type === 'http' && String(s.scheme).toLowerCase() === 'basic') {
      headers['authorization'] = BASIC;
    } else if (s.type === 'http') {
      headers['authorization'] = `${typeof s.scheme === 'string' ? s.scheme : 'Bearer'} ${GOOD}`;
    } else headers['authorization'] = `Bearer ${GOOD}`;
  }
  if (cookies.length > 0) headers['cookie'] = cookies.join('; ');
  return { headers, query };
}

const decodedKey = (term: string): string => {
  const key = term.split('=', 1)[0]!;
  try {
    return decodeURIComponent(key.replaceAll('+', ' '));
  } catch {
    return key;
  }
};

/**
 * The URL with the query credentials in it, each key once: an operation may declare its API key as a query parameter
 * too (CurrencyTick's `apikey`, Spinbot's `key`), which the probe has already filled with a sample; a client sends the
 * key once, so the credential replaces that sample instead of repeating the key (a repeated key is two values, no
 * credential). `broken`: the field the invalid request broke, kept as it is. The rest of the URL is left byte for byte.
 */
export function withQueryCredentials(url: string, query: readonly (readonly [string, string])[], broken?: string): string {
  const q = url.indexOf('?');
  const base = q === -1 ? url : url.slice(0, q);
  let terms = q === -1 ? [] : url.slice(q + 1).split('&');
  for (const [name, value] of query) {
    if (name === broken && terms.some((t) => decodedKey(t) === name)) continue;
    terms = terms.filter((t) => decodedKey(t) !== name);
    terms.push(new URLSearchParams([[name, value]]).toString());
  }
  const rest = terms.filter((t) => t !== '');
  return rest.length === 0 ? base : `${base}?${rest.join('&')}`;
}

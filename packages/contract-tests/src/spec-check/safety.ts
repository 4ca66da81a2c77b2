/**
 * Safe to point at anything (D273 contract checker sends only reserved hosts): every URL and e-mail address the checker sends names a reserved host (RFC 2606 /
 * RFC 6761: `.example`, `.invalid`, `.test`, `.localhost`, `example.com|net|org`) or the target itself, so a gateway
 * under test that calls back (webhooks, return URLs) or mails someone reaches nobody. The spec's own examples are
 * rewritten on the way out, and the same predicate is the repository's test of `openapi/` examples.
 */
import { isObj } from './document.js';
import type { Json } from './samples.js';

const RESERVED_TLDS = ['example', 'invalid', 'test', 'localhost'];
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];

/**
 * A reserved name that never resolves (the TLDs `.invalid`, `.test`, `.example`, `.localhost`): what a URL the checker
 * sends must name, since the target may call it. `example.com` is reserved too, but it resolves and answers.
 */
export function isUnresolvableHost(host: string): boolean {
  const tld = host.toLowerCase().replace(/\.$/, '').split('.').pop() ?? '';
  return RESERVED_TLDS.includes(tld);
}

/** Where invented URLs point: a name that can never resolve (RFC 6761 `.invalid`). */
export const RESERVED_URL_HOST = 'paygate-contract.invalid';
/** The domain of invented e-mail addresses (RFC 2606). */
export const RESERVED_MAIL_DOMAIN = 'example.com';

/** A host reserved for documentation and tests, or a loopback address. */
export function isReservedHost(host: string): boolean {
  const h = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)) return true;
  if (RESERVED_DOMAINS.some((d) => h === d || h.endsWith(`.${d}`))) return true;
  const tld = h.split('.').pop() ?? '';
  return RESERVED_TLDS.includes(tld);
}

const URL_RE = /\b(?:https?|wss?|ftp):\/\/[^\s"'<>()]+/gi;
const MAIL_RE = /\b[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)\b/g;

/** Every host named by a URL (http, https, ws, wss, ftp) or an e-mail address in a text. */
export function hostsIn(text: string): { host: string; kind: 'url' | 'email'; match: string }[] {
  const out: { host: string; kind: 'url' | 'email'; match: string }[] = [];
  for (const m of text.matchAll(URL_RE)) {
    try {
      out.push({ host: new URL(m[0]).hostname, kind: 'url', match: m[0] });
    } catch {
      /* not a URL after all */
    }
  }
  const withoutUrls = text.replace(URL_RE, ' ');
  for (const m of withoutUrls.matchAll(MAIL_RE)) out.push({ host: m[1]!, kind: 'email', match: m[0] });
  return out;
}

/**
 * A string with every URL and e-mail address on a non-reserved host moved to a reserved one (path, query and local
 * part kept, so the value keeps its shape); `allowed` hosts (the target's own) are kept.
 */
export function safeString(value: string, allowed: ReadonlySet<string>): string {
  if (!value.includes('@') && !value.includes('://')) return value;
  let out = value.replace(URL_RE, (raw) => {
    try {
      const url = new URL(raw);
      if (isUnresolvableHost(url.hostname) || allowed.has(url.hostname.toLowerCase())) return raw;
      url.protocol = url.protocol === 'http:' || url.protocol === 'https:' ? 'https:' : url.protocol;
      url.host = RESERVED_URL_HOST;
      // keep the original's ending: new URL adds a slash to a bare origin
      return raw.endsWith('/') || url.pathname !== '/' ? url.href : url.href.replace(/\/$/, '');
    } catch {
      return raw;
    }
  });
  out = out.replace(MAIL_RE, (raw, host: string) =>
    isReservedHost(host) ? raw : `${raw.slice(0, raw.length - host.length)}${RESERVED_MAIL_DOMAIN}`,
  );
  return out;
}

/** A JSON value with {@link safeString} applied to every string in it. */
export function safeValue(value: Json, allowed: ReadonlySet<string>): Json {
  if (typeof value === 'string') return safeString(value, allowed);
  if (Array.isArray(value)) return value.map((v) => safeValue(v, allowed));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safeValue(v, allowed)]));
  return value;
}

/** Hosts in a text that are neither reserved nor `allowed` (a test's assertion, the checker's own guard). */
export function unreservedHosts(text: string, allowed: ReadonlySet<string> = new Set()): string[] {
  return [
    ...new Set(
      hostsIn(text)
        .filter((h) => !isReservedHost(h.host) && !allowed.has(h.host.toLowerCase()))
        .map((h) => `${h.kind === 'url' ? 'URL' : 'e-mail'} ${h.match}`),
    ),
  ];
}

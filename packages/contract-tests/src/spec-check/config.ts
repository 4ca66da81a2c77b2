/**
 * Credential sets and run settings from flags and a config file (D274 contract checker credential sets). Flags:
 *   --auth SCHEME=VALUE          the `default` set
 *   --auth SET:SCHEME=VALUE      a named set (repeat per scheme and per set)
 *   --use SET=SELECTOR[,...]     which set serves which operations (op:ID, tag:NAME, path:GLOB, scheme:NAME)
 *   --tenant SET                 a set that must not read what the others made
 * A value `env:NAME` is read from the environment (keeps a secret out of the process list). The config file (JSON or
 * YAML) says the same: `{credentials: {SET: {SCHEME: VALUE}}, use: {SET: [SELECTOR]}, tenants: [SET], include: [...],
 * exclude: [...]}`.
 */
import type { CredentialRule, CredentialSet, Selector } from './credentials.js';
import { parseSelector } from './credentials.js';
import { isObj as isRecord } from '@paygate/contract/json';

export interface SecuritySchemeInfo {
  type?: unknown;
  scheme?: unknown;
}

export interface CheckConfig {
  credentials: CredentialSet[];
  rules: CredentialRule[];
  tenants: string[];
  include: Selector[];
  exclude: Selector[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function resolveValue(raw: string, env: NodeJS.ProcessEnv, where: string): string {
  if (!raw.startsWith('env:')) return raw;
  const name = raw.slice(4);
  const value = env[name];
  if (value === undefined || value === '') throw new ConfigError(`${where}: the environment variable ${name} is not set`);
  return value;
}

/** A scheme's credential as the client takes it (HTTP basic: `USER:PASSWORD` -> {username, password}). */
function credentialFor(schemes: Readonly<Record<string, SecuritySchemeInfo>>, scheme: string, value: string, where: string): unknown {
  const spec = schemes[scheme];
  if (spec === undefined) {
    const known = Object.keys(schemes);
    throw new ConfigError(
      `${where}: the spec declares no security scheme "${scheme}"${known.length > 0 ? ` (it declares ${known.join(', ')})` : ''}`,
    );
  }
  if (spec.type === 'http' && String(spec.scheme).toLowerCase() === 'basic') {
    const colon = value.indexOf(':');
    if (colon < 0) throw new ConfigError(`${where}: ${scheme} is HTTP basic: give ${scheme}=USER:PASSWORD`);
    return { username: value.slice(0, colon), password: value.slice(colon + 1) };
  }
  return value;
}

const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',') : []).map((s) => s.trim()).filter(Boolean);

/** Merges a config file's content and the flags (flags win) into the checker's options. */
export function buildConfig(input: {
  schemes: Readonly<Record<string, SecuritySchemeInfo>>;
  file?: unknown;
  auth?: readonly string[];
  use?: readonly string[];
  tenants?: readonly string[];
  include?: readonly string[];
  exclude?: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Scheme values from PAYGATE_AUTH_<SCHEME> for the default set. */
  defaultFromEnv?: Readonly<Record<string, string>>;
}): CheckConfig {
  const sets = new Map<string, Record<string, unknown>>();
  const put = (set: string, scheme: string, raw: string, where: string) => {
    const value = credentialFor(input.schemes, scheme, resolveValue(raw, input.env, where), where);
    sets.set(set, { ...(sets.get(set) ?? {}), [scheme]: value });
  };
  for (const [scheme, value] of Object.entries(input.defaultFromEnv ?? {})) put('default', scheme, value, `PAYGATE_AUTH_${scheme}`);
  const rules: CredentialRule[] = [];
  const tenants: string[] = [];
  const include: Selector[] = [];
  const exclude: Selector[] = [];
  const file = input.file;
  if (file !== undefined) {
    if (!isRecord(file)) throw new ConfigError('the config file must be an object ({credentials, use, tenants, include, exclude})');
    const unknown = Object.keys(file).filter((k) => !['credentials', 'use', 'tenants', 'include', 'exclude'].includes(k));
    if (unknown.length > 0)
      throw new ConfigError(
        `the config file has unknown keys: ${unknown.join(', ')} (it takes credentials, use, tenants, include, exclude)`,
      );
    if (file['credentials'] !== undefined) {
      if (!isRecord(file['credentials'])) throw new ConfigError('credentials: an object of sets, each {SCHEME: VALUE}');
      for (const [set, schemes] of Object.entries(file['credentials'])) {
        if (!isRecord(schemes)) throw new ConfigError(`credentials.${set}: an object {SCHEME: VALUE}`);
        for (const [scheme, value] of Object.entries(schemes)) put(set, scheme, String(value), `credentials.${set}.${scheme}`);
      }
    }
    if (file['use'] !== undefined) {
      if (!isRecord(file['use'])) throw new ConfigError('use: an object {SET: [SELECTOR]}');
      for (const [set, selectors] of Object.entries(file['use']))
        for (const s of list(selectors)) rules.push({ set, selector: parseSelector(s) });
    }
    tenants.push(...list(file['tenants']));
    include.push(...list(file['include']).map(parseSelector));
    exclude.push(...list(file['exclude']).map(parseSelector));
  }
  for (const flag of input.auth ?? []) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--auth takes SCHEME=VALUE or SET:SCHEME=VALUE, got ${JSON.stringify(flag)}`);
    const left = flag.slice(0, eq);
    const colon = left.indexOf(':');
    const [set, scheme] = colon > 0 ? [left.slice(0, colon), left.slice(colon + 1)] : ['default', left];
    put(set, scheme, flag.slice(eq + 1), `--auth ${left}`);
  }
  for (const flag of input.use ?? []) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--use takes SET=SELECTOR[,SELECTOR...], got ${JSON.stringify(flag)}`);
    for (const s of list(flag.slice(eq + 1))) rules.unshift({ set: flag.slice(0, eq), selector: parseSelector(s) });
  }
  tenants.push(...(input.tenants ?? []));
  include.push(...(input.include ?? []).map(parseSelector));
  exclude.push(...(input.exclude ?? []).map(parseSelector));
  for (const name of [...rules.map((r) => r.set), ...tenants])
    if (!sets.has(name))
      throw new ConfigError(`credential set "${name}" is named but has no credentials (give --auth ${name}:SCHEME=VALUE)`);
  // the default set first: it serves what no rule assigns
  const credentials = [...sets]
    .map(([name, auth]) => ({ name, auth }))
    .sort((a, b) => Number(b.name === 'default') - Number(a.name === 'default'));
  return { credentials, rules, tenants: [...new Set(tenants)], include, exclude };
}

/**
 * Positive and negative data from a schema, deterministic (the same spec gives the same requests, so a failure
 * reproduces): the schema's own `example`/`examples`/`default`/`const`/`enum` first, else the smallest value that
 * satisfies type, format, length, range and pattern as far as they can be met without a regex generator.
 */
import fc from 'fast-check';
import { isObj } from '@paygate/contract/json';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type Deref = (node: Json | undefined) => Json | undefined;

function typesOf(s: JsonObject): string[] {
  const t = s['type'];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  if (typeof t === 'string') return [t];
  if (isObj(s['properties'])) return ['object'];
  if (s['items'] !== undefined) return ['array'];
  return [];
}

const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-02T03:04:05Z',
  date: '2026-01-02',
  time: '03:04:05Z',
  email: 'ada@example.com',
  uri: 'https://paygate-contract.invalid/a',
  url: 'https://paygate-contract.invalid/a',
  uuid: '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'paygate-contract.invalid',
};

function stringSample(s: JsonObject): string {
  const format = typeof s['format'] === 'string' ? s['format'] : undefined;
  if (format !== undefined && FORMAT_SAMPLES[format] !== undefined) return FORMAT_SAMPLES[format];
  const min = typeof s['minLength'] === 'number' ? s['minLength'] : 1;
  const max = typeof s['maxLength'] === 'number' ? s['maxLength'] : Number.POSITIVE_INFINITY;
  const pattern = typeof s['pattern'] === 'string' ? s['pattern'] : undefined;
  if (pattern !== undefined) {
    const re = new RegExp(pattern, 'u');
    for (const candidate of ['sample', 'abc', 'a', 'A1', '1', '12345678', 'x'.repeat(min)]) {
      if (re.test(candidate) && candidate.length >= min && candidate.length <= max) return candidate;
    }
    // fast-check builds strings from the pattern; a fixed seed keeps the requests reproducible
    const fits = (v: string): boolean => v.length >= min && v.length <= max;
    const found = fc.sample(fc.stringMatching(re), { seed: 20, numRuns: 50 }).find(fits);
    if (found !== undefined) return found;
  }
  return 'sample'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, 6)));
}

function numberSample(s: JsonObject, integer: boolean): number {
  const min =
    typeof s['minimum'] === 'number'
      ? s['minimum']
      : typeof s['exclusiveMinimum'] === 'number'
        ? s['exclusiveMinimum'] + (integer ? 1 : 0.5)
        : undefined;
  const max = typeof s['maximum'] === 'number' ? s['maximum'] : undefined;
  let value = min ?? (max !== undefined ? Math.min(1, max) : 1);
  if (integer) value = Math.ceil(value);
  const multiple = typeof s['multipleOf'] === 'number' ? s['multipleOf'] : undefined;
  if (multiple !== undefined && multiple > 0) value = Math.ceil(value / multiple) * multiple;
  return value;
}

/** A value the schema accepts (as far as a deterministic pick can tell). */
export function sampleOf(schema: Json | undefined, deref: Deref, depth = 0): Json {
  const s = deref(schema);
  if (!isObj(s) || depth > 8) return null;
  if (s['const'] !== undefined) return s['const'];
  if (Array.isArray(s['examples']) && s['examples'].length > 0) return s['examples'][0]!;
  if (s['example'] !== undefined) return s['example'];
  if (s['default'] !== undefined) return s['default'];
  if (Array.isArray(s['enum']) && s['enum'].length > 0) return s['enum'][0]!;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alternatives = s[key];
    if (Array.isArray(alternatives) && alternatives.length > 0) return sampleOf(alternatives[0], deref, depth + 1);
  }
  if (Array.isArray(s['allOf'])) {
    const merged: JsonObject = {};
    for (const part of s['allOf']) {
      const value = sampleOf(part, deref, depth + 1);
      if (isObj(value)) Object.assign(merged, value);
    }
    const own = { ...s };
    delete own['allOf'];
    const rest = isObj(own['properties']) ? sampleOf(own, deref, depth + 1) : undefined;
    return isObj(rest) ? { ...merged, ...rest } : merged;
  }
  const types = typesOf(s).filter((t) => t !== 'null');
  const type = types[0] ?? 'object';
  switch (type) {
    case 'string':
      return stringSample(s);
    case 'integer':
      return numberSample(s, true);
    case 'number':
      return numberSample(s, false);
    case 'boolean':
      return true;
    case 'array': {
      const min = typeof s['minItems'] === 'number' ? s['minItems'] : 1;
      return Array.from({ length: Math.max(1, min) }, () => sampleOf(s['items'], deref, depth + 1));
    }
    default: {
      const out: JsonObject = {};
      const properties = isObj(s['properties']) ? s['properties'] : {};
      const required = Array.isArray(s['required']) ? s['required'].filter((r): r is string => typeof r === 'string') : [];
      for (const [name, prop] of Object.entries(properties)) {
        const resolved = deref(prop);
        if (isObj(resolved) && resolved['readOnly'] === true) continue;
        if (required.includes(name)) out[name] = sampleOf(prop, deref, depth + 1);
      }
      return out;
    }
  }
}

/**
 * A value the schema must refuse, and why; undefined when none can be built (an unconstrained schema accepts anything).
 * Prefers the most common server-side checks: a wrong type, a missing required property.
 */
export function negativeOf(schema: Json | undefined, deref: Deref): { value: Json; reason: string } | undefined {
  const s = deref(schema);
  if (!isObj(s)) return undefined;
  let types = typesOf(s);
  if (types.length === 0) {
    // a oneOf / anyOf / allOf of objects (a discriminated union) refuses an array like any object does
    const parts = [s['oneOf'], s['anyOf'], s['allOf']].find((p) => Array.isArray(p) && p.length > 0) as Json[] | undefined;
    const partTypes = parts?.map((p) => {
      const d = deref(p);
      return isObj(d) ? typesOf(d) : [];
    });
    if (partTypes?.every((t) => t.length === 1 && t[0] === 'object')) return { value: [], reason: 'an array where an object is declared' };
    if (types.length === 0) return undefined;
  }
  types = types.filter((t) => t !== 'null' || types.length === 1);
  if (types.includes('object')) {
    const required = Array.isArray(s['required']) ? s['required'].filter((r): r is string => typeof r === 'string') : [];
    if (!types.includes('array')) return { value: [], reason: 'an array where an object is declared' };
    if (required.length > 0) {
      const sample = sampleOf(s, deref);
      if (isObj(sample)) {
        delete sample[required[0]!];
        return { value: sample, reason: `required property "${required[0]}" missing` };
      }
    }
    return undefined;
  }
  if (types.includes('string'))
    return types.includes('integer') || types.includes('number')
      ? { value: [], reason: 'an array where a scalar is declared' }
      : { value: 12345, reason: 'a number where a string is declared' };
  if (types.includes('integer') || types.includes('number') || types.includes('boolean'))
    return { value: 'not-a-number', reason: `a string where ${types.join('|')} is declared` };
  if (types.includes('array')) return { value: { not: 'an array' }, reason: 'an object where an array is declared' };
  return undefined;
}

/**
 * Positive and negative data from a schema, deterministic (the same spec gives the same requests, so a failure
 * reproduces): the schema's own `const`/`examples`/`example`/`default`/`enum` first (when the caller can check a
 * value and the schema's own breaks it, a generated one instead), else the smallest value that satisfies type,
 * format, length, range and pattern (fast-check's `stringMatching` builds a string for a pattern).
 */
import fc from 'fast-check';
import { isObj } from '@paygate/contract/json';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type Deref = (node: Json | undefined) => Json | undefined;

/**
 * Whether a value satisfies a schema of the document (a validator the caller has: the schema is an object of its
 * document). The sampler uses the schema's own example only when it does: specs' examples break their own schemas
 * (a value outside the enum, under the minimum, a number where a string is declared).
 */
export type Accepts = (schema: JsonObject, value: Json) => boolean;

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
  duration: 'P1D',
  byte: 'c2FtcGxl',
  'uri-reference': '/a',
  'json-pointer': '/a',
  regex: '^a$',
};

function stringSample(s: JsonObject): string {
  const format = typeof s['format'] === 'string' ? s['format'] : undefined;
  const min = typeof s['minLength'] === 'number' ? s['minLength'] : 1;
  const max = typeof s['maxLength'] === 'number' ? s['maxLength'] : Number.POSITIVE_INFINITY;
  const pattern = typeof s['pattern'] === 'string' ? s['pattern'] : undefined;
  let re: RegExp | undefined;
  try {
    re = pattern === undefined ? undefined : new RegExp(pattern, 'u');
  } catch {
    re = undefined; // not a regular expression the validator could apply either (D206 unsupported patterns dropped with a warning)
  }
  const formatSample = format === undefined ? undefined : FORMAT_SAMPLES[format];
  if (formatSample !== undefined && (re === undefined || re.test(formatSample))) return formatSample;
  if (re !== undefined) {
    for (const candidate of ['sample', 'abc', 'a', 'A1', '1', '12345678', 'x'.repeat(min)]) {
      if (re.test(candidate) && candidate.length >= min && candidate.length <= max) return candidate;
    }
    // fast-check builds strings from the pattern; a fixed seed keeps the requests reproducible. Larger sizes when
    // the small ones are all shorter than `minLength` (AWS's 20-character ARNs, a 40-digit commit SHA)
    const fits = (v: string): boolean => v.length >= min && v.length <= max;
    const maxLength = Number.isFinite(max) ? max : undefined;
    for (const size of ['small', 'medium', 'large', 'xlarge'] as const) {
      let found: string | undefined;
      try {
        const arbitrary = fc.stringMatching(re, { size, ...(maxLength === undefined ? {} : { maxLength }) });
        found = fc.sample(arbitrary, { seed: 20, numRuns: 50 }).find(fits);
      } catch {
        break; // a pattern fast-check cannot build within maxLength (a repetition longer than it): no string from it
      }
      if (found !== undefined) return found;
    }
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

/** The schema's own values, in the order the sampler tries them. */
function ownValues(s: JsonObject): Json[] {
  const out: Json[] = [];
  if (s['const'] !== undefined) out.push(s['const']);
  if (Array.isArray(s['examples']) && s['examples'].length > 0) out.push(s['examples'][0]!);
  if (s['example'] !== undefined) out.push(s['example']);
  if (s['default'] !== undefined) out.push(s['default']);
  if (Array.isArray(s['enum'])) out.push(...s['enum'].slice(0, 8));
  return out;
}

/** The schema of a property named `name`: the schema's own `properties`, else those of its `allOf` members. */
function propertySchema(s: JsonObject, name: string, deref: Deref, depth = 0): Json | undefined {
  const own = isObj(s['properties']) ? s['properties'][name] : undefined;
  if (own !== undefined || depth > 8) return own;
  for (const part of Array.isArray(s['allOf']) ? s['allOf'] : []) {
    const d = deref(part);
    const found = isObj(d) ? propertySchema(d, name, deref, depth + 1) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A value the schema accepts (as far as a deterministic pick can tell). With `accepts`, the schema's own example (or
 * default, enum member) is used only when the schema accepts it, and of `oneOf`/`anyOf` the first alternative whose
 * sample the whole schema accepts.
 */
export function sampleOf(schema: Json | undefined, deref: Deref, depth = 0, accepts?: Accepts): Json {
  const s = deref(schema);
  if (!isObj(s) || depth > 8) return null;
  const fits = (value: Json): boolean => accepts === undefined || accepts(s, value);
  const own = ownValues(s);
  for (const value of own) if (fits(value)) return value;
  // no validator to ask: the schema's own value as it is (the sampler's behaviour before D433)
  if (accepts === undefined && own.length > 0) return own[0]!;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alternatives = s[key];
    if (Array.isArray(alternatives) && alternatives.length > 0) {
      const samples: Json[] = [];
      for (const alternative of alternatives.slice(0, 8)) {
        const value = sampleOf(alternative, deref, depth + 1, accepts);
        const merged = isObj(value) && isObj(s['properties']) ? withRequired(s, value, deref, depth, accepts) : value;
        if (fits(merged)) return merged;
        samples.push(merged);
      }
      return samples[0]!;
    }
  }
  if (Array.isArray(s['allOf'])) {
    const merged: JsonObject = {};
    const values = s['allOf'].map((part) => sampleOf(part, deref, depth + 1, accepts));
    for (const value of values) if (isObj(value)) Object.assign(merged, value);
    // an allOf of a scalar and annotations (AWS's `allOf: [{$ref: TagKey}, {description}]`): the scalar
    const scalar = values.find((v) => v !== null && !isObj(v));
    if (scalar !== undefined && Object.keys(merged).length === 0 && !isObj(s['properties']) && typesOf(s)[0] !== 'object') return scalar;
    const rest = { ...s };
    delete rest['allOf'];
    const restValue = isObj(rest['properties']) ? sampleOf(rest, deref, depth + 1, accepts) : undefined;
    return withRequired(s, isObj(restValue) ? { ...merged, ...restValue } : merged, deref, depth, accepts);
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
      const items = Array.from({ length: Math.max(1, min) }, () => sampleOf(s['items'], deref, depth + 1, accepts));
      // `uniqueItems` with more than one item required: the same sample twice would be refused
      return s['uniqueItems'] === true && items.length > 1 && items.every((i) => typeof i === 'string')
        ? items.map((i, n) => (n === 0 ? i : `${String(i)}${n}`))
        : items;
    }
    default:
      return withRequired(s, {}, deref, depth, accepts);
  }
}

/**
 * `value` with the object schema's required properties it lacks (from `properties`, or the `allOf` members', any
 * value when none declares it; a `readOnly` one is left out) and optional ones up to `minProperties`.
 */
function withRequired(s: JsonObject, value: JsonObject, deref: Deref, depth: number, accepts?: Accepts): JsonObject {
  const out: JsonObject = { ...value };
  const required = Array.isArray(s['required']) ? s['required'].filter((r): r is string => typeof r === 'string') : [];
  const properties = isObj(s['properties']) ? s['properties'] : {};
  // in the order of `properties` (as before), then those only `allOf` members or nothing declares
  const ordered = [...Object.keys(properties).filter((n) => required.includes(n)), ...required.filter((n) => !(n in properties))];
  for (const name of ordered) {
    if (name in out) continue;
    const prop = propertySchema(s, name, deref);
    const resolved = deref(prop);
    if (isObj(resolved) && resolved['readOnly'] === true) continue;
    out[name] = prop === undefined ? 'sample' : sampleOf(prop, deref, depth + 1, accepts);
  }
  const min = typeof s['minProperties'] === 'number' ? s['minProperties'] : 0;
  for (const [name, property] of Object.entries(properties)) {
    if (Object.keys(out).length >= min) break;
    if (!(name in out)) out[name] = sampleOf(property, deref, depth + 1, accepts);
  }
  // a map (`additionalProperties`) with a `minProperties` its declared properties do not reach (WorkDocs' metadata)
  const extra = s['additionalProperties'];
  for (let i = 1; Object.keys(out).length < min && extra !== false && i <= min; i++)
    if (!(`sample${i}` in out)) out[`sample${i}`] = isObj(extra) ? sampleOf(extra, deref, depth + 1, accepts) : 'sample';
  return out;
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

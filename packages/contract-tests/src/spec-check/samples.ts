/**
 * Positive and negative data from a schema, deterministic (the same spec gives the same requests, so a failure
 * reproduces): the schema's own `const`/`examples`/`example`/`default`/`enum` first (when the caller can check a
 * value and the schema's own breaks it, a generated one instead), else the smallest value that satisfies type,
 * format, length, range and pattern (sample-string.ts builds a string for a pattern).
 */
import { isObj } from '@paygate/contract/json';
import { stringSample } from './sample-string.js';
import { unionSample } from './sample-union.js';

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

/** Keywords of a schema's own values: a merged copy leaves them out (the sampler tried them on the schema itself). */
const OWN_VALUE_KEYWORDS = ['const', 'examples', 'example', 'default', 'enum'];

/**
 * An `allOf` whose members (nested ones too) are all object schemas, or all array schemas, as one schema: every
 * member's `properties` (a property several declare becomes the `allOf` of their schemas), the union of their
 * `required`, the largest `minProperties`; for arrays the `allOf` of their `items`, the largest `minItems`. Undefined
 * when a member is more than that (a union, a scalar, a `not`): the caller samples the members one by one.
 * (D427 an allOf of object schemas is sampled as one merged schema.)
 */
function flattenAllOf(s: JsonObject, deref: Deref): JsonObject | undefined {
  const properties = new Map<string, Json[]>();
  const items: Json[] = [];
  const required = new Set<string>();
  const kinds = new Set<string>();
  let minProperties = 0;
  let minItems = 0;
  const visit = (node: Json | undefined, depth: number): boolean => {
    const x = deref(node);
    if (!isObj(x) || depth > 8) return false;
    if (['oneOf', 'anyOf', 'not', 'if'].some((k) => x[k] !== undefined)) return false;
    const types = typesOf(x);
    if (types.length > 1 || (types.length === 1 && types[0] !== 'object' && types[0] !== 'array')) return false;
    if (types[0] !== undefined) kinds.add(types[0]);
    if (isObj(x['properties']))
      for (const [name, property] of Object.entries(x['properties'])) properties.set(name, [...(properties.get(name) ?? []), property]);
    if (Array.isArray(x['required'])) for (const r of x['required']) if (typeof r === 'string') required.add(r);
    if (typeof x['minProperties'] === 'number') minProperties = Math.max(minProperties, x['minProperties']);
    if (x['items'] !== undefined && !Array.isArray(x['items'])) items.push(x['items']);
    if (typeof x['minItems'] === 'number') minItems = Math.max(minItems, x['minItems']);
    return (Array.isArray(x['allOf']) ? x['allOf'] : []).every((part) => visit(part, depth + 1));
  };
  const { allOf: _members, ...rest } = s;
  if (!(s['allOf'] as Json[]).every((part) => visit(part, 1)) || !visit(rest, 0) || kinds.size > 1) return undefined;
  const out: JsonObject = { ...rest };
  for (const keyword of OWN_VALUE_KEYWORDS) delete out[keyword];
  if (kinds.has('array')) {
    if (properties.size > 0 || required.size > 0) return undefined;
    if (items.length > 0) out['items'] = items.length === 1 ? items[0]! : { allOf: items };
    return { ...out, type: 'array', ...(minItems > 0 ? { minItems } : {}) };
  }
  if (properties.size === 0 && required.size === 0) return undefined; // annotations only: no object to build
  out['type'] = 'object';
  out['properties'] = Object.fromEntries(
    [...properties].map(([name, schemas]) => [name, schemas.length === 1 ? schemas[0]! : { allOf: schemas }]),
  );
  out['required'] = [...required];
  if (minProperties > 0) out['minProperties'] = minProperties;
  return out;
}

/** A value of the schema's scalar type, undefined when its first type is `object` or `array` (or none is declared). */
function scalarSample(s: JsonObject, accepts: Accepts | undefined): Json | undefined {
  switch (typesOf(s).filter((t) => t !== 'null')[0]) {
    case 'string':
      return stringSample(s, accepts === undefined ? undefined : (value) => accepts(s, value));
    case 'integer':
      return numberSample(s, true);
    case 'number':
      return numberSample(s, false);
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}

/**
 * A value the schema accepts (as far as a deterministic pick can tell). With `accepts`, the schema's own example (or
 * default, enum member) is used only when the schema accepts it, and of `oneOf`/`anyOf` the first alternative whose
 * sample the whole schema accepts.
 */
export function sampleOf(schema: Json | undefined, deref: Deref, depth = 0, accepts?: Accepts): Json {
  const s = deref(schema);
  if (!isObj(s)) return null;
  const fits = (value: Json): boolean => accepts === undefined || accepts(s, value);
  const own = ownValues(s);
  for (const value of own) if (fits(value)) return value;
  // no validator to ask: the schema's own value as it is (the sampler's behaviour before D433)
  if (accepts === undefined && own.length > 0) return own[0]!;
  // past the depth limit (a recursive schema, deep nesting): a value of the declared type that needs no deeper look
  // (an empty object or array at worst), not null
  if (depth > 8) {
    const type = typesOf(s).filter((t) => t !== 'null')[0];
    return scalarSample(s, accepts) ?? (type === 'object' ? {} : type === 'array' ? [] : null);
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[key]) && s[key].length > 0)
      return unionSample(s, key, {
        deref,
        accepts,
        // an alternative that only names required properties (GitHub's pages body, `anyOf: [{required: [source]},
        // {required: [build_type]}]`) takes their schemas from the union's own `properties`
        sample: (alternative) => sampleOf(requiredOnlyWithUnionProperties(s, alternative, deref), deref, depth + 1, accepts),
        // the union's own required names (beside `oneOf`, gererMesAffaires' `required: [Title, File]`), their schemas
        // from the union's properties, else from the chosen alternative's
        complete: (value, alternative) =>
          isObj(value) && (isObj(s['properties']) || Array.isArray(s['required']))
            ? withRequired(s, value, deref, depth, accepts, alternative)
            : value,
      });
  }
  if (Array.isArray(s['allOf'])) {
    // members that are all object schemas: one schema of their properties and required names (a `required` in one
    // member naming a property another declares: Vonage's `allOf: [{required: [ncco]}, {properties: {ncco}}]`)
    const flat = flattenAllOf(s, deref);
    // at the same depth: the merged schema has no `allOf` left, its properties are one level down (AWS wraps every
    // property in an `allOf`, which counted as levels reached the depth limit halfway down a pipeline declaration)
    if (flat !== undefined) return sampleOf(flat, deref, depth, accepts);
    const merged: JsonObject = {};
    const values = s['allOf'].map((part) => sampleOf(part, deref, depth + 1, accepts));
    for (const value of values) if (isObj(value)) Object.assign(merged, value);
    // an allOf of a scalar and annotations (AWS's `allOf: [{$ref: TagKey}, {description}]`): the scalar
    // (the first one every member accepts: `allOf: [{type: string}, {enum: [...]}]` takes the enum's member)
    const scalars = values.filter((v) => v !== null && !isObj(v));
    const everyMember = (v: Json): boolean =>
      accepts === undefined ||
      (s['allOf'] as Json[]).every((part) => {
        const member = deref(part);
        return !isObj(member) || accepts(member, v);
      });
    const scalar = scalars.find(everyMember) ?? scalars[0];
    if (scalar !== undefined && Object.keys(merged).length === 0 && !isObj(s['properties']) && typesOf(s)[0] !== 'object') return scalar;
    const rest = { ...s };
    delete rest['allOf'];
    for (const keyword of OWN_VALUE_KEYWORDS) delete rest[keyword]; // tried on `s` itself; a copy no validator checks
    const restValue = isObj(rest['properties']) ? sampleOf(rest, deref, depth + 1, accepts) : undefined;
    return withRequired(s, isObj(restValue) ? { ...merged, ...restValue } : merged, deref, depth, accepts);
  }
  const scalar = scalarSample(s, accepts);
  if (scalar !== undefined) return scalar;
  switch (typesOf(s).filter((t) => t !== 'null')[0] ?? 'object') {
    case 'array': {
      const min = typeof s['minItems'] === 'number' ? s['minItems'] : 1;
      const items = Array.from({ length: Math.max(1, min) }, () => sampleOf(s['items'], deref, depth + 1, accepts));
      // `uniqueItems` with more than one item required: the same sample twice would be refused; the n-th string gets
      // n appended, the n-th number n added (PortfolioOptimizer's asset indexes, `minimum: 1`)
      if (s['uniqueItems'] !== true || items.length < 2) return items;
      if (items.every((i) => typeof i === 'string')) return items.map((i, n) => (n === 0 ? i : `${String(i)}${n}`));
      if (items.every((i) => typeof i === 'number')) return items.map((i, n) => (i as number) + n);
      return items;
    }
    default:
      return withRequired(s, {}, deref, depth, accepts);
  }
}

/** An alternative of `union` that declares required names but no properties, given the union's properties. */
function requiredOnlyWithUnionProperties(union: JsonObject, alternative: Json | undefined, deref: Deref): Json | undefined {
  const alt = deref(alternative);
  if (!isObj(alt) || !isObj(union['properties']) || alt['properties'] !== undefined || !Array.isArray(alt['required'])) return alternative;
  if (alt['type'] !== undefined && alt['type'] !== 'object') return alternative;
  return { type: 'object', properties: union['properties'], ...alt };
}

/**
 * `value` with the object schema's required properties it lacks (from `properties`, or the `allOf` members', any
 * value when none declares it; a `readOnly` one is left out) and optional ones up to `minProperties`. `also`: a
 * schema that declares the properties too (the alternative a union's sample came from).
 */
function withRequired(s: JsonObject, value: JsonObject, deref: Deref, depth: number, accepts?: Accepts, also?: Json): JsonObject {
  const out: JsonObject = { ...value };
  const required = Array.isArray(s['required']) ? s['required'].filter((r): r is string => typeof r === 'string') : [];
  const properties = isObj(s['properties']) ? s['properties'] : {};
  // in the order of `properties` (as before), then those only `allOf` members or nothing declares
  const ordered = [...Object.keys(properties).filter((n) => required.includes(n)), ...required.filter((n) => !(n in properties))];
  for (const name of ordered) {
    if (name in out) continue;
    const alternative = deref(also);
    const prop = propertySchema(s, name, deref) ?? (isObj(alternative) ? propertySchema(alternative, name, deref) : undefined);
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

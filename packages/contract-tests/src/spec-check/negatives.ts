/**
 * Negative data per field and per constraint (D272 contract request bodies per media type): from a request the API accepted, one variant per (field,
 * constraint) that breaks exactly that constraint: a wrong type, a missing required property, a value outside the enum
 * or const, one character too short or too long, a string the pattern refuses, a number one step outside its range or
 * off its multipleOf, a malformed format, too few or too many items, an undeclared property where none is allowed.
 * Every variant is checked against the whole schema with the spec's own validator first: one the schema still accepts
 * is never sent. Variants come round-robin over the fields, so a cap keeps one per field before a second per field.
 */
import { isFileSchema } from './bodies.js';
import { isObj } from './document.js';
import type { Deref, Json, JsonObject } from './samples.js';

export interface Negative {
  /** Where: `body.buyer.email`, `query.page_size`. */
  field: string;
  /** Which keyword it breaks: type, required, enum, maxLength, ... */
  constraint: string;
  reason: string;
}

export interface NegativeValue extends Negative {
  value: Json | undefined;
}

const FORMAT_BREAKERS: Readonly<Record<string, string>> = {
  email: 'not-an-email',
  date: '2026-13-45',
  'date-time': 'not-a-date-time',
  time: '25:61:00',
  uuid: 'not-a-uuid',
  uri: 'not a uri',
  url: 'not a url',
  ipv4: '999.1.1.1',
  ipv6: 'not:an:ipv6::x',
  hostname: '-not_a_host-',
};

function typesOf(s: JsonObject): string[] {
  const t = s['type'];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  if (typeof t === 'string') return [t];
  if (isObj(s['properties'])) return ['object'];
  return [];
}

/**
 * Values that break one constraint of a scalar schema each. `stringOnly`: the value travels as text (query, header,
 * path, form field), so a JSON type other than a string cannot be expressed except as its text.
 */
export function scalarNegatives(
  schema: Json | undefined,
  deref: Deref,
  stringOnly: boolean,
): { value: Json; constraint: string; reason: string }[] {
  const s = deref(schema);
  if (!isObj(s) || isFileSchema(s)) return [];
  const out: { value: Json; constraint: string; reason: string }[] = [];
  const types = typesOf(s);
  const numeric = types.includes('integer') || types.includes('number');
  if (types.length > 0) {
    if (!types.includes('string') && (numeric || types.includes('boolean')))
      out.push({ value: 'not-a-number', constraint: 'type', reason: `a string where ${types.join('|')} is declared` });
    else if (types.includes('string') && !numeric && !stringOnly)
      out.push({ value: 12345, constraint: 'type', reason: 'a number where a string is declared' });
    if (types.includes('integer') && !types.includes('number'))
      out.push({ value: 1.5, constraint: 'type', reason: 'a fraction where an integer is declared' });
  }
  if (Array.isArray(s['enum']) && s['enum'].length > 0) {
    const first = s['enum'].find((v) => typeof v === 'string');
    const candidate = typeof first === 'string' ? `${first}_NOT_IN_ENUM` : 'NOT_IN_ENUM';
    if (!s['enum'].includes(candidate))
      out.push({ value: candidate, constraint: 'enum', reason: `${JSON.stringify(candidate)} is not in the enum` });
  }
  if (s['const'] !== undefined) {
    const other = typeof s['const'] === 'string' ? `${s['const']}_other` : typeof s['const'] === 'boolean' ? !s['const'] : 'other';
    out.push({ value: other, constraint: 'const', reason: `${JSON.stringify(other)} is not the const` });
  }
  const minLength = typeof s['minLength'] === 'number' ? s['minLength'] : undefined;
  const maxLength = typeof s['maxLength'] === 'number' ? s['maxLength'] : undefined;
  if (minLength !== undefined && minLength > 0)
    out.push({ value: 'a'.repeat(minLength - 1), constraint: 'minLength', reason: `${minLength - 1} characters, minLength ${minLength}` });
  if (maxLength !== undefined && maxLength < 100_000)
    out.push({ value: 'a'.repeat(maxLength + 1), constraint: 'maxLength', reason: `${maxLength + 1} characters, maxLength ${maxLength}` });
  if (typeof s['pattern'] === 'string') {
    let re: RegExp | undefined;
    try {
      re = new RegExp(s['pattern'], 'u');
    } catch {
      re = undefined;
    }
    if (re !== undefined) {
      const fits = (c: string) => (minLength === undefined || c.length >= minLength) && (maxLength === undefined || c.length <= maxLength);
      const candidates = ['!', '!!!!!!!!', 'a b', ' ', '#0', 'ZZ!', '!'.repeat(Math.max(1, minLength ?? 1))];
      const found = candidates.find((c) => !re.test(c) && fits(c)) ?? candidates.find((c) => !re.test(c));
      if (found !== undefined)
        out.push({ value: found, constraint: 'pattern', reason: `${JSON.stringify(found)} does not match ${s['pattern']}` });
    }
  }
  if (typeof s['format'] === 'string' && FORMAT_BREAKERS[s['format']] !== undefined && types.includes('string'))
    out.push({ value: FORMAT_BREAKERS[s['format']]!, constraint: 'format', reason: `not a valid ${s['format']}` });
  const step = types.includes('integer') ? 1 : typeof s['multipleOf'] === 'number' ? s['multipleOf'] : 0.5;
  if (typeof s['minimum'] === 'number')
    out.push({ value: s['minimum'] - step, constraint: 'minimum', reason: `${s['minimum'] - step} below the minimum ${s['minimum']}` });
  if (typeof s['maximum'] === 'number')
    out.push({ value: s['maximum'] + step, constraint: 'maximum', reason: `${s['maximum'] + step} above the maximum ${s['maximum']}` });
  if (typeof s['exclusiveMinimum'] === 'number')
    out.push({
      value: s['exclusiveMinimum'],
      constraint: 'exclusiveMinimum',
      reason: `${s['exclusiveMinimum']} is not above the exclusive minimum`,
    });
  if (typeof s['exclusiveMaximum'] === 'number')
    out.push({
      value: s['exclusiveMaximum'],
      constraint: 'exclusiveMaximum',
      reason: `${s['exclusiveMaximum']} is not below the exclusive maximum`,
    });
  if (typeof s['multipleOf'] === 'number' && s['multipleOf'] > 0) {
    const base = typeof s['minimum'] === 'number' ? s['minimum'] : 0;
    const off = base + s['multipleOf'] / 2;
    if (typeof s['maximum'] !== 'number' || off <= s['maximum'])
      out.push({ value: off, constraint: 'multipleOf', reason: `${off} is not a multiple of ${s['multipleOf']}` });
  }
  if (stringOnly) return out.map((n) => (typeof n.value === 'string' ? n : { ...n, value: String(n.value) }));
  return out;
}

function objectSchemaOf(schema: Json | undefined, deref: Deref): { properties: Record<string, Json>; required: string[]; closed: boolean } {
  const s = deref(schema);
  const out = { properties: {} as Record<string, Json>, required: [] as string[], closed: false };
  if (!isObj(s)) return out;
  for (const part of Array.isArray(s['allOf']) ? s['allOf'] : []) {
    const inner = objectSchemaOf(part, deref);
    Object.assign(out.properties, inner.properties);
    out.required.push(...inner.required);
    out.closed ||= inner.closed;
  }
  if (isObj(s['properties'])) Object.assign(out.properties, s['properties']);
  if (Array.isArray(s['required'])) out.required.push(...s['required'].filter((r): r is string => typeof r === 'string'));
  if (s['additionalProperties'] === false || s['unevaluatedProperties'] === false) out.closed = true;
  return out;
}

const setAt = (root: Json, path: readonly string[], value: Json | undefined): Json => {
  const copy = structuredClone(root) as Json;
  let node = copy as JsonObject;
  for (const key of path.slice(0, -1)) node = node[key] as JsonObject;
  const last = path[path.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
};

/** An array property's variants: empty below `minItems`, one item past `maxItems`, an object in its place. */
function arrayNegatives(
  prop: JsonObject,
  current: Json[],
  field: string,
  withValue: (v: Json) => Json,
  stringOnly: boolean,
): NegativeValue[] {
  const list: NegativeValue[] = [];
  if (typeof prop['minItems'] === 'number' && prop['minItems'] > 0)
    list.push({ field, constraint: 'minItems', reason: `an empty array, minItems ${prop['minItems']}`, value: withValue([]) });
  if (typeof prop['maxItems'] === 'number' && prop['maxItems'] < 1000 && current.length > 0)
    list.push({
      field,
      constraint: 'maxItems',
      reason: `${prop['maxItems'] + 1} items, maxItems ${prop['maxItems']}`,
      value: withValue(Array.from({ length: prop['maxItems'] + 1 }, () => current[0]!)),
    });
  if (!stringOnly)
    list.push({ field, constraint: 'type', reason: 'an object where an array is declared', value: withValue({ not: 'an array' }) });
  return list;
}

/**
 * Variants of an accepted body, each breaking one constraint of one field (depth-first, then interleaved per field),
 * each refused by `validates` (the body schema's validator). `stringOnly`: a form or multipart body.
 */
export function bodyNegatives(
  schema: Json | undefined,
  accepted: Json,
  deref: Deref,
  validates: (value: Json) => boolean,
  stringOnly: boolean,
): NegativeValue[] {
  const perField: NegativeValue[][] = [];
  const root = deref(schema);
  if (isObj(root) && isObj(accepted) && !stringOnly) {
    perField.push([{ field: 'body', constraint: 'type', reason: 'an array where an object is declared', value: [] }]);
  }
  const walk = (s: Json | undefined, value: Json, path: string[], depth: number): void => {
    const shape = objectSchemaOf(s, deref);
    if (!isObj(value)) return;
    const here: NegativeValue[] = [];
    if (shape.closed && Object.keys(shape.properties).length > 0)
      here.push({
        field: ['body', ...path].join('.'),
        constraint: 'additionalProperties',
        reason: 'an undeclared property where none is allowed',
        value: setAt(accepted, [...path, 'x_undeclared_property'], 'x'),
      });
    if (here.length > 0) perField.push(here);
    for (const [name, propSchema] of Object.entries(shape.properties)) {
      const field = ['body', ...path, name].join('.');
      const list: NegativeValue[] = [];
      const present = value[name] !== undefined;
      if (shape.required.includes(name) && present)
        list.push({
          field,
          constraint: 'required',
          reason: `required property "${name}" missing`,
          value: setAt(accepted, [...path, name], undefined),
        });
      for (const n of scalarNegatives(propSchema, deref, stringOnly))
        list.push({ field, constraint: n.constraint, reason: n.reason, value: setAt(accepted, [...path, name], n.value) });
      const prop = deref(propSchema);
      if (isObj(prop) && present) {
        const types = typesOf(prop);
        if (types.includes('array') && Array.isArray(value[name])) {
          const withValue = (v: Json) => setAt(accepted, [...path, name], v);
          list.push(...arrayNegatives(prop, value[name] as Json[], field, withValue, stringOnly));
        } else if ((types.includes('object') || isObj(prop['properties'])) && !stringOnly) {
          list.push({
            field,
            constraint: 'type',
            reason: 'an array where an object is declared',
            value: setAt(accepted, [...path, name], []),
          });
          if (depth < 3) walk(propSchema, value[name]!, [...path, name], depth + 1);
        }
      }
      if (list.length > 0) perField.push(list);
    }
  };
  walk(schema, accepted, [], 0);
  const out: NegativeValue[] = [];
  for (let round = 0; perField.some((l) => l.length > round); round++)
    for (const list of perField) {
      const n = list[round];
      if (n !== undefined && n.value !== undefined && !validates(n.value)) out.push(n);
    }
  return out;
}

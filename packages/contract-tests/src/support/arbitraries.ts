/**
 * JSON Schema (the subset the Paygate spec uses) -> fast-check arbitrary of VALID instances:
 * type (incl. type arrays), enum, const, pattern (fc.stringMatching), minLength/maxLength, minimum/maximum,
 * required, properties, additionalProperties false, items/minItems/maxItems/uniqueItems, oneOf/anyOf, allOf (merged;
 * if/then enforced by a final Ajv filter), formats email/uri/date/date-time/uuid, internal $ref.
 * Every generated value is filtered through Ajv against the same schema, so an arbitrary never yields an invalid
 * instance even where the generator approximates.
 */
import fc from 'fast-check';
import { validatorAt } from './conformance.js';
import { deref, type Json, type JsonObject } from './spec.js';

type Schema = JsonObject;

function obj(v: Json | undefined): Schema {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

function resolve(schema: Schema, at: string): { schema: Schema; at: string } {
  const r = deref(schema, at);
  return { schema: obj(r.node), at: r.at };
}

const dateArb = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true });

function stringArb(s: Schema): fc.Arbitrary<string> {
  const minLength = num(s['minLength']) ?? 0;
  const maxLength = num(s['maxLength']) ?? 64;
  const fits = (v: string) => v.length >= minLength && v.length <= maxLength;
  switch (s['format']) {
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uri': {
      const pattern = typeof s['pattern'] === 'string' ? new RegExp(s['pattern'], 'u') : undefined;
      return fc.webUrl({ validSchemes: ['https', 'http'] }).filter((v) => fits(v) && (pattern === undefined || pattern.test(v)));
    }
    case 'date':
      return dateArb.map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return dateArb.map((d) => d.toISOString());
    case 'uuid':
      return fc.uuid();
    default:
      break;
  }
  if (typeof s['pattern'] === 'string') {
    return fc.stringMatching(new RegExp(s['pattern'], 'u')).filter(fits);
  }
  // Free text: full unicode, including control characters (a schema without a pattern accepts them).
  return fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 40) }).filter(fits);
}

function numberArb(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = num(s['minimum']) ?? (integer ? -1_000_000 : -1e9);
  const max = num(s['maximum']) ?? (integer ? 1_000_000 : 1e9);
  return integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Merge allOf branches' properties/required into the base (if/then are left to the final filter). */
function mergeAllOf(s: Schema, at: string): Schema {
  const all = s['allOf'];
  if (!Array.isArray(all)) return s;
  const merged: Schema = { ...s };
  delete merged['allOf'];
  all.forEach((branch, i) => {
    const b = resolve(obj(branch), `${at}/allOf/${i}`).schema;
    if (b['properties']) merged['properties'] = { ...obj(merged['properties']), ...obj(b['properties']) };
    if (Array.isArray(b['required'])) merged['required'] = [...((merged['required'] as Json[] | undefined) ?? []), ...b['required']];
    if (b['type'] && !merged['type']) merged['type'] = b['type'];
  });
  return merged;
}

function build(schemaIn: Schema, atIn: string, depth: number): fc.Arbitrary<unknown> {
  const { schema: resolved, at } = resolve(schemaIn, atIn);
  const s = mergeAllOf(resolved, at);
  if ('const' in s) return fc.constant(s['const']);
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as Json[]));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches)) return fc.oneof(...branches.map((b, i) => build(obj(b), `${at}/${key}/${i}`, depth + 1)));
  }
  const type = s['type'];
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => build({ ...s, type: t }, at, depth)));
  switch (type) {
    case 'string':
      return stringArb(s);
    case 'integer':
      return numberArb(s, true);
    case 'number':
      return numberArb(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = build(obj(s['items']), `${at}/items`, depth + 1);
      const minLength = num(s['minItems']) ?? 0;
      const maxLength = Math.min(num(s['maxItems']) ?? 5, 5);
      return s['uniqueItems'] === true
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
    default: {
      const props = obj(s['properties']);
      const required = new Set(((s['required'] as Json[] | undefined) ?? []).map(String));
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, sub] of Object.entries(props)) model[name] = build(obj(sub), `${at}/properties/${name}`, depth + 1);
      const requiredKeys = [...required].filter((k) => k in model);
      let arb = fc.record(model, { requiredKeys }) as fc.Arbitrary<Record<string, unknown>>;
      const minProperties = num(s['minProperties']);
      if (minProperties) arb = arb.filter((o) => Object.keys(o).length >= minProperties);
      return arb;
    }
  }
}

/** Valid instances of the schema at an internal pointer of the spec (e.g. `#/components/schemas/CreateOrderRequest`). */
export function arbitraryFor(pointer: string): fc.Arbitrary<unknown> {
  const validate = validatorAt(pointer);
  return build({ $ref: pointer }, pointer, 0).filter((v) => validate(v) === true);
}

/** The schema (after $ref) at a path inside an instance, following properties / items / allOf. */
export function schemaAtPath(pointer: string, path: readonly (string | number)[]): Schema | undefined {
  let { schema, at } = resolve({ $ref: pointer }, pointer);
  for (const seg of path) {
    schema = mergeAllOf(schema, at);
    if (typeof seg === 'number') {
      ({ schema, at } = resolve(obj(schema['items']), `${at}/items`));
    } else {
      const sub = obj(schema['properties'])[seg];
      if (!sub) return undefined;
      ({ schema, at } = resolve(obj(sub), `${at}/properties/${seg}`));
    }
  }
  return mergeAllOf(schema, at);
}

/** Whether `key` is required by the object schema at `parentPath`. */
export function isRequired(pointer: string, parentPath: readonly (string | number)[], key: string): boolean {
  const parent = schemaAtPath(pointer, parentPath);
  return Array.isArray(parent?.['required']) && (parent['required'] as Json[]).includes(key);
}

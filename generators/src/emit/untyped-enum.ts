/**
 * A parameter's `enum` written without a `type` (Vonage's `delivered: {enum: [true, false, 0, 1]}`) given the types
 * of its values, so the validators coerce the text a parameter arrives as (decision D455: an untyped parameter enum
 * typed by its values). Ajv coerces only to a declared `type`: without one, the query's `true` stays the string
 * "true" and no value of the enum equals it, so every request was refused. With `type: [boolean, integer]` Ajv tries
 * each type in order and `"true"` becomes `true`, `"1"` becomes `1`. An enum holding a string keeps no type: a string
 * parameter matches as it arrives, and coercing a string value could turn it into another.
 */
import { isObj } from '../util/json.js';

/** The JSON Schema type of one enum value, or undefined for values a parameter cannot be coerced to. */
function typeOf(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return undefined;
}

/** `schema` with a `type` from its enum's values when it has an enum of booleans, numbers or null and no type. */
export function typedByEnum(schema: unknown): unknown {
  if (!isObj(schema) || schema['type'] !== undefined || !Array.isArray(schema['enum']) || schema['enum'].length === 0) return schema;
  const types: string[] = [];
  for (const value of schema['enum']) {
    const type = typeOf(value);
    if (type === undefined) return schema;
    if (!types.includes(type)) types.push(type);
  }
  // integers are numbers: one `number` covers both
  const merged = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
  return { ...schema, type: merged.length === 1 ? merged[0] : merged };
}

/** An enum value as the declared scalar `type` reads its text (`1` as "1" for a string), or undefined when it cannot. */
function asType(value: unknown, type: string): { value: unknown } | undefined {
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) return undefined;
  switch (type) {
    case 'string':
      return { value: text };
    case 'integer':
    case 'number': {
      if (!/^-?\d+(\.\d+)?$/.test(text)) return undefined;
      const number = Number(text);
      return type === 'integer' && !Number.isInteger(number) ? undefined : { value: number };
    }
    case 'boolean':
      return text === 'true' || text === 'false' ? { value: text === 'true' } : undefined;
    default:
      return undefined;
  }
}

/**
 * `schema` with its `enum` values of another JSON type than its one scalar `type` written in that type, when every
 * value's text reads as it (`{type: string, enum: [1, 2]}` as `["1", "2"]`, `{type: integer, enum: ["1", "10"]}` as
 * `[1, 10]`): a parameter arrives as text and the text of those values is what a client sends, but a strict validator
 * finds no string equal to `1` and refused every request (D470 a parameter enum of another type read as its text).
 * Unchanged when the enum already fits or a value has no such reading (the spec stays as unsatisfiable as written).
 */
export function enumOfDeclaredType(schema: unknown): unknown {
  if (!isObj(schema) || typeof schema['type'] !== 'string' || !Array.isArray(schema['enum']) || schema['enum'].length === 0) return schema;
  const type = schema['type'];
  const fits = (value: unknown): boolean =>
    typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer') || (type === 'string' && typeof value === 'string');
  if (schema['enum'].every((value) => value === null || fits(value))) return schema;
  const values: unknown[] = [];
  for (const value of schema['enum']) {
    if (value === null || fits(value)) {
      values.push(value);
      continue;
    }
    const read = asType(value, type);
    if (read === undefined) return schema;
    values.push(read.value);
  }
  return { ...schema, enum: [...new Set(values)] };
}

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

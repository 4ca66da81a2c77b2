/**
 * A value for a `oneOf`/`anyOf`: one alternative's sample, tried in order until the whole schema accepts one (D426
 * a oneOf sample picks one branch, sets its discriminator and breaks the branches it also matches). With a
 * `discriminator`, the branch's sample carries the tag the mapping gives that branch (or the branch's schema name).
 * A `oneOf` refuses a value that more than one branch accepts (branches without `additionalProperties: false` overlap,
 * and validators read no `discriminator`): the sample then gets one of the chosen branch's optional properties that
 * the others refuse, else a property another branch declares with a value of the wrong type, which that branch
 * refuses and the chosen one, not declaring it, lets through.
 */
import { isObj } from '@paygate/contract/json';
import type { Accepts, Deref, Json, JsonObject } from './samples.js';

export interface UnionContext {
  deref: Deref;
  accepts: Accepts | undefined;
  /** The sampler itself, one level deeper. */
  sample: (schema: Json | undefined) => Json;
  /** Fills the union schema's own required properties (those beside `oneOf`) into an alternative's object sample. */
  complete: (value: Json, alternative: Json) => Json;
}

/** The last token of a `$ref` (`#/components/schemas/Card` gives `Card`). */
function refName(ref: string): string {
  return decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1))
    .replaceAll('~1', '/')
    .replaceAll('~0', '~');
}

/**
 * The tags a discriminator allows for an alternative, best first: the mapping's keys that name it (by the whole
 * reference or by its schema name), then the schema name itself (OpenAPI's implicit mapping).
 */
export function discriminatorTags(discriminator: Json | undefined, alternative: Json): string[] {
  if (!isObj(discriminator) || !isObj(alternative) || typeof alternative['$ref'] !== 'string') return [];
  const ref = alternative['$ref'];
  const name = refName(ref);
  const mapping = isObj(discriminator['mapping']) ? discriminator['mapping'] : {};
  const mapped = Object.entries(mapping)
    .filter(([, target]) => typeof target === 'string' && (target === ref || target === name || refName(target) === name))
    .map(([tag]) => tag);
  return [...new Set([...mapped, name])];
}

/** A value of the wrong type for a property schema: what that schema refuses whatever else it declares. */
function wrongTypeFor(schema: JsonObject): Json | undefined {
  const types = Array.isArray(schema['type']) ? schema['type'] : typeof schema['type'] === 'string' ? [schema['type']] : [];
  if (types.length === 0) {
    if (Array.isArray(schema['enum']) && schema['enum'].every((e) => typeof e === 'string')) return 12345;
    return undefined;
  }
  if (!types.includes('object')) return { paygate: 'wrong type' };
  if (!types.includes('array')) return ['wrong type'];
  return undefined;
}

/** The declared properties of an object schema, its `allOf` members' too. */
function declaredProperties(schema: Json | undefined, deref: Deref, depth = 0): Map<string, Json> {
  const out = new Map<string, Json>();
  const s = deref(schema);
  if (!isObj(s) || depth > 8) return out;
  if (isObj(s['properties'])) for (const [name, property] of Object.entries(s['properties'])) out.set(name, property);
  for (const part of Array.isArray(s['allOf']) ? s['allOf'] : [])
    for (const [name, property] of declaredProperties(part, deref, depth + 1)) if (!out.has(name)) out.set(name, property);
  return out;
}

/** How many of the alternatives other than `chosen` accept the value. */
function othersAccepting(value: JsonObject, chosen: number, alternatives: Json[], context: UnionContext): number {
  let count = 0;
  for (const [index, alternative] of alternatives.entries()) {
    const other = context.deref(alternative);
    if (index !== chosen && isObj(other) && context.accepts!(other, value)) count++;
  }
  return count;
}

/**
 * `value` (alternative `chosen`'s sample) changed so the other alternatives refuse it, undefined when it cannot be:
 * first with one of `chosen`'s optional properties (a `type: {enum: [query]}` the others' enums refuse, InfluxDB's
 * variable properties), else for each other alternative that accepts it a property that one declares and `chosen`
 * does not, set to a value of the wrong type.
 */
function excludeOthers(value: JsonObject, chosen: number, alternatives: Json[], context: UnionContext): JsonObject | undefined {
  const { deref, accepts } = context;
  const mine = deref(alternatives[chosen]);
  if (accepts === undefined || !isObj(mine)) return undefined;
  const own = declaredProperties(mine, deref);
  for (const [name, property] of own) {
    if (name in value) continue;
    const withOptional = { ...value, [name]: context.sample(property) };
    if (accepts(mine, withOptional) && othersAccepting(withOptional, chosen, alternatives, context) === 0) return withOptional;
  }
  const out: JsonObject = { ...value };
  for (const [index, alternative] of alternatives.entries()) {
    const other = deref(alternative);
    if (index === chosen || !isObj(other) || !accepts(other, out)) continue;
    const broken = [...declaredProperties(other, deref)].find(([name, property]) => {
      const resolved = deref(property);
      return !own.has(name) && !(name in out) && isObj(resolved) && wrongTypeFor(resolved) !== undefined;
    });
    if (broken === undefined) return undefined;
    out[broken[0]] = wrongTypeFor(deref(broken[1]) as JsonObject)!;
  }
  return accepts(mine, out) ? out : undefined;
}

/** The candidates for one alternative: its sample with each discriminator tag, then as sampled. */
function candidatesOf(s: JsonObject, alternative: Json, value: Json): Json[] {
  const discriminator = s['discriminator'];
  const property = isObj(discriminator) && typeof discriminator['propertyName'] === 'string' ? discriminator['propertyName'] : undefined;
  if (property === undefined || !isObj(value)) return [value];
  const tags = discriminatorTags(discriminator, alternative);
  if (tags.includes(value[property] as string)) return [value];
  return [...tags.map((tag) => ({ ...value, [property]: tag })), value];
}

/**
 * A sample of the union schema `s` whose `key` (`oneOf` or `anyOf`) lists the alternatives: the first candidate the
 * whole schema accepts, else the first alternative's sample (without a check, the first alternative's as before).
 */
export function unionSample(s: JsonObject, key: 'oneOf' | 'anyOf', context: UnionContext): Json {
  const alternatives = (s[key] as Json[]).slice(0, 8);
  const fits = (value: Json): boolean => context.accepts === undefined || context.accepts(s, value);
  const tried: Json[] = [];
  for (const [index, alternative] of alternatives.entries()) {
    for (const candidate of candidatesOf(s, alternative, context.sample(alternative))) {
      const value = context.complete(candidate, alternative);
      if (fits(value)) return value;
      tried.push(value);
      if (key !== 'oneOf' || !isObj(value)) continue;
      const exclusive = excludeOthers(value, index, alternatives, context);
      if (exclusive !== undefined && fits(exclusive)) return exclusive;
    }
  }
  return tried[0]!;
}

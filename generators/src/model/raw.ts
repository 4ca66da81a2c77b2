/**
 * Reading raw JSON values for the model builders (model/*.ts and model/schema/build.ts): one definition each of the
 * string reader and the `x-` extensions of an object (a second copy fails test/spec/one-definition.test.ts).
 */
import { compareStrings } from '../util/sorted.js';
import type { JsonObject } from '../util/json.js';

/** `v` when it is a string, else undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The object's `x-` keywords, by name, sorted. */
export function extensionsOf(node: JsonObject): Record<string, unknown> {
  const keys: string[] = [];
  for (const key in node) if (key.startsWith('x-')) keys.push(key);
  const out: Record<string, unknown> = {};
  // sorted only when there are some: most objects have none, and this runs once per schema of the document
  for (const key of keys.length > 1 ? keys.sort(compareStrings) : keys) out[key] = node[key];
  return out;
}

import { pointerToken, UnsupportedSpecError } from './refusal.js';
import { isObj, unescapePointerToken } from '../util/json.js';

const PREFIX = '#/components/schemas/';

/**
 * A component schema that is only a `$ref` to itself through other bare `$ref`s (`A: {$ref: B}`, `B: {$ref: A}`)
 * describes no value (recursion through properties or items is fine). The bundler stops on it with "Self-referencing
 * circular pointer" and no location; this names the schema.
 */
export function refuseRefCycles(document: unknown, file: string): void {
  const components = isObj(document) && isObj(document.components) ? document.components : {};
  const schemas = isObj(components.schemas) ? components.schemas : {};
  for (const name of Object.keys(schemas).sort()) {
    const seen = [name];
    let current: unknown = schemas[name];
    while (isObj(current) && typeof current.$ref === 'string' && current.$ref.startsWith(PREFIX)) {
      const target = unescapePointerToken(current.$ref.slice(PREFIX.length));
      if (seen.includes(target)) {
        throw new UnsupportedSpecError(
          file,
          `#/components/schemas/${pointerToken(name)}`,
          `the schema is a $ref cycle (${[...seen, target].join(' -> ')}): it never reaches a schema that describes a value.`,
          'point one of the $refs at a real schema (recursion through properties or items is fine).',
        );
      }
      seen.push(target);
      current = schemas[target];
    }
  }
}

/**
 * A query parameter's value as name/value pairs on the wire, per its OpenAPI `style` and `explode` (defaults: `form`,
 * exploded) or its `content` media type, and D456 for what OpenAPI leaves undefined: an object inside an array or
 * inside an exploded object's property is sent as its JSON text (the scaffold's request validation parses it back).
 */
import { isObj } from '@paygate/contract/json';
import type { Json } from '../samples.js';

/** What serialisation reads of a parameter (the checker's ParamSpec and the corpus probe's parameters both fit). */
export interface SerializedParam {
  name: string;
  style?: string | undefined;
  explode?: boolean | undefined;
  /** The media type of a `content` parameter: its value is sent as one text (JSON for a JSON media type). */
  contentType?: string | undefined;
}

const ARRAY_DELIMITER: Record<string, string> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|' };

/** One value as text: a primitive as itself, an object or array as its JSON text (D456 nested values as JSON text). */
export function paramText(value: Json): string {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function serializeParam(p: SerializedParam, value: Json): [string, string][] {
  if (p.contentType !== undefined) return [[p.name, paramText(value)]];
  const style = p.style ?? 'form';
  const explode = p.explode ?? style === 'form';
  if (Array.isArray(value)) {
    if (style === 'deepObject') return value.map((v) => [`${p.name}[]`, paramText(v)]);
    if (!explode) return [[p.name, value.map(paramText).join(ARRAY_DELIMITER[style] ?? ',')]];
    return value.map((v) => [p.name, paramText(v)]);
  }
  if (isObj(value)) {
    if (style === 'deepObject') return Object.entries(value).map(([k, v]) => [`${p.name}[${k}]`, paramText(v)]);
    if (!explode)
      return [
        [
          p.name,
          Object.entries(value)
            .flatMap(([k, v]) => [k, paramText(v)])
            .join(','),
        ],
      ];
    // form, exploded: each property its own key, an array property one key per item
    return Object.entries(value).flatMap(([k, v]): [string, string][] =>
      Array.isArray(v) ? v.map((item) => [k, paramText(item)]) : [[k, paramText(v)]],
    );
  }
  return [[p.name, paramText(value)]];
}

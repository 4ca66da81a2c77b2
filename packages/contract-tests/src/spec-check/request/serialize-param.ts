/**
 * A query parameter's value as name/value pairs on the wire, per its OpenAPI `style` and `explode` (defaults: `form`,
 * exploded) or its `content` media type, and D456 for what OpenAPI leaves undefined: an object inside an array or
 * inside an exploded object's property is sent as its JSON text (the scaffold's request validation parses it back).
 * A path parameter's value as its segment (D413, "Object path parameters read by their style").
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

/**
 * A path parameter's value as the text of its path segment, percent-encoded, per its `style` (`simple` by default,
 * `label`, `matrix`) and `explode` (false by default), as the OpenAPI 3.1 style table writes it (D413, "Object path
 * parameters read by their style"); a `content` parameter as its one text.
 */
export function serializePathParam(p: SerializedParam, value: Json): string {
  const encoded = (v: Json): string => encodeURIComponent(paramText(v));
  if (p.contentType !== undefined) return encoded(value);
  const style = p.style ?? 'simple';
  const explode = p.explode ?? false;
  const name = encodeURIComponent(p.name);
  const prefix = style === 'label' ? '.' : style === 'matrix' ? ';' : '';
  if (Array.isArray(value)) {
    if (style === 'matrix')
      return explode ? value.map((v) => `;${name}=${encoded(v)}`).join('') : `;${name}=${value.map(encoded).join(',')}`;
    return prefix + value.map(encoded).join(style === 'label' ? '.' : ',');
  }
  if (isObj(value)) {
    const entries = Object.entries(value).map(([k, v]): [string, string] => [encodeURIComponent(k), encoded(v)]);
    if (explode) return prefix + entries.map(([k, v]) => `${k}=${v}`).join(style === 'simple' ? ',' : prefix);
    const items = entries.flat();
    if (style === 'matrix') return `;${name}=${items.join(',')}`;
    return prefix + items.join(style === 'label' ? '.' : ',');
  }
  return style === 'matrix' ? `;${name}=${encoded(value)}` : prefix + encoded(value);
}

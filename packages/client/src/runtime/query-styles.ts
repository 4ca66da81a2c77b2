/**
 * Query parameters written by their OpenAPI `style` and `explode` where openapi-fetch's one default for every
 * parameter (arrays form exploded, objects `deepObject`) is not what the spec declares: objects (form exploded by
 * default: their properties as keys), arrays of objects, delimited arrays and `content` parameters. Where OpenAPI says
 * nothing, an object inside an array or a property is its JSON text (D456 query objects and arrays of objects
 * serialised), as the scaffold's request validation reads it.
 */
import { isObj } from '@paygate/contract/json';

/** How one query parameter is written (generated into an operation's meta only where openapi-fetch's default differs). */
export interface QueryStyle {
  readonly style?: string;
  readonly explode?: boolean;
  /** A `content` parameter: the value as one text (JSON). */
  readonly content?: boolean;
}

export type QueryStyles = Readonly<Record<string, QueryStyle>>;

const ARRAY_DELIMITER: Readonly<Record<string, string>> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|' };

function text(value: unknown): string {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** One parameter's name/value pairs (not yet encoded). */
export function styledPairs(name: string, style: QueryStyle, value: unknown): [string, string][] {
  if (style.content === true) return [[name, text(value)]];
  const form = style.style ?? 'form';
  const explode = style.explode ?? form === 'form';
  if (Array.isArray(value)) {
    if (form === 'deepObject') return value.map((v) => [`${name}[]`, text(v)]);
    if (!explode) return [[name, value.map(text).join(ARRAY_DELIMITER[form] ?? ',')]];
    return value.map((v) => [name, text(v)]);
  }
  if (isObj(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (form === 'deepObject') return entries.map(([k, v]) => [`${name}[${k}]`, text(v)]);
    if (!explode) return [[name, entries.flatMap(([k, v]) => [k, text(v)]).join(',')]];
    return entries.flatMap(([k, v]): [string, string][] => (Array.isArray(v) ? v.map((item) => [k, text(item)]) : [[k, text(v)]]));
  }
  return [[name, text(value)]];
}

/**
 * The query string (without `?`): each parameter `styles` names written by its style, every other one by
 * `fallback` (openapi-fetch's serializer), in the order given.
 */
export function styledQuery(
  styles: QueryStyles,
  query: Record<string, unknown>,
  fallback: (query: Record<string, unknown>) => string,
): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    const style = styles[name];
    const part =
      style === undefined
        ? fallback({ [name]: value })
        : styledPairs(name, style, value)
            .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
            .join('&');
    if (part !== '') parts.push(part);
  }
  return parts.join('&');
}

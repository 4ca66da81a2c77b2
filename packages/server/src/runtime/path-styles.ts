/**
 * A path parameter's value as its OpenAPI style writes it, read back (D413, "Object path parameters read by their
 * style"): `simple`, `label` and `matrix`, exploded or not, for a primitive, an array or an object, per the OpenAPI 3.1
 * style table. The values stay text: the path parameters' validator coerces them by the schemas (an object's by its
 * property schemas), as it does a query object's. The router has already percent-decoded the segment, so a value that
 * holds its style's delimiter cannot be told from two values.
 */
import { splitOutsideJson } from './split-outside-json.js';

export type PathStyle = 'simple' | 'label' | 'matrix';

/** How one path parameter is written: its style, explode and the kind of value its schema declares. */
export interface PathForm {
  readonly name: string;
  readonly style: PathStyle;
  readonly explode: boolean;
  readonly shape: 'primitive' | 'array' | 'object';
  /** Array items or object properties declared as objects: each is its JSON text (D456 query objects and arrays of objects serialised). */
  readonly json?: readonly string[] | true;
}

/** What a value of this form looks like, for the 400 that refuses one that is not written so. */
export function pathFormExample(form: PathForm): string {
  const { name, style, explode, shape } = form;
  if (shape === 'primitive') return style === 'label' ? '.5' : style === 'matrix' ? `;${name}=5` : '5';
  if (shape === 'array') {
    if (style === 'label') return '.3.4.5';
    if (style === 'matrix') return explode ? `;${name}=3;${name}=4;${name}=5` : `;${name}=3,4,5`;
    return '3,4,5';
  }
  if (style === 'label') return explode ? '.R=100.G=200' : '.R.100.G.200 (or .R,100,G,200)';
  if (style === 'matrix') return explode ? ';R=100;G=200' : `;${name}=R,100,G,200`;
  return explode ? 'R=100,G=200' : 'R,100,G,200';
}

/** `text` split at `delimiter` outside JSON texts when the form holds JSON items, else plainly. */
function split(text: string, delimiter: string, json: boolean): string[] {
  return json ? splitOutsideJson(text, delimiter) : text.split(delimiter);
}

/** `k=v` items as an object; undefined when one has no `=`. */
function pairsByEquals(items: readonly string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) return undefined;
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** `k1,v1,k2,v2` items as an object; undefined for an odd number of items. */
function pairsInTurn(items: readonly string[]): Record<string, string> | undefined {
  if (items.length % 2 !== 0) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < items.length; i += 2) {
    if (items[i] === '') return undefined;
    out[items[i]!] = items[i + 1]!;
  }
  return out;
}

/** The JSON value of a text, or the text when it is not JSON (validation then names it). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The value a path segment carries in this form, still text (an array of texts, an object of texts); undefined when
 * the segment is not written in the form (a label value without its `.`, an object of an odd number of items).
 */
export function readPathStyle(form: PathForm, raw: string): unknown {
  const { name, style, explode, shape } = form;
  const jsonItems = form.json !== undefined;
  let rest = raw;
  if (style === 'label') {
    if (!raw.startsWith('.')) return undefined;
    rest = raw.slice(1);
  } else if (style === 'matrix') {
    if (!raw.startsWith(';')) return undefined;
    rest = raw.slice(1);
  }
  // matrix, a primitive, an array or a non-exploded object: `;name=...` (`;name` alone is the empty value)
  let named: string | undefined;
  if (style === 'matrix' && !(shape === 'object' && explode) && !(shape === 'array' && explode)) {
    if (rest === name) named = '';
    else if (rest.startsWith(`${name}=`)) named = rest.slice(name.length + 1);
    else return undefined;
  }
  if (shape === 'primitive') return named ?? rest;

  let value: unknown;
  if (shape === 'array') {
    if (style === 'simple') value = rest === '' ? [] : split(rest, ',', jsonItems);
    else if (style === 'label')
      // OpenAPI 3.0.3 and 3.1.0's table writes `.3.4.5` unexploded, RFC 6570 (and openapi-fetch) `.3,4,5`: both read
      value = rest === '' ? [] : split(rest, !explode && rest.includes(',') ? ',' : '.', jsonItems);
    else if (!explode) value = named === '' ? [] : split(named!, ',', jsonItems);
    else {
      // `;name=3;name=4`: every item named
      const items: string[] = [];
      for (const item of rest === '' ? [] : split(rest, ';', jsonItems)) {
        if (item === name) items.push('');
        else if (item.startsWith(`${name}=`)) items.push(item.slice(name.length + 1));
        else return undefined;
      }
      value = items;
    }
    return form.json === true ? (value as string[]).map(parseJson) : value;
  }

  let object: Record<string, string> | undefined;
  if (style === 'simple') object = rest === '' ? {} : (explode ? pairsByEquals : pairsInTurn)(split(rest, ',', jsonItems));
  else if (style === 'label') {
    if (rest === '') object = {};
    else if (explode) object = pairsByEquals(split(rest, '.', jsonItems));
    // as for arrays: `.R.100.G.200` (OpenAPI 3.0.3, 3.1.0) or `.R,100,G,200` (RFC 6570, openapi-fetch)
    else object = pairsInTurn(split(rest, rest.includes(',') ? ',' : '.', jsonItems));
  } else if (explode) object = rest === '' ? {} : pairsByEquals(split(rest, ';', jsonItems));
  else object = named === '' ? {} : pairsInTurn(split(named!, ',', jsonItems));
  if (object === undefined || !Array.isArray(form.json)) return object;
  const out: Record<string, unknown> = { ...object };
  for (const property of form.json) if (typeof object[property] === 'string') out[property] = parseJson(object[property]);
  return out;
}

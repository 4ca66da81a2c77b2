/**
 * Parameters: the operation's own and the ones it inherits from its path item, with their serialisation (style,
 * explode, allowReserved, allowEmptyValue, content) and typed node; path parameters in template order (D200 a repeated path parameter is one value; D410 every path template real specs use is routed).
 */
import { childPointer, isObj } from '../util/json.js';
import { compareStrings, sortedEntries } from '../util/sorted.js';
import { withNode } from './content.js';
import { extensionsOf, str } from './raw.js';
import type { RefResolver } from './ref-resolver.js';
import { buildSchemaNode } from './schema/build.js';
import type { JsonSchema, ParameterGroups, ParameterModel } from './types.js';

type Obj = Record<string, unknown>;

const DEFAULT_STYLE: Record<ParameterModel['in'], string> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' };

function buildParameter(resolver: RefResolver, p: Obj, level: ParameterModel['level'], pointer: string): ParameterModel {
  const location = p.in as ParameterModel['in'];
  let schema = p.schema as JsonSchema | undefined;
  let schemaPointer = childPointer(pointer, 'schema');
  let content: ParameterModel['content'];
  if (isObj(p.content)) {
    const first = sortedEntries(p.content)[0];
    if (first !== undefined) {
      const contentSchema = isObj(first[1]) ? (first[1].schema as JsonSchema | undefined) : undefined;
      const contentPointer = childPointer(pointer, 'content', first[0], 'schema');
      content = withNode({ mediaType: first[0], schema: contentSchema, node: undefined }, resolver, contentSchema, contentPointer);
      if (schema === undefined) {
        schema = contentSchema;
        schemaPointer = contentPointer;
      }
    }
  }
  const style = str(p.style) ?? DEFAULT_STYLE[location] ?? 'simple';
  const model: ParameterModel = {
    name: p.name as string,
    in: location,
    required: location === 'path' ? true : p.required === true,
    description: str(p.description),
    deprecated: p.deprecated === true,
    schema,
    node: undefined,
    declared: true,
    style,
    styleDeclared: typeof p.style === 'string',
    explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
    explodeDeclared: typeof p.explode === 'boolean',
    allowReserved: p.allowReserved === true,
    allowEmptyValue: p.allowEmptyValue === true,
    content,
    level,
    extensions: extensionsOf(p),
  };
  return withNode(model, resolver, schema, schemaPointer);
}

/** `pointer`: where the `parameters` list is written. */
function parameterList(resolver: RefResolver, raw: unknown, level: ParameterModel['level'], pointer: string): ParameterModel[] {
  if (!Array.isArray(raw)) return [];
  const out: ParameterModel[] = [];
  raw.forEach((item, index) => {
    const { node: p, pointer: at } = resolver.locate<Obj>(item, childPointer(pointer, index));
    if (!isObj(p) || typeof p.name !== 'string' || typeof p.in !== 'string') return;
    if (!['path', 'query', 'header', 'cookie'].includes(p.in)) return;
    out.push(buildParameter(resolver, p, level, at));
  });
  return out;
}

/**
 * The operation's parameters: its own in declaration order, then the path item's ones it does not override (same
 * location and name; header names compare case-insensitively), plus the same grouped by location.
 */
export function buildParameters(
  resolver: RefResolver,
  pathLevel: unknown,
  opLevel: unknown,
  pointers: { pathItem: string; operation: string },
): { groups: ParameterGroups; list: ParameterModel[] } {
  const key = (p: ParameterModel): string => `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
  const list = parameterList(resolver, opLevel, 'operation', childPointer(pointers.operation, 'parameters'));
  const own = new Set(list.map(key));
  for (const p of parameterList(resolver, pathLevel, 'path', childPointer(pointers.pathItem, 'parameters')))
    if (!own.has(key(p))) list.push(p);
  const groups: ParameterGroups = { path: [], query: [], header: [], cookie: [] };
  for (const p of list) groups[p.in].push(p);
  // Path params keep template order (positional client args); the rest are sorted by name.
  groups.query.sort((a, b) => compareStrings(a.name, b.name));
  groups.header.sort((a, b) => compareStrings(a.name.toLowerCase(), b.name.toLowerCase()));
  groups.cookie.sort((a, b) => compareStrings(a.name, b.name));
  return { groups, list };
}

/** `pointer`: the path item whose template names it (the parameter itself is written nowhere). */
function undeclaredPathParameter(name: string, pointer: string): ParameterModel {
  return {
    name,
    in: 'path',
    required: true,
    description: undefined,
    deprecated: false,
    schema: { type: 'string' },
    node: buildSchemaNode({}, { type: 'string' }, pointer),
    declared: false,
    style: 'simple',
    styleDeclared: false,
    explode: false,
    explodeDeclared: false,
    allowReserved: false,
    allowEmptyValue: false,
    content: undefined,
    level: 'operation',
    extensions: {},
  };
}

/**
 * The path parameters in template order, each once: a name the template repeats (`/accounts/{account_id}/maps/{map_id}/
 * accounts/{account_id}`) is one parameter with one value (OpenAPI declares parameters by name and location), as in
 * openapi-typescript's types and openapi-fetch's URLs (D200 a repeated path parameter is one value).
 */
export function pathTemplateNames(path: string): string[] {
  return [...new Set([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!))];
}

/**
 * The names of the `{x}` a query string written into the path template holds (`/search?q={q}` -> `q`; D410): what
 * follows `?` up to a `#`.
 */
export function templateQueryNames(path: string): Set<string> {
  const beforeHash = path.split('#', 1)[0]!;
  const question = beforeHash.indexOf('?');
  return new Set(question === -1 ? [] : pathTemplateNames(beforeHash.slice(question + 1)));
}

export function orderPathParams(path: string, params: ParameterModel[], query: readonly ParameterModel[]): ParameterModel[] {
  const order = pathTemplateNames(path);
  const byName = new Map(params.map((p) => [p.name, p]));
  // D410: a `{x}` of a query string written into the template that the operation declares as a query parameter is
  // that parameter (the server routes on the part before `?`, the client writes it into the query)
  const inQuery = templateQueryNames(path);
  const queryNames = new Set(query.map((p) => p.name));
  const out: ParameterModel[] = [];
  for (const name of order) {
    if (!byName.has(name) && inQuery.has(name) && queryNames.has(name)) continue;
    out.push(byName.get(name) ?? undeclaredPathParameter(name, childPointer('#', 'paths', path)));
    byName.delete(name);
  }
  return [...out, ...[...byName.values()].sort((a, b) => compareStrings(a.name, b.name))];
}

/**
 * A spec's path template as the dispatcher routes it (D410: every path template real specs use is routed).
 *
 * Three parts, read apart:
 * - the path a client sends (before `?` and `#`): find-my-way's syntax, each parameter renamed positionally (`p0`,
 *   `p1`...: a spec name such as `thing-id` is no find-my-way name) and `:` in static text escaped. A segment that is
 *   one parameter stays a plain parameter (Paygate's own routes are unchanged); a segment with text around a parameter
 *   or several parameters (Google's `{name}:cancel`, `@{lat},{lon}`, Azure's `docs('{key}')`, `{id}.{format}`) gets a
 *   regular-expression parameter per template parameter, find-my-way's own multi-parameter node, so `/v1/{name}` and
 *   `/v1/{name}:cancel` are two routes and every parameter is bound;
 * - a query string written into the template (`/rides?page={page}`, D410): the route is the part before `?`; each
 *   `k={x}` requires the query key `k` (and binds `{x}` from it when `x` is declared as a path parameter) and each
 *   fixed `k=v` requires that value;
 * - a fragment (AWS: `/tags/{arn}#tagKeys`, `/#X-Amz-Target=Service.Op`): never sent by a client, so templates that
 *   differ only after `#` are one route; each `&`-separated term naming a declared query or header parameter requires
 *   it present (`name`) or equal (`name=value`); a term naming no declared parameter is a label and requires nothing.
 *
 * Why hand-written: find-my-way routes paths and (with constraints) whole header values, but not query keys; what the
 * fragment and the query part select is a short list of conditions per template, read here once at start-up.
 */

import { isObj } from '@paygate/contract/json';
import { SchemaReader } from './error-fill.js';
import type { ApiDocument, OperationRoute } from './types.js';

/** What a template requires of a request beyond its path: a query key or header present, or equal to a value. */
export interface RouteCondition {
  readonly in: 'query' | 'header';
  /** The query key, or the header name lower-cased. */
  readonly name: string;
  /** The value required; absent: the key or header need only be present. */
  readonly value?: string;
}

export interface RouteTemplate {
  /** find-my-way's path for the part of the template a client sends (before `?` and `#`). */
  readonly routerPath: string;
  /** The spec's names of the router's positional parameters (`p0`, `p1`...), in template order. */
  readonly names: readonly string[];
  /** What the query part and the fragment require, to choose this template among the others of its route. */
  readonly conditions: readonly RouteCondition[];
  /** Template parameters written in the query part (`?city={city}`) read as path parameters: the name and its query key. */
  readonly queryBindings: readonly { readonly name: string; readonly key: string }[];
  /** Template parameters written as a query key (`?{search}=1`): the name and the value its key is sent with (keyParameters); absent: none. */
  readonly keyBindings?: readonly KeyParameter[];
}

/** A `{name}=value` term of a template's query part: the parameter is the key of the query pair sent with that value. */
export interface KeyParameter {
  readonly name: string;
  readonly value: string;
}

/** The parameters an operation declares, by location (header names lower-cased). */
export interface DeclaredParameters {
  readonly query: ReadonlySet<string>;
  readonly header: ReadonlySet<string>;
  /**
   * The string values a path parameter's schema enumerates: in a shared segment they are what the parameter matches,
   * so that `{pageName}{mediaTypeExtension}` (enum `.json`) tells where one parameter ends without a delimiter.
   */
  readonly pathEnums?: ReadonlyMap<string, readonly string[]>;
}

const PARAMETER = /\{([^}]+)\}/g;
const WHOLE_PARAMETER = /^\{([^}]+)\}$/;
// A parameter sharing its segment with text or with another parameter: the shortest non-empty match, so that the
// text after it (`:cancel`, `,`, `.json`, `')`) delimits it; find-my-way anchors the segment's expression.
const SHARED_SEGMENT_PARAMETER = '(.+?)';

const escapeStatic = (text: string): string => text.replaceAll(':', '::');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** One `/`-separated segment of the template in find-my-way's syntax; pushes its parameters' names. */
function segmentPath(segment: string, names: string[], enums: ReadonlyMap<string, readonly string[]> | undefined): string {
  const whole = WHOLE_PARAMETER.exec(segment);
  if (whole !== null) {
    names.push(whole[1]!);
    return `:p${names.length - 1}`;
  }
  let out = '';
  let last = 0;
  for (const match of segment.matchAll(PARAMETER)) {
    out += escapeStatic(segment.slice(last, match.index));
    const values = enums?.get(match[1]!);
    out += `:p${names.length}${values === undefined || values.length === 0 ? SHARED_SEGMENT_PARAMETER : `(${values.map(escapeRegExp).join('|')})`}`;
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  return out + escapeStatic(segment.slice(last));
}

/** `k=v` / `k` terms of a query part or fragment, split at `&` (empty terms dropped). */
function terms(text: string): { key: string; value: string | undefined }[] {
  return text
    .split('&')
    .filter((t) => t !== '')
    .map((t) => {
      const eq = t.indexOf('=');
      return eq === -1 ? { key: t, value: undefined } : { key: t.slice(0, eq), value: t.slice(eq + 1) };
    });
}

/** Reads a spec path template (see the module comment); `declared` tells a fragment's parameters from its labels. */
export function parseRouteTemplate(template: string, declared: DeclaredParameters): RouteTemplate {
  const hash = template.indexOf('#');
  const beforeHash = hash === -1 ? template : template.slice(0, hash);
  const fragment = hash === -1 ? '' : template.slice(hash + 1);
  const question = beforeHash.indexOf('?');
  const path = question === -1 ? beforeHash : beforeHash.slice(0, question);
  const query = question === -1 ? '' : beforeHash.slice(question + 1);

  const names: string[] = [];
  const routerPath = path
    .split('/')
    .map((segment) => segmentPath(segment, names, declared.pathEnums))
    .join('/');

  const conditions: RouteCondition[] = [];
  const queryBindings: { name: string; key: string }[] = [];
  const keyBindings = keyParameters(template);
  for (const { key, value } of terms(query)) {
    // `{search}=1` (a parameter as the key) says nothing a request can be matched on (keyBindings reads it)
    if (key.includes('{')) continue;
    const parameter = value === undefined ? null : WHOLE_PARAMETER.exec(value);
    if (parameter !== null) {
      conditions.push({ in: 'query', name: key });
      // a name declared as a query parameter is read from the query as any other; otherwise it is typed as a path
      // parameter (declared so, or undeclared under --lint report) and taken from its query key
      if (!(declared.query.has(parameter[1]!) && parameter[1] === key)) queryBindings.push({ name: parameter[1]!, key });
    } else if (value !== undefined && !value.includes('{')) conditions.push({ in: 'query', name: key, value });
    else if (value === undefined) conditions.push({ in: 'query', name: key });
  }
  for (const { key, value } of terms(fragment)) {
    if (key.includes('{') || key.includes('/') || value?.includes('{')) continue;
    const where = declared.header.has(key.toLowerCase()) ? 'header' : declared.query.has(key) ? 'query' : undefined;
    if (where === undefined) continue; // a label (box.com's `#add_shared_link`)
    const name = where === 'header' ? key.toLowerCase() : key;
    conditions.push(value === undefined ? { in: where, name } : { in: where, name, value });
  }
  return { routerPath, names, conditions, queryBindings, ...(keyBindings.length > 0 ? { keyBindings } : {}) };
}

/** Whether a request (its parsed query and its headers) meets one condition. */
export function meets(
  condition: RouteCondition,
  query: URLSearchParams,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): boolean {
  if (condition.in === 'header') {
    const sent = headers[condition.name];
    if (sent === undefined) return false;
    if (condition.value === undefined) return true;
    return Array.isArray(sent) ? sent.includes(condition.value) : sent === condition.value;
  }
  if (condition.value === undefined) return query.has(condition.name);
  return query.getAll(condition.name).includes(condition.value);
}

/** The part of a template a client sends (before `?` and `#`): the path the malformed-encoding check compares with. */
export function sentPath(template: string): string {
  return template.split('#', 1)[0]!.split('?', 1)[0]!;
}

/**
 * The `{name}=value` terms of the template's query part (ClickSend's `/numbers/search/{country}?{search}=1&{search_type}=2`):
 * a client fills the template, so it sends the parameter's value as a query key, with the value the term fixes.
 */
export function keyParameters(template: string): KeyParameter[] {
  const beforeHash = template.split('#', 1)[0]!;
  const question = beforeHash.indexOf('?');
  if (question === -1) return [];
  const out: KeyParameter[] = [];
  for (const { key, value } of terms(beforeHash.slice(question + 1))) {
    const parameter = WHOLE_PARAMETER.exec(key);
    if (parameter !== null && value !== undefined && !value.includes('{')) out.push({ name: parameter[1]!, value });
  }
  return out;
}

/**
 * The query key each key parameter is (parameter name -> key): the first pair sent with the term's value whose key
 * is not `known` (a declared or template-named key) and not taken by an earlier term.
 */
export function bindKeyParameters(
  bindings: readonly KeyParameter[],
  pairs: Iterable<readonly [string, unknown]>,
  known: ReadonlySet<string>,
): Map<string, string> {
  const out = new Map<string, string>();
  if (bindings.length === 0) return out;
  const sent = [...pairs];
  const taken = new Set<string>();
  for (const binding of bindings) {
    const pair = sent.find(([key, value]) => !known.has(key) && !taken.has(key) && value === binding.value);
    if (pair === undefined) continue;
    taken.add(pair[0]);
    out.set(binding.name, pair[0]);
  }
  return out;
}

/** The query keys a query string written into the template names (`/rides?page={page}&per_page={per_page}`). */
export function templateQueryKeys(template: string): string[] {
  const beforeHash = template.split('#', 1)[0]!;
  const question = beforeHash.indexOf('?');
  if (question === -1) return [];
  return terms(beforeHash.slice(question + 1))
    .map((t) => t.key)
    .filter((key) => !key.includes('{'));
}

/**
 * The string values each path parameter's schema enumerates, for a template with a segment shared by a parameter and
 * text or another parameter (D410: `{pageName}{mediaTypeExtension}` routes on `.json`); empty for every other template.
 */
export function pathParameterEnums(document: ApiDocument, operation: Pick<OperationRoute, 'path' | 'method'>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const path = sentPath(operation.path);
  if (!/[^/]\{|\}[^/]/.test(path)) return out;
  const reader = new SchemaReader(document);
  const item = reader.deref(document.paths?.[operation.path]);
  if (!isObj(item)) return out;
  const op = reader.deref(item[operation.method]);
  // the path item's parameters first: the operation's own override them
  for (const list of [item.parameters, isObj(op) ? op.parameters : undefined]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = reader.deref(raw);
      if (!isObj(p) || p.in !== 'path' || typeof p.name !== 'string') continue;
      const schema = reader.deref(p.schema);
      const values = isObj(schema) && Array.isArray(schema.enum) ? schema.enum : [];
      if (values.length > 0 && values.every((v): v is string => typeof v === 'string')) out.set(p.name, values);
      else out.delete(p.name);
    }
  }
  return out;
}

/**
 * The query parameters an operation requires (its path item's and its own): what tells apart templates of one route
 * whose paths and conditions are the same (D469 a path routed to the template whose parameters accept it).
 */
export function requiredQueryParameters(document: ApiDocument, operation: Pick<OperationRoute, 'path' | 'method'>): string[] {
  const reader = new SchemaReader(document);
  const item = reader.deref(document.paths?.[operation.path]);
  if (!isObj(item)) return [];
  const op = reader.deref(item[operation.method]);
  const required = new Map<string, boolean>();
  for (const list of [item.parameters, isObj(op) ? op.parameters : undefined]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = reader.deref(raw);
      if (isObj(p) && p.in === 'query' && typeof p.name === 'string') required.set(p.name, p.required === true);
    }
  }
  return [...required].filter(([, is]) => is).map(([name]) => name);
}

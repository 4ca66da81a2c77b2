/**
 * Pagination from the spec (D225 pagination model by strategy): which list operations page, how, and where each piece of a page lives. One
 * detector per page shape real APIs use, tried in a fixed order after the operation's own `x-pagination` (D226 x-pagination declares the page shape); the
 * first that recognises the operation wins, and an operation none recognises gets no page helper (a helper that guessed
 * would throw or loop at run time: detect, do not guess, D124).
 *
 * The detectors read a {@link PageContext}: the operation's query parameters, the page's JSON body flattened into its
 * properties (every depth, not into arrays) and the response headers, so each detector is a small function of names
 * and types with its own table of cases in pagination.test.ts.
 */
import { pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import type { RefResolver } from './ref-resolver.js';
import type { HeaderModel, HttpMethod, PageTotalModel, PageValueSource, PaginationModel, ParameterModel, ResponseModel } from './types.js';
import { isObj, unescapePointerToken } from '../util/json.js';

type Obj = Record<string, unknown>;

/** A name without case and separators: `next_page_token`, `nextPageToken` and `page[size]` -> `nextpagetoken`, `pagesize`. */
export function normName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** One property of the page body: where it is and what it holds. */
export interface BodyField {
  path: string[];
  /** The JSON types the schema allows (`null` included when nullable); [] when it says nothing. */
  types: string[];
  format: string | undefined;
  description: string | undefined;
  /** For an array: the item schema's declared property names (every member of a oneOf/anyOf item). */
  itemProperties: string[] | undefined;
}

/** What the detectors read about one operation. */
export interface PageContext {
  method: HttpMethod;
  /** The query parameters by name, with their JSON types. */
  params: { name: string; types: string[]; schema: Obj; description: string | undefined }[];
  /** The success status whose JSON body is the page. */
  status: string;
  /** The body is an array itself. */
  bodyIsArray: boolean;
  /** Every property of the body (objects walked to depth 4, arrays not entered), shallowest first. */
  fields: BodyField[];
  /** Response header names of that status, as declared. */
  headers: string[];
}

export interface PaginationInput {
  resolver: RefResolver;
  method: HttpMethod;
  path: string;
  operation: Obj;
  query: readonly ParameterModel[];
  responses: readonly ResponseModel[];
  /** The OpenAPI file, for a refusal of an `x-pagination` that names what the operation does not have. */
  file: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The body and parameters, read once

function typesOf(resolver: RefResolver, schema: unknown, depth = 0): string[] {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s) || depth > 8) return [];
  const out = new Set<string>();
  const t = s.type;
  if (typeof t === 'string') out.add(t);
  if (Array.isArray(t)) for (const x of t) if (typeof x === 'string') out.add(x);
  if (s.nullable === true) out.add('null');
  if (out.size === 0) {
    if (isObj(s.properties)) out.add('object');
    if (s.items !== undefined) out.add('array');
    // `allOf: [{$ref: NextToken}, {description}]` (AWS, converted specs): the members' types
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const members = s[key];
      if (Array.isArray(members)) for (const m of members) for (const x of typesOf(resolver, m, depth + 1)) out.add(x);
    }
  }
  return [...out];
}

/** Declared property names of every member of an array's item schema (the names all members share). */
function itemPropertiesOf(resolver: RefResolver, arraySchema: unknown): string[] | undefined {
  const s = resolver.deref<unknown>(arraySchema);
  if (!isObj(s)) return undefined;
  const members: unknown[] = [];
  const collect = (node: unknown, depth: number): void => {
    const n = resolver.deref<unknown>(node);
    if (!isObj(n) || depth > 4) return;
    if (n.items !== undefined) members.push(n.items);
    for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(n[key])) for (const m of n[key]) collect(m, depth + 1);
  };
  collect(s, 0);
  if (members.length === 0) return undefined;
  let shared: Set<string> | undefined;
  const expand = (item: unknown): unknown[] => {
    const i = resolver.deref<unknown>(item);
    if (isObj(i) && !isObj(i.properties) && !Array.isArray(i.allOf)) {
      const alts = (Array.isArray(i.oneOf) ? i.oneOf : Array.isArray(i.anyOf) ? i.anyOf : undefined) as unknown[] | undefined;
      if (alts !== undefined) return alts;
    }
    return [item];
  };
  for (const member of members.flatMap(expand)) {
    const names = new Set(Object.keys(resolver.objectShape(member).properties));
    shared = shared === undefined ? names : new Set([...shared].filter((n) => names.has(n)));
  }
  return [...(shared ?? [])].sort();
}

/** A string keyword of a schema, or of one of its `allOf` members (a description beside a `$ref`). */
function keywordOf(resolver: RefResolver, schema: unknown, key: 'format' | 'description'): string | undefined {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s)) return undefined;
  if (typeof s[key] === 'string') return s[key];
  if (!Array.isArray(s.allOf)) return undefined;
  for (const member of s.allOf) {
    const m = resolver.deref<unknown>(member);
    if (isObj(m) && typeof m[key] === 'string') return m[key];
  }
  return undefined;
}

function collectFields(resolver: RefResolver, schema: unknown): BodyField[] {
  const out: BodyField[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (path.length >= 4) return;
    const { properties } = resolver.objectShape(node);
    const nested: [unknown, string[]][] = [];
    for (const key of Object.keys(properties).sort()) {
      const prop = resolver.deref<unknown>(properties[key]);
      const types = typesOf(resolver, prop);
      const field: BodyField = {
        path: [...path, key],
        types,
        format: keywordOf(resolver, prop, 'format'),
        description: keywordOf(resolver, prop, 'description'),
        itemProperties: types.includes('array') ? itemPropertiesOf(resolver, prop) : undefined,
      };
      out.push(field);
      if (types.includes('object')) nested.push([prop, field.path]);
    }
    for (const [prop, p] of nested) walk(prop, p);
  };
  walk(schema, []);
  return out.sort((a, b) => a.path.length - b.path.length);
}

/** The success response whose JSON body is the page: '200', else the first exact 2xx with a JSON body. */
function pageResponse(responses: readonly ResponseModel[]): { response: ResponseModel; schema: unknown } | undefined {
  const candidates = [
    ...responses.filter((r) => r.status === '200'),
    ...responses.filter((r) => r.kind === 'exact' && /^2\d\d$/.test(r.status)),
  ];
  for (const response of candidates) {
    const json = response.content.find((c) => /json/i.test(c.mediaType));
    if (json?.schema !== undefined) return { response, schema: json.schema };
  }
  return undefined;
}

/** The context the detectors read, or undefined when the operation has no JSON success body. */
export function pageContext(input: Pick<PaginationInput, 'resolver' | 'method' | 'query' | 'responses'>): PageContext | undefined {
  const { resolver } = input;
  const page = pageResponse(input.responses);
  if (page === undefined) return undefined;
  return {
    method: input.method,
    params: input.query.map((p) => {
      const schema = resolver.deref<unknown>(p.schema);
      return { name: p.name, types: typesOf(resolver, schema), schema: isObj(schema) ? schema : {}, description: p.description };
    }),
    status: page.response.status,
    bodyIsArray: typesOf(resolver, page.schema).includes('array') && !typesOf(resolver, page.schema).includes('object'),
    fields:
      typesOf(resolver, page.schema).includes('object') || isObj(resolver.deref(page.schema)) ? collectFields(resolver, page.schema) : [],
    headers: page.response.headers.map((h: HeaderModel) => h.name),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Shared readers

/** Names of the array that holds a page's items, preferred when the body has several arrays. */
const ITEM_NAMES = new Set([
  'results',
  'items',
  'data',
  'records',
  'entries',
  'values',
  'value',
  'elements',
  'list',
  'content',
  'nodes',
  'hits',
  'rows',
]);

/**
 * The items array: the body itself, else the one array property of the body (or the one a wrapper such as `data`,
 * `meta` or `_embedded` holds, two objects deep at most); several arrays are told apart only by a conventional name
 * (`results`, `items`, `data`, ...). Ambiguous = undefined.
 */
export function itemsPathOf(ctx: PageContext): string[] | undefined {
  if (ctx.bodyIsArray) return [];
  for (let depth = 1; depth <= 3; depth++) {
    const arrays = ctx.fields.filter((f) => f.path.length === depth && f.types.includes('array') && !f.types.includes('object'));
    if (arrays.length === 1) return arrays[0]!.path;
    if (arrays.length > 1) {
      const named = arrays.filter((f) => ITEM_NAMES.has(normName(f.path[f.path.length - 1]!)));
      return named.length === 1 ? named[0]!.path : undefined;
    }
  }
  return undefined;
}

const isNumeric = (types: readonly string[]): boolean => types.includes('integer') || types.includes('number');
const isScalar = (types: readonly string[]): boolean => types.includes('string') || isNumeric(types);
/** A field that lies inside the items array's path is the items array (or a sibling of it) by construction. */
const outsideItems = (f: BodyField, items: readonly string[]): boolean =>
  items.length === 0 || f.path.length < items.length || f.path.slice(0, items.length).join('\u0000') !== items.join('\u0000');

/** Names of a boolean that says whether another page follows. */
const HAS_MORE = new Set([
  'hasmore',
  'hasnext',
  'hasnextpage',
  'nextpage',
  'more',
  'moreitems',
  'moreresults',
  'hasmoreitems',
  'hasmoreresults',
  'istruncated',
  'truncated',
]);

export function hasMorePathOf(ctx: PageContext): string[] | undefined {
  return ctx.fields.find((f) => f.types.includes('boolean') && HAS_MORE.has(normName(f.path[f.path.length - 1]!)))?.path;
}

/** The field or its description says it holds a URL. */
function looksLikeUrlField(f: BodyField): boolean {
  const last = normName(f.path[f.path.length - 1]!);
  const parent = f.path.length > 1 ? normName(f.path[f.path.length - 2]!) : '';
  return (
    /url|uri|link|href/.test(last) ||
    (f.format !== undefined && /^(uri|url|uri-reference|iri|iri-reference)$/i.test(f.format)) ||
    (f.description !== undefined && /\b(url|uri|link|href)s?\b/i.test(f.description)) ||
    parent === 'links' ||
    (parent === 'next' && last === 'href')
  );
}

/** Query parameters that carry an opaque position (what a bare token in a `next` field goes back as). */
const TOKEN_PARAMS = ['cursor', 'pagetoken', 'nexttoken', 'continuationtoken', 'continue', 'startcursor', 'pagecursor', 'after'];

function tokenParamOf(ctx: PageContext): string | undefined {
  for (const want of TOKEN_PARAMS) {
    const p = ctx.params.find((x) => normName(x.name) === want && !isNumeric(x.types));
    if (p !== undefined) return p.name;
  }
  return undefined;
}

/** Body field names of a list's total (items), and of its page count. */
const TOTAL_ITEMS = new Set([
  'total',
  'totalcount',
  'totalresults',
  'totalelements',
  'totalentries',
  'totalitems',
  'totalrecords',
  'totalsize',
  'totalrows',
  'totalhits',
  'recordcount',
  'itemcount',
]);
const TOTAL_PAGES = new Set(['totalpages', 'pagecount', 'pages', 'lastpage', 'numpages', 'pagestotal', 'pagetotal']);
/** Response headers that carry the total. */
const TOTAL_HEADERS: Record<string, 'items' | 'pages'> = {
  xtotalcount: 'items',
  xtotal: 'items',
  totalcount: 'items',
  xpaginationitemcount: 'items',
  xtotalitems: 'items',
  xresultcount: 'items',
  xpagingtotalresults: 'items',
  xpages: 'pages',
  xtotalpages: 'pages',
  xpaginationpagecount: 'pages',
  xpagecount: 'pages',
};

/**
 * The total a page reports: a numeric body field named like one (`count` only beside `next`/`previous`, the Django
 * REST framework's page, where it is the total; elsewhere it may count the page), else a header such as `X-Total-Count`.
 */
export function totalOf(ctx: PageContext, items: readonly string[]): PageTotalModel | undefined {
  for (const f of ctx.fields) {
    if (!isNumeric(f.types) || !outsideItems(f, items)) continue;
    const name = normName(f.path[f.path.length - 1]!);
    const siblings = ctx.fields.filter(
      (g) => g.path.length === f.path.length && g.path.slice(0, -1).join('\u0000') === f.path.slice(0, -1).join('\u0000'),
    );
    const drf = name === 'count' && siblings.some((g) => ['next', 'previous'].includes(normName(g.path[g.path.length - 1]!)));
    if (TOTAL_ITEMS.has(name) || drf) return { source: { in: 'body', path: f.path }, counts: 'items' };
    if (TOTAL_PAGES.has(name)) return { source: { in: 'body', path: f.path }, counts: 'pages' };
  }
  for (const header of ctx.headers) {
    const counts = TOTAL_HEADERS[normName(header)];
    if (counts !== undefined) return { source: { in: 'header', name: header }, counts };
  }
  return undefined;
}

/** A parameter that holds a moment (`start` as a timestamp, a date), not a position in a list. */
const isTime = (p: PageContext['params'][number]): boolean =>
  /^date/.test(String(p.schema.format ?? '')) || /\b(date|time|timestamp)\b/i.test(String(p.schema.description ?? p.description ?? ''));

/** The first query parameter whose name is one of `names` (in that order of preference), numeric when asked. */
const paramNamed = (ctx: PageContext, names: readonly string[], numeric: boolean): string | undefined => {
  for (const want of names) {
    const p = ctx.params.find((x) => normName(x.name) === want && (!numeric || isNumeric(x.types) || x.types.length === 0) && !isTime(x));
    if (p !== undefined) return p.name;
  }
  return undefined;
};

// ---------------------------------------------------------------------------------------------------------------
// The detectors, one per page shape (each returns the model without `status` and `declared`)

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** What a detector finds: the model without what every detection shares (the status, `declared: false`). */
export type Detection = DistributiveOmit<PaginationModel, 'status' | 'declared'>;
export type Detector = (ctx: PageContext) => Detection | undefined;

/** An RFC 8288 `Link` response header (GitHub): rel="next" is followed. */
export const detectLinkHeader: Detector = (ctx) => {
  const header = ctx.headers.find((h) => h.toLowerCase() === 'link');
  const itemsPath = itemsPathOf(ctx);
  if (header === undefined || itemsPath === undefined || ctx.params.length === 0) return undefined;
  return { strategy: 'nextLink', itemsPath, next: { in: 'header', name: header }, tokenParam: undefined };
};

/**
 * A next-page token at any depth of the body sent back as the query parameter it belongs to: `next_cursor` ->
 * `cursor`, `nextPageToken` -> `pageToken`, `next_page` -> a string `page` (Stripe's search), `NextToken`,
 * `continue` (Kubernetes `metadata.continue`), `meta.cursor.after` -> `after`, `last_id` -> `after` (OpenAI), a
 * `cursor` beside a has-more flag; or a token in a response header named like the parameter. A field that holds a URL
 * is a next link, not a token.
 */
export const detectCursor: Detector = (ctx) => {
  const itemsPath = itemsPathOf(ctx);
  if (itemsPath === undefined) return undefined;
  const hasMorePath = hasMorePathOf(ctx);
  const compatible = (f: BodyField, p: PageContext['params'][number]): boolean =>
    f.types.includes('string') ? !isNumeric(p.types) || p.types.includes('string') : isNumeric(f.types);
  for (const f of ctx.fields) {
    if (!isScalar(f.types) || !outsideItems(f, itemsPath) || looksLikeUrlField(f)) continue;
    const name = normName(f.path[f.path.length - 1]!);
    const parent = f.path.length > 1 ? normName(f.path[f.path.length - 2]!) : '';
    for (const p of ctx.params) {
      const param = normName(p.name);
      if (param.length === 0 || !compatible(f, p)) continue;
      const paired =
        name === `next${param}` ||
        ((name === 'lastid' || name === 'endcursor') && (param === 'after' || param === 'startingafter')) ||
        (name === param &&
          (/next|continu/.test(name) ||
            ((name === 'cursor' || name === 'after') &&
              (hasMorePath !== undefined || /^(cursor|cursors|paging|pagination|pageinfo|meta|responsemetadata)$/.test(parent)))));
      if (paired) return { strategy: 'cursor', itemsPath, cursorParam: p.name, next: { in: 'body', path: f.path }, hasMorePath };
    }
  }
  for (const header of ctx.headers) {
    const name = normName(header).replace(/^x/, '');
    const p = ctx.params.find((x) => name === normName(x.name) && /next|token|cursor/.test(name) && !isNumeric(x.types));
    const q = ctx.params.find((x) => name === `next${normName(x.name)}`);
    const param = p ?? q;
    if (param !== undefined)
      return { strategy: 'cursor', itemsPath, cursorParam: param.name, next: { in: 'header', name: header }, hasMorePath };
  }
  return undefined;
};

/** A `previous`/`prev` beside a `next` (the Django REST framework's page, Paygate's): the pair of page links. */
function hasPreviousSibling(ctx: PageContext, f: BodyField): boolean {
  const parent = f.path.slice(0, -1).join('\u0000');
  return ctx.fields.some(
    (g) =>
      g.path.length === f.path.length &&
      g.path.slice(0, -1).join('\u0000') === parent &&
      ['previous', 'prev'].includes(normName(g.path[g.path.length - 1]!)),
  );
}

/** Last segment names of a next page's URL (`_links.next.href` and `links.next` are found by their parent). */
const NEXT_URL_NAMES = new Set([
  'next',
  'nextlink',
  'nexturl',
  'nexturi',
  'nextpage',
  'nextpageurl',
  'nextpagelink',
  'nextpageuri',
  'nexthref',
  'odatanextlink',
]);

/**
 * A next page's URL at any depth of the body: `next`, `links.next`, `_links.next.href`, `@odata.nextLink`,
 * `pagination.next_page`, `next_page_url`, ... A field named only `next`/`next_page` counts when the spec says it holds
 * a URL (format, description, a `links` parent) or the operation has a token parameter a bare value would go back as.
 */
export const detectNextUrl: Detector = (ctx) => {
  const itemsPath = itemsPathOf(ctx);
  if (itemsPath === undefined || ctx.params.length === 0) return undefined;
  const tokenParam = tokenParamOf(ctx);
  for (const f of ctx.fields) {
    if (!f.types.includes('string') || !outsideItems(f, itemsPath)) continue;
    const last = normName(f.path[f.path.length - 1]!);
    const parent = f.path.length > 1 ? normName(f.path[f.path.length - 2]!) : '';
    const named = NEXT_URL_NAMES.has(last) || (last === 'href' && parent === 'next');
    if (!named) continue;
    const explicit = /url|uri|link|href/.test(last) || looksLikeUrlField(f) || hasPreviousSibling(ctx, f);
    if (explicit || tokenParam !== undefined) return { strategy: 'nextLink', itemsPath, next: { in: 'body', path: f.path }, tokenParam };
  }
  return undefined;
};

/**
 * Stripe's `starting_after` (and `after`) with a has-more flag: the next request starts after the last item's `id`.
 * Needs the flag (else the end is a guess) and an `id` every item declares.
 */
export const detectLastItem: Detector = (ctx) => {
  const itemsPath = itemsPathOf(ctx);
  const hasMorePath = hasMorePathOf(ctx);
  if (itemsPath === undefined || hasMorePath === undefined) return undefined;
  const cursorParam = ctx.params.find((p) => ['startingafter', 'after'].includes(normName(p.name)) && !isNumeric(p.types))?.name;
  const items = itemsPath.length === 0 ? undefined : ctx.fields.find((f) => f.path.join('\u0000') === itemsPath.join('\u0000'));
  if (cursorParam === undefined || items?.itemProperties === undefined || !items.itemProperties.includes('id')) return undefined;
  return { strategy: 'lastItem', itemsPath, cursorParam, idField: 'id', hasMorePath };
};

const OFFSET_PARAMS = ['offset', 'skip', 'startindex', 'startat', 'start'];
const LIMIT_PARAMS = ['limit', 'top', 'count', 'size', 'max', 'maxresults', 'pagesize', 'perpage', 'rows', 'take', 'first'];

/** `offset` (`skip`, `$skip`, `startIndex`, `start`) with an optional limit, both numeric, and an items array. */
export const detectOffset: Detector = (ctx) => {
  const offsetParam = paramNamed(ctx, OFFSET_PARAMS, true);
  const limitParam = paramNamed(ctx, LIMIT_PARAMS, true);
  const itemsPath = itemsPathOf(ctx);
  if (offsetParam === undefined || itemsPath === undefined || ctx.params.find((p) => p.name === offsetParam)!.types.length === 0)
    return undefined;
  // `start` is a position only beside a limit and without an `end` (else a range of time or ids)
  if (normName(offsetParam) === 'start' && (limitParam === undefined || ctx.params.some((p) => ['end', 'stop'].includes(normName(p.name)))))
    return undefined;
  return { strategy: 'offset', itemsPath, offsetParam, limitParam, total: totalOf(ctx, itemsPath) };
};

const PAGE_PARAMS = ['page', 'pagenumber', 'pageno', 'pagenum', 'pageindex', 'currentpage'];
const PAGE_SIZE_PARAMS = [
  'perpage',
  'pagesize',
  'limit',
  'size',
  'pagelen',
  'pagelimit',
  'itemsperpage',
  'resultsperpage',
  'count',
  'rows',
  'max',
  'maxresults',
];

/** The first page's number: the parameter's `default` or `minimum` when 0 or 1, else 0 for an `...index`, else 1. */
function firstPageOf(schema: Obj, name: string): number {
  for (const v of [schema.default, schema.minimum]) if (v === 0 || v === 1) return v;
  return /index/i.test(name) ? 0 : 1;
}

/** `page` (`pageNumber`, `page[number]`, ...), numeric, with an optional page size, and an items array. */
export const detectPage: Detector = (ctx) => {
  const pageParam = paramNamed(ctx, PAGE_PARAMS, true);
  const itemsPath = itemsPathOf(ctx);
  if (pageParam === undefined || itemsPath === undefined) return undefined;
  const schema = ctx.params.find((p) => p.name === pageParam)!.schema;
  return {
    strategy: 'page',
    itemsPath,
    pageParam,
    pageSizeParam: paramNamed(ctx, PAGE_SIZE_PARAMS, true),
    firstPage: firstPageOf(schema, pageParam),
    total: totalOf(ctx, itemsPath),
  };
};

/**
 * In the order they are tried: a declared `Link` header first (the spec says so outright), then a token the body
 * carries, a next URL, the last item's id, and the counting strategies last (they move by arithmetic, so a cursor or a
 * link beside them is the better way through a list that changes while it is read).
 */
export const DETECTORS: readonly { shape: string; detect: Detector }[] = [
  { shape: 'link-header', detect: detectLinkHeader },
  { shape: 'cursor', detect: detectCursor },
  { shape: 'next-url', detect: detectNextUrl },
  { shape: 'last-item', detect: detectLastItem },
  { shape: 'offset', detect: detectOffset },
  { shape: 'page', detect: detectPage },
];

// ---------------------------------------------------------------------------------------------------------------
// x-pagination (D226 x-pagination declares the page shape)

/** A JSON Pointer into the page body (`/meta/next_cursor`; '' = the body) or an array of property names. */
function pathOf(value: unknown): string[] | undefined {
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value as string[];
  if (typeof value !== 'string') return undefined;
  if (value === '' || value === '/') return [];
  if (!value.startsWith('/')) return [value];
  return value
    .slice(1)
    .split('/')
    .map((t) => unescapePointerToken(t));
}

const STRATEGIES = ['cursor', 'lastItem', 'nextLink', 'offset', 'page'] as const;

/**
 * The operation's `x-pagination` (D226 x-pagination declares the page shape): `false` turns detection off; an object with a `strategy` (or Paygate's first
 * form, `pageParam` + `itemsPath` [+ `nextField`, `cursorParam`, `pageSizeParam`]) declares the shape; anything else is
 * another tool's extension of the same name and is left alone (detection runs).
 */
export function declaredPagination(input: PaginationInput, ctx: PageContext | undefined): PaginationModel | null | undefined {
  const ext = input.operation['x-pagination'];
  if (ext === false) return null;
  if (!isObj(ext) || (typeof ext.strategy !== 'string' && typeof ext.pageParam !== 'string')) return undefined;
  const pointer = `#/paths/${pointerToken(input.path)}/${input.method}/x-pagination`;
  const refuse = (problem: string, fix: string): never => {
    throw new UnsupportedSpecError(input.file, pointer, problem, fix);
  };
  if (ctx === undefined)
    return refuse(
      'x-pagination is declared on an operation without a JSON success body to page through.',
      "remove x-pagination, or declare the 200 response's JSON schema.",
    );
  const queryParam = (key: string, required: boolean): string | undefined => {
    const name = ext[key];
    if (name === undefined && !required) return undefined;
    if (typeof name !== 'string' || !ctx.params.some((p) => p.name === name))
      return refuse(
        `x-pagination.${key} ${JSON.stringify(name)} is not a query parameter of this operation (it has ${ctx.params.map((p) => p.name).join(', ') || 'none'}).`,
        `name one of its query parameters in x-pagination.${key}, or declare the parameter.`,
      );
    return name;
  };
  const path = (key: string): string[] | undefined => {
    if (ext[key] === undefined) return undefined;
    return (
      pathOf(ext[key]) ??
      refuse(
        `x-pagination.${key} must be a JSON Pointer into the page body (e.g. "/meta/next_cursor") or an array of property names.`,
        `write x-pagination.${key} as "/a/b".`,
      )
    );
  };
  const header = (key: string): string | undefined => {
    const name = ext[key];
    if (name === undefined) return undefined;
    return typeof name === 'string'
      ? name
      : refuse(`x-pagination.${key} must be a header name.`, `write x-pagination.${key}: Link (or the header's name).`);
  };
  const value = (bodyKey: string, headerKey: string): PageValueSource | undefined => {
    const h = header(headerKey);
    if (h !== undefined) return { in: 'header', name: h };
    const p = path(bodyKey);
    return p === undefined ? undefined : { in: 'body', path: p };
  };
  const total = (): PageTotalModel | undefined => {
    const source = value('total', 'totalHeader');
    if (source === undefined) return undefined;
    const counts = ext.totalCounts ?? 'items';
    if (counts !== 'items' && counts !== 'pages')
      return refuse('x-pagination.totalCounts must be "items" or "pages".', 'write totalCounts: items (or pages).');
    return { source, counts };
  };
  const base = { status: ctx.status, declared: true };
  // Paygate's first form (D124 client page walking only for walkable pages): page numbers, or the `next` link beside the items when `nextField` is given
  if (typeof ext.strategy !== 'string') {
    const itemsPath =
      path('itemsPath') ??
      itemsPathOf(ctx) ??
      refuse('x-pagination.itemsPath is missing and the items array could not be found.', 'add itemsPath: [the, path, to, the, array].');
    if (typeof ext.nextField === 'string') {
      return {
        ...base,
        strategy: 'nextLink',
        itemsPath,
        next: { in: 'body', path: [...itemsPath.slice(0, -1), ext.nextField] },
        tokenParam: queryParam('cursorParam', false),
      };
    }
    const pageParam = queryParam('pageParam', true)!;
    const schema = ctx.params.find((p) => p.name === pageParam)!.schema;
    return {
      ...base,
      strategy: 'page',
      itemsPath,
      pageParam,
      pageSizeParam: queryParam('pageSizeParam', false),
      firstPage: firstPageOf(schema, pageParam),
      total: undefined,
    };
  }
  const strategy = ext.strategy as (typeof STRATEGIES)[number];
  if (!STRATEGIES.includes(strategy))
    return refuse(
      `x-pagination.strategy ${JSON.stringify(ext.strategy)} is not one of ${STRATEGIES.join(', ')}.`,
      'choose one of them (see the README, "Pagination").',
    );
  const itemsPath =
    path('items') ??
    itemsPathOf(ctx) ??
    refuse(
      'x-pagination.items is missing and the items array could not be found.',
      'add items: "/path/to/the/array" (a JSON Pointer into the page body).',
    );
  const need = <T>(v: T | undefined, key: string): T =>
    v ?? refuse(`x-pagination.strategy ${strategy} needs x-pagination.${key}.`, `add x-pagination.${key}.`);
  switch (strategy) {
    case 'cursor':
      return {
        ...base,
        strategy,
        itemsPath,
        cursorParam: queryParam('cursorParam', true)!,
        next: need(value('next', 'nextHeader'), 'next'),
        hasMorePath: path('hasMore'),
      };
    case 'lastItem':
      return {
        ...base,
        strategy,
        itemsPath,
        cursorParam: queryParam('cursorParam', true)!,
        idField: typeof ext.idField === 'string' ? ext.idField : 'id',
        hasMorePath: path('hasMore'),
      };
    case 'nextLink':
      return { ...base, strategy, itemsPath, next: need(value('next', 'nextHeader'), 'next'), tokenParam: queryParam('tokenParam', false) };
    case 'offset':
      return {
        ...base,
        strategy,
        itemsPath,
        offsetParam: queryParam('offsetParam', true)!,
        limitParam: queryParam('limitParam', false),
        total: total(),
      };
    case 'page': {
      const pageParam = queryParam('pageParam', true)!;
      const firstPage =
        typeof ext.firstPage === 'number' ? ext.firstPage : firstPageOf(ctx.params.find((p) => p.name === pageParam)!.schema, pageParam);
      return { ...base, strategy, itemsPath, pageParam, pageSizeParam: queryParam('pageSizeParam', false), firstPage, total: total() };
    }
  }
}

/**
 * How the operation pages (D225): its `x-pagination` when it declares one, else the first detector that recognises a
 * GET's page, else undefined (no helper).
 */
export function detectPagination(input: PaginationInput): PaginationModel | undefined {
  const ctx = pageContext(input);
  const declared = declaredPagination(input, ctx);
  if (declared !== undefined) return declared ?? undefined;
  if (ctx === undefined || input.method !== 'get') return undefined;
  for (const { detect } of DETECTORS) {
    const found = detect(ctx);
    if (found !== undefined) return { ...found, status: ctx.status, declared: false };
  }
  return undefined;
}

/** Which detector recognised an operation (for reports such as the pagination survey). */
export function detectedShape(input: PaginationInput): string | undefined {
  const ctx = pageContext(input);
  if (declaredPagination(input, ctx) !== undefined) return 'x-pagination';
  if (ctx === undefined || input.method !== 'get') return undefined;
  return DETECTORS.find(({ detect }) => detect(ctx) !== undefined)?.shape;
}

/**
 * Request validation with the precompiled validators of `request-validators.gen.ts`: Paygate's one request
 * validation engine. Nothing is compiled at start-up. The rules are Paygate's own and are written down in
 * docs/request-validation.md (the section numbers below refer to it); express-openapi-validator is only the
 * independent oracle of a differential test (request-validation.differential.test.ts), whose deliberate differences
 * are listed there.
 *
 * Order, first failure wins except inside step 6, which reports every field:
 * 1. method: 405 with `Allow` (HEAD on a GET route, other methods on a known path);
 * 2. multipart/form-data: parsed with the upload limits (413 / 400), a file field sent as text refused (400), file
 *    parts counted into the body as `''`;
 * 3. body media type: one of the declared ones, else 415 (no Content-Type on an optional body: no body);
 * 4. query string: unencoded reserved characters (400, per parameter, in declaration order);
 * 5. parameter styles: arrays split or wrapped, objects assembled, JSON content parsed;
 * 6. unknown and empty query parameters (400, one at a time);
 * 7. Ajv: query, headers, path parameters (coerced, defaults applied, in place), then the body (not coerced), every
 *    error reported in `details`.
 */
import { createRequire } from 'node:module';
import type multerModule from 'multer';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { UploadLimits } from './lifecycle/options.js';
import { readingAtMost } from './body-limits.js';
import { HttpError, VALIDATION_MESSAGE } from './errors.js';
import { validateEachLine } from './ndjson-lines.js';
import { bindKeyParameters, keyParameters, templateQueryKeys } from './route-template.js';
import { splitOutsideJson } from './split-outside-json.js';
import { pathFormExample, type PathForm, type PathStyle, readPathStyle } from './path-styles.js';
import type { OperationRoute } from './types.js';
import { escapePointerToken } from '@paygate/contract/json';

type Multer = typeof multerModule;
let loadedMulter: Multer | undefined;
/** D171: multer (and busboy under it), loaded by the first multipart request: most requests and the start never need it. */
function multer(): Multer {
  loadedMulter ??= createRequire(import.meta.url)('multer') as Multer;
  return loadedMulter;
}

/** One Ajv error as the standalone code reports it. */
export interface AjvError {
  instancePath: string;
  /** Not in the generated request validators' errors (D190: nothing here reads it). */
  schemaPath?: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** An Ajv standalone validate function. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

/**
 * How one parameter's raw value becomes the value that is validated (generated from the parameter's style, explode
 * and schema; see generators/src/emit/request-validators.ts and docs/request-validation.md section 5).
 */
export type ParameterParse =
  /** Primitive: validated (and coerced) as sent. */
  | 'none'
  /** `content: application/json`: JSON-parsed (kept as sent when it is not JSON, so validation names it). */
  | 'json'
  /** Exploded array: repeated keys; a single value becomes a one-item array. */
  | 'wrap'
  /** Non-exploded array: split on `delimiter` (`,` form/simple, ` ` spaceDelimited, `|` pipeDelimited). */
  | 'split'
  /** form, explode=false object: `k1,v1,k2,v2`. */
  | 'formObject'
  /** form, explode=true object: its properties are query keys of their own. */
  | 'formExplode'
  /** deepObject: `name[property]=value`. */
  | 'deepObject'
  /** deepObject array (Stripe's reading, D117): `name[]=a&name[]=b`, `name[0]=a&name[1]=b`, or repeated `name=a`. */
  | 'deepArray'
  /**
   * A path parameter read by its `style` and `explode` (D413, "Object path parameters read by their style"): a `simple`
   * object (`R,100,G,200`, exploded `R=100,G=200`), and `label` (`.R.100.G.200`) and `matrix` (`;color=R,100,G,200`)
   * values of any kind.
   */
  | 'pathStyle';

export interface ParameterRule {
  /** The name validated (header names lower-cased). */
  readonly name: string;
  readonly in: 'query' | 'header' | 'path';
  readonly parse: ParameterParse;
  readonly delimiter?: string;
  /** formExplode: the object's properties (query keys), and those declared as arrays. */
  readonly properties?: readonly string[];
  readonly arrayProperties?: readonly string[];
  /**
   * formExplode, deepObject: the properties declared as objects (or as arrays of objects), each object sent as its JSON
   * text (D456 query objects and arrays of objects serialised).
   */
  readonly jsonProperties?: readonly string[];
  /** formExplode of a free-form object (`additionalProperties`): every query key no parameter declares is one of its properties. */
  readonly additional?: boolean;
  /** formExplode of a required object: none of its keys sent is the empty object (which serialises to no keys). */
  readonly emptyObject?: boolean;
  /** wrap, split, deepArray: the items are objects, each sent as its JSON text (D456 query objects and arrays of objects serialised). */
  readonly jsonItems?: boolean;
  /** Query values must not hold unencoded reserved characters (`comma`: commas are the value's delimiter). */
  readonly reserved?: 'whole' | 'comma';
  /** pathStyle: the parameter's style (absent: `simple`), explode, and its schema's kind (absent: a primitive). */
  readonly style?: PathStyle;
  readonly explode?: boolean;
  readonly shape?: 'array' | 'object';
  /**
   * pathStyle: the schema also takes a primitive (Microsoft Graph's `anyOf: [{string enum}, {type: object}]`): a value
   * not written as the shape is read as a primitive, and validation chooses (D413, "Object path parameters read by their style").
   */
  readonly orPrimitive?: boolean;
}

export interface BodyMediaRule {
  readonly mediaType: string;
  /** Validates `{ body }`: errors are reported under `/body`. */
  readonly validate: CompiledValidator;
  /** multipart fields declared as array/object: JSON-parsed when sent as a string. */
  readonly jsonFields?: readonly string[];
}

/** Everything the runtime needs for one operation (generated). */
export interface OperationRequestValidators {
  readonly query?: CompiledValidator;
  readonly headers?: CompiledValidator;
  readonly params?: CompiledValidator;
  /** Every declared query, header and path parameter, in declaration order (cookies are not read). */
  readonly parameters: readonly ParameterRule[];
  /** Query keys the operation accepts (declared parameters and exploded object properties). */
  readonly queryNames: readonly string[];
  readonly allowEmptyValue?: readonly string[];
  readonly allowUnknownQuery?: boolean;
  readonly securityQueryParams?: readonly string[];
  /** Absent when the operation declares no request body. */
  readonly body?: { readonly required: boolean; readonly content: readonly BodyMediaRule[] };
  readonly multipart?: boolean;
  /** Set when the scaffold cannot parse one of the operation's parameters: the operation is skipped (501). */
  readonly unsupported?: string;
  /**
   * The parts of the request the generator could not compile a validator for (Ajv refused the schema, D198), with why:
   * they are not validated (the rest is), and createApp says so once at start-up.
   */
  readonly notValidated?: string;
}

/** A rejected request: `status`, the per-field `errors` (`path` is a JSON pointer such as `/body/buyer/email`) and headers. */
export class RequestRejection extends Error {
  override readonly name = 'RequestRejection';
  constructor(
    readonly status: number,
    message: string,
    readonly errors: { path: string; message: string }[] = [],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

function badRequest(path: string, message: string): RequestRejection {
  return new RequestRejection(400, message, [{ path, message }]);
}

export function methodNotAllowed(req: Request, allow: string): RequestRejection {
  const message = `${req.method} method not allowed`;
  return new RequestRejection(405, message, [{ path: req.path, message }], { Allow: allow });
}

// ---------------------------------------------------------------------------------------------------------------
// 3. Content types

interface ParsedContentType {
  mediaType: string | null;
  parameters: Record<string, string>;
}

function parseContentType(header: string | undefined): ParsedContentType {
  const out: ParsedContentType = { mediaType: null, parameters: {} };
  if (!header) return out;
  for (const match of header.matchAll(/;\s*([^=]+)=([^;]+)/g)) {
    const key = match[1]!.toLowerCase();
    out.parameters[key] = key === 'charset' ? match[2]!.toLowerCase() : match[2]!;
  }
  out.mediaType = header.split(';')[0]!.toLowerCase().trim();
  return out;
}

/** `type/subtype; a=1; b=2` with parameters sorted and `boundary` left out. */
function normalizeContentType(ct: ParsedContentType, exclude: readonly string[] = ['boundary']): string | undefined {
  if (!ct.mediaType) return undefined;
  let parameters = '';
  for (const key of Object.keys(ct.parameters).sort()) if (!exclude.includes(key)) parameters += `; ${key}=${ct.parameters[key]!}`;
  return ct.mediaType + parameters;
}

/**
 * The declared media type a request's Content-Type selects: the same type and parameters; else the same type
 * (a request without `charset` also matches a declared `charset=utf-8`); else a declared `type/*` or `*\/*`.
 */
export function selectMediaType(declared: readonly string[], header: string | undefined): string | undefined {
  return mediaTypeSelector(declared)(header);
}

/** Distinct Content-Type values remembered per operation (clients send very few). */
const MEDIA_TYPE_CACHE_LIMIT = 64;

/** `selectMediaType` for one declared list: the declared types normalised once, answers remembered per header value. */
export function mediaTypeSelector(declared: readonly string[]): (header: string | undefined) => string | undefined {
  const declaredNormalized = declared.map((d) => normalizeContentType(parseContentType(d)));
  const ranges = [...declared].sort().reverse();
  const cache = new Map<string, string | undefined>();
  const select = (header: string | undefined): string | undefined => {
    const ct = parseContentType(header);
    const normalized = normalizeContentType(ct);
    for (let i = 0; i < declared.length; i++) if (normalized === declaredNormalized[i]) return declared[i];
    if (ct.mediaType) {
      const equivalents = [ct.mediaType];
      if (!ct.parameters['charset'])
        equivalents.push(normalizeContentType(parseContentType(`${normalizeContentType(ct, ['charset'])!}; charset=utf-8`))!);
      for (let i = 0; i < declared.length; i++) if (equivalents.includes(declaredNormalized[i]!)) return declared[i];
    }
    for (const candidate of ranges) {
      if (candidate === '*/*') return candidate;
      const range = /^([a-z]+)\/\*$/.exec(candidate);
      if (range !== null && ct.mediaType?.startsWith(`${range[1]!}/`) === true && ct.mediaType.length > range[1]!.length + 1)
        return candidate;
    }
    return undefined;
  };
  return (header) => {
    if (header === undefined) return select(header);
    if (cache.has(header)) return cache.get(header);
    const selected = select(header);
    // multipart boundaries differ per request: only cache headers without one
    if (cache.size < MEDIA_TYPE_CACHE_LIMIT && !/boundary=/i.test(header)) cache.set(header, selected);
    return selected;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Reserved characters in query values

type Bag = Record<string, unknown>;

/** RFC 3986 reserved characters: in a query value they must be percent-encoded unless the parameter allows them. */
/**
 * RFC 3986 reserved characters a query value must carry percent-encoded (docs/request-validation.md section 4), less
 * `! ' ( ) *`: encodeURIComponent and URLSearchParams (browsers, Node, openapi-fetch and so the generated client)
 * never encode those, so a conforming client could not search for a buyer named O'Brien (found by the contract fuzz).
 */
const RESERVED_CHARS = /[:/?#[\]@$&+,;=]/;

/** The raw (still percent-encoded) query pairs by decoded key; a key without `=` has the value ''. */
function rawQueryPairs(originalUrl: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const start = originalUrl.indexOf('?');
  if (start === -1) return out;
  const end = originalUrl.indexOf('#', start);
  for (const pair of originalUrl.slice(start + 1, end === -1 ? undefined : end).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    let key = rawKey;
    try {
      key = decodeURIComponent(rawKey);
    } catch {
      // kept as sent
    }
    let list = out.get(key);
    if (list === undefined) out.set(key, (list = []));
    list.push(eq === -1 ? '' : pair.slice(eq + 1));
  }
  return out;
}

/** Whether any query value holds a reserved character at all (the common answer, no, needs no per-parameter look-up). */
function hasReservedValue(originalUrl: string): boolean {
  const start = originalUrl.indexOf('?');
  const end = originalUrl.indexOf('#', start);
  for (const pair of originalUrl.slice(start + 1, end === -1 ? undefined : end).split('&')) {
    const eq = pair.indexOf('=');
    if (eq !== -1 && RESERVED_CHARS.test(pair.slice(eq + 1))) return true;
  }
  return false;
}

function checkReserved(rule: ParameterRule, raw: Map<string, string[]>): void {
  const values = [...(raw.get(rule.name) ?? [])];
  if (rule.parse === 'deepObject' || rule.parse === 'deepArray')
    for (const [key, list] of raw) if (key.startsWith(`${rule.name}[`)) values.push(...list);
  for (const value of values) {
    for (const part of rule.reserved === 'comma' ? value.split(',') : [value]) {
      if (RESERVED_CHARS.test(part)) {
        throw badRequest(
          `/query/${rule.name}`,
          `Parameter '${rule.name}' must be url encoded. Its value may not contain reserved characters.`,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 5. Parameter styles

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Each item JSON-parsed (an object item sent as its JSON text, D456); the rest kept as sent. */
function parseItems(value: unknown): unknown {
  return Array.isArray(value) ? value.map(parseJson) : parseJson(value);
}

/**
 * `known`: the operation's declared query parameter names: an exploded object's property of the same name as another
 * parameter is read by both (the key on the wire is one), not taken away from the parameter.
 */
export function applyParameterRule(
  rule: ParameterRule,
  query: Bag,
  headers: Bag,
  params: Bag,
  known: ReadonlySet<string> = new Set(),
): void {
  const bag = rule.in === 'query' ? query : rule.in === 'header' ? headers : params;
  const name = rule.name;
  const value = bag[name];
  switch (rule.parse) {
    case 'none':
      return;
    case 'json':
      if (value !== undefined) bag[name] = parseJson(value);
      return;
    case 'wrap':
      if (value !== undefined) {
        const items = Array.isArray(value) ? value : [value];
        bag[name] = rule.jsonItems ? items.map(parseJson) : items;
      }
      return;
    case 'split':
      if (typeof value === 'string') {
        const delimiter = rule.delimiter ?? ',';
        bag[name] = rule.jsonItems ? splitOutsideJson(value, delimiter).map(parseJson) : value.split(delimiter);
      }
      return;
    case 'formObject': {
      if (typeof value !== 'string') return;
      const items = value.split(',');
      if (items.length % 2 !== 0) return; // not key,value pairs: validated as sent
      const object: Bag = {};
      for (let i = 0; i < items.length; i += 2) object[items[i]!] = items[i + 1];
      bag[name] = object;
      return;
    }
    case 'formExplode':
      assembleFormExplode(rule, query, known);
      return;
    case 'deepObject': {
      const prefix = `${name}[`;
      let object: Bag | undefined;
      for (const key of Object.keys(query)) {
        if (!key.startsWith(prefix) || !key.endsWith(']')) continue;
        const property = key.slice(prefix.length, -1);
        if (property.length === 0 || property.includes('[') || property.includes(']')) continue; // not name[property]: unknown
        object ??= {};
        object[property] = rule.jsonProperties?.includes(property) ? parseItems(query[key]) : query[key];
        delete query[key];
      }
      if (object !== undefined) query[name] = object;
      return;
    }
    case 'deepArray':
      assembleDeepArray(rule, query);
      return;
    case 'pathStyle':
      if (typeof value === 'string') bag[name] = readPath(rule, value);
      return;
  }
}

/** A path parameter's value read by its style (D413, "Object path parameters read by their style"); 400 naming it when it is not written so. */
function readPath(rule: ParameterRule, raw: string): unknown {
  const json = rule.shape === 'array' ? rule.jsonItems === true || undefined : rule.jsonProperties;
  const form: PathForm = {
    name: rule.name,
    style: rule.style ?? 'simple',
    explode: rule.explode === true,
    shape: rule.shape ?? 'primitive',
    ...(json === undefined ? {} : { json }),
  };
  const value = readPathStyle(form, raw) ?? (rule.orPrimitive === true ? readPathStyle({ ...form, shape: 'primitive' }, raw) : undefined);
  if (value === undefined)
    throw badRequest(
      `/params/${rule.name}`,
      `must be written in the '${form.style}' style${form.explode ? ' exploded' : ''}, as ${pathFormExample(form)}`,
    );
  return value;
}

/** form, exploded object: its properties are query keys of their own (D456 for shared keys, required and nested objects). */
function assembleFormExplode(rule: ParameterRule, query: Bag, known: ReadonlySet<string>): void {
  const name = rule.name;
  const properties = rule.properties ?? [];
  // a key another parameter declares is that parameter's: it alone does not make the object present
  if (!properties.some((p) => Object.hasOwn(query, p) && p !== name && !known.has(p))) {
    // none of its keys sent: a required object is the empty object; a free-form one may still gather keys (gatherAdditional)
    if (rule.emptyObject === true && query[name] === undefined) query[name] = {};
    return;
  }
  const object: Bag = {};
  for (const property of properties) {
    if (!Object.hasOwn(query, property) || property === name) continue;
    let v = query[property];
    if (rule.arrayProperties?.includes(property) && !Array.isArray(v)) v = [v];
    object[property] = rule.jsonProperties?.includes(property) ? parseItems(v) : v;
    if (!known.has(property)) delete query[property];
  }
  query[name] = object;
}

/** deepObject array (D117 deepObject arrays read as Stripe sends them): `name[]=a`, `name[0]=a` or a repeated `name=a`. */
function assembleDeepArray(rule: ParameterRule, query: Bag): void {
  const name = rule.name;
  const value = query[name];
  const prefix = `${name}[`;
  const items: unknown[] = value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
  const indexed: [number, unknown][] = [];
  let found = value !== undefined;
  for (const key of Object.keys(query)) {
    if (!key.startsWith(prefix) || !key.endsWith(']')) continue;
    const inner = key.slice(prefix.length, -1);
    const v = query[key];
    if (inner === '') items.push(...(Array.isArray(v) ? v : [v]));
    else if (/^\d{1,4}$/.test(inner)) indexed.push([Number(inner), v]);
    else continue; // not name[] or name[N]: an unknown key
    found = true;
    delete query[key];
  }
  indexed.sort((a, b) => a[0] - b[0]);
  for (const [, v] of indexed) items.push(...(Array.isArray(v) ? v : [v]));
  if (found) query[name] = rule.jsonItems ? items.map(parseJson) : items;
}

/**
 * A form-exploded free-form object (`additionalProperties`) takes every query key no parameter declares as one of its
 * properties (D456 query objects and arrays of objects serialised): run after every other rule, so the keys a deepObject or another exploded object reads are theirs.
 */
export function gatherAdditional(rule: ParameterRule, query: Bag, known: ReadonlySet<string>): void {
  for (const key of Object.keys(query)) {
    if (known.has(key)) continue;
    const current = query[rule.name];
    const object: Bag = current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Bag) : {};
    object[key] = query[key];
    query[rule.name] = object;
    delete query[key];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 6. Unknown and empty query parameters

/** Per key, in the order sent: unknown keys, then empty values (`empty`: the keys sent with an empty value, before style parsing). */
function checkQueryNames(query: Bag, v: OperationRequestValidators, known: ReadonlySet<string>, empty: ReadonlySet<string>): void {
  for (const q of Object.keys(query)) {
    if (!known.has(q)) {
      if (v.allowUnknownQuery) continue;
      throw badRequest(`/query/${q}`, `Unknown query parameter '${q}'`);
    }
    if ((empty.has(q) || query[q] === '') && !v.allowEmptyValue?.includes(q))
      throw badRequest(`/query/${q}`, `Empty value found for query parameter '${q}'`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 7. Errors: Ajv errors -> `{ path, message }` (JSON pointers; the error mapper turns them into `details` keys)

function collectErrors(out: AjvError[], validate: CompiledValidator, prefix: string): void {
  for (const e of validate.errors ?? []) out.push(prefix === '' ? e : { ...e, instancePath: prefix + e.instancePath });
}

/** A lone high or low UTF-16 surrogate: JSON's `\\u` escapes can carry one, no UTF-8 encoder or database can store it. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NOT_WELL_FORMED = 'must be well-formed Unicode (no unpaired UTF-16 surrogate)';

/**
 * Strings and keys of a parsed body that are not well-formed Unicode, as errors at their JSON pointer (at most 20,
 * at most 64 levels deep: a body past that is refused by its schema anyway). D184: the walk keeps the keys on a stack
 * and writes a pointer only for what it reports (it was one string per property of every body).
 */
export function collectMalformedUnicode(value: unknown, path: string, out: AjvError[]): void {
  walkUnicode(value, [path], out, 0);
}

function walkUnicode(value: unknown, at: string[], out: AjvError[], depth: number): void {
  if (out.length >= 20 || depth > 64) return;
  if (typeof value === 'string') {
    if (UNPAIRED_SURROGATE.test(value)) reportUnicode(at, out);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      at.push(String(i));
      walkUnicode(value[i], at, out, depth + 1);
      at.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      at.push(key);
      if (UNPAIRED_SURROGATE.test(key)) reportUnicode(at, out);
      else walkUnicode((value as Record<string, unknown>)[key], at, out, depth + 1);
      at.pop();
    }
  }
}

function reportUnicode(at: readonly string[], out: AjvError[]): void {
  // the keys escaped as JSON pointer tokens (the first entry is the prefix, a pointer already)
  const pointer = at.map((token, i) => (i === 0 ? token : escapePointerToken(token))).join('/');
  out.push({ instancePath: pointer, schemaPath: '#', keyword: 'unicode', params: {}, message: NOT_WELL_FORMED });
}

function toRejection(errors: AjvError[]): RequestRejection {
  const mapped = errors.map((e) => {
    let message = e.message ?? '';
    if (e.keyword === 'enum' && Array.isArray(e.params['allowedValues']))
      message = `${message}: ${(e.params['allowedValues'] as unknown[]).join(', ')}`;
    // A missing or unexpected property is reported at the property, not at its parent object.
    const property = e.params['missingProperty'] ?? e.params['additionalProperty'] ?? e.params['unevaluatedProperty'];
    return { path: property ? `${e.instancePath}/${String(property)}` : e.instancePath, message };
  });
  return new RequestRejection(400, VALIDATION_MESSAGE, mapped);
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Multipart

/** What each multer limit means for the part it names (`details` key: the part's field name). */
function multerLimitMessage(code: string, limits: Required<UploadLimits>): string {
  switch (code) {
    case 'LIMIT_FILE_SIZE':
      return `must be at most ${limits.fileSize} bytes`;
    case 'LIMIT_FILE_COUNT':
      return `at most ${limits.files} file(s) per request`;
    case 'LIMIT_FIELD_VALUE':
      return `must be at most ${limits.fieldSize} bytes`;
    case 'LIMIT_FIELD_COUNT':
      return `at most ${limits.fields} form fields per request`;
    case 'LIMIT_PART_COUNT':
      return 'too many parts in the multipart body';
    case 'LIMIT_FIELD_KEY':
      return 'field name too long';
    case 'LIMIT_UNEXPECTED_FILE':
      return 'is not a file field of this operation';
    default:
      return 'is invalid';
  }
}

function multerRejection(err: unknown, limits: Required<UploadLimits>): RequestRejection {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof multer().MulterError) {
    // Size and count limits are 413 (the body is too large); the rest is a malformed form (400). Either way the
    // details name the part that hit the limit, so a client knows which file or field to shrink.
    const status = /^LIMIT_(FILE_SIZE|FILE_COUNT|PART_COUNT|FIELD_VALUE|FIELD_COUNT)$/.test(err.code) ? 413 : 400;
    const field =
      err.field !== undefined && err.field !== ''
        ? err.field
        : err.code === 'LIMIT_FILE_SIZE' || err.code === 'LIMIT_FILE_COUNT'
          ? 'file'
          : 'body';
    return new RequestRejection(status, message, [
      { path: field === 'body' ? '/body' : `/body/${field}`, message: multerLimitMessage(err.code, limits) },
    ]);
  }
  if (/Multipart: Boundary not found/i.test(message))
    return badRequest('/headers/content-type', 'multipart/form-data needs a boundary parameter');
  return badRequest('/body', `is not a well-formed multipart/form-data body (${message})`);
}

// ---------------------------------------------------------------------------------------------------------------

export interface RequestValidationOptions {
  /** The operation's path answers these methods (for 405 on HEAD and other methods Express routes here). */
  allow: string;
  uploadLimits: Required<UploadLimits>;
  /**
   * The largest multipart body the upload limits can accept (every file and field at its limit plus part headers).
   * A chunked multipart body is refused with 413 as soon as it passes it (D362 multipart bodies counted like the others); unset: only multer's own limits.
   */
  multipartLimitBytes?: number;
  /**
   * The ndjson media types whose declared schema is one line's: each line is validated against it (ndjson-lines.ts,
   * D484, "JSON bodies by media type name, ndjson line by line"); unset: none.
   */
  linewise?: ReadonlySet<string>;
}

/** The route-level middleware for one operation; rejections go to `next` as RequestRejection errors. */
export function createRequestValidator(
  operation: OperationRoute,
  v: OperationRequestValidators,
  options: RequestValidationOptions,
): RequestHandler[] {
  const method = operation.method.toUpperCase();
  // D410: the keys of a query string written into the template (`/rides?page={page}`) are the template's own
  const knownQuery = new Set([...v.queryNames, ...(v.securityQueryParams ?? []), ...templateQueryKeys(operation.path)]);
  const keyTerms = keyParameters(operation.path);
  const declaredQuery: ReadonlySet<string> = new Set(v.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const queryRules = v.parameters.some((p) => p.in === 'query');
  const otherRules = v.parameters.filter((p) => p.in !== 'query' && p.parse !== 'none');
  const selectMedia = mediaTypeSelector(v.body?.content.map((c) => c.mediaType) ?? []);

  const validate = (req: Request, _res: Response, next: NextFunction): void => {
    try {
      // 1. method (multipart operations check it before parsing, in `upload`)
      if (req.method !== method) throw methodNotAllowed(req, options.allow);
      // 3. media type
      let media: BodyMediaRule | undefined;
      if (v.body !== undefined) {
        const header = req.headers['content-type'];
        const selected = selectMedia(header);
        if (selected !== undefined) {
          media = v.body.content.find((c) => c.mediaType === selected);
        } else {
          const ct = normalizeContentType(parseContentType(header));
          if (ct !== undefined || v.body.required) {
            const allowed = v.body.content.map((c) => c.mediaType).join(', ');
            throw new RequestRejection(415, `unsupported media type ${String(ct)}`, [
              { path: '/headers/content-type', message: `must be one of: ${allowed}` },
            ]);
          }
        }
      }

      // 4.-6. query string and parameters. Express 5 re-parses `req.query` on every read: pin one object.
      const search = req.originalUrl.includes('?');
      let query: Bag = {};
      if (search || queryRules) {
        query = req.query as Bag;
        Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
        if (search && hasReservedValue(req.originalUrl)) {
          const raw = rawQueryPairs(req.originalUrl);
          for (const rule of v.parameters) if (rule.reserved !== undefined) checkReserved(rule, raw);
        }
        const empty = new Set(Object.keys(query).filter((k) => query[k] === ''));
        for (const rule of v.parameters)
          if (rule.in === 'query' && rule.parse !== 'none') applyParameterRule(rule, query, {}, {}, declaredQuery);
        for (const rule of v.parameters) if (rule.additional === true) gatherAdditional(rule, query, knownQuery);
        // D457 a template parameter written as a query key: the keys it binds are the template's
        const known =
          keyTerms.length === 0
            ? knownQuery
            : new Set([...knownQuery, ...bindKeyParameters(keyTerms, Object.entries(query), knownQuery).values()]);
        checkQueryNames(query, v, known, empty);
      }
      for (const rule of otherRules) applyParameterRule(rule, query, req.headers as Bag, req.params as Bag);
      if (media?.jsonFields !== undefined && req.body !== null && typeof req.body === 'object') {
        for (const field of media.jsonFields) {
          const value = (req.body as Bag)[field];
          if (value !== undefined) (req.body as Bag)[field] = parseJson(value);
        }
      }

      // 7. Ajv: parameters (coerced in place, defaults applied), then the body
      const errors: AjvError[] = [];
      if (v.query !== undefined && !v.query(query)) collectErrors(errors, v.query, '/query');
      if (v.headers !== undefined && !v.headers(req.headers)) collectErrors(errors, v.headers, '/headers');
      if (v.params !== undefined && !v.params(req.params)) collectErrors(errors, v.params, '/params');
      // an ndjson body whose schema is one line's: each line against it (D484, "JSON bodies by media type name, ndjson
      // line by line")
      if (media !== undefined && options.linewise?.has(media.mediaType) === true && Array.isArray(req.body))
        validateEachLine(media.validate, req.body, errors);
      else if (media !== undefined && !media.validate({ body: req.body })) collectErrors(errors, media.validate, '');
      // a string body too (a JSON body may be any value, D431)
      if (media !== undefined && (typeof req.body === 'object' || typeof req.body === 'string'))
        collectMalformedUnicode(req.body, '/body', errors);
      if (errors.length > 0) throw toRejection(errors);
      next();
    } catch (error) {
      next(error);
    }
  };

  if (!v.multipart) return [validate];

  // 2. multipart/form-data: parsed with the limits, then the file parts counted into the body for validation.
  // Chunked multipart bodies stopped at the limit (D362 multipart bodies counted like the others): on a limit error multer reads the request to its end before
  // it calls back (so the client is not cut off mid-write), which made a 50 MB chunked upload read whole before its
  // 413; a body without Content-Length is counted as it arrives and refused the moment it passes what the upload
  // limits could ever accept (a declared Content-Length above it is refused before reading, `rejectDeclaredOversize`).
  const limit = options.multipartLimitBytes;
  const bounded = (handler: RequestHandler): RequestHandler => (limit === undefined ? handler : readingAtMost(handler, limit));
  let parser: RequestHandler | undefined;
  const upload: RequestHandler = (req, res, next) => {
    if (req.method !== method) {
      next(methodNotAllowed(req, options.allow));
      return;
    }
    if (!req.headers['content-type']?.includes('multipart/form-data')) {
      next();
      return;
    }
    parser ??= bounded(multer()({ limits: options.uploadLimits }).any());
    parser(req, res, (err?: unknown) => {
      if (err instanceof HttpError) {
        next(err); // the 413 of a chunked body past the multipart limit
        return;
      }
      if (err) {
        next(multerRejection(err, options.uploadLimits));
        return;
      }
      // A binary field sent as a text part (`-F file=hello` instead of `-F file=@doc.pdf`) would otherwise satisfy
      // `type: string, format: binary` and reach the handler without bytes: refuse it here, naming the field.
      const textFile = operation.fileFields.find((field) => Object.hasOwn(req.body as Bag, field.name));
      if (textFile !== undefined) {
        next(badRequest(`/body/${textFile.name}`, 'must be a file part (with a filename), not a text field'));
        return;
      }
      const files = (req as Request & { files?: { fieldname: string }[] }).files;
      if (Array.isArray(files)) {
        const counts = new Map<string, number>();
        for (const f of files) counts.set(f.fieldname, (counts.get(f.fieldname) ?? 0) + 1);
        for (const [field, count] of counts) (req.body as Bag)[field] = count > 1 ? new Array<string>(count).fill('') : '';
      }
      next();
    });
  };
  return [upload, validate];
}

/**
 * Whether an operation's path parameter schemas accept a request's path values (read as its validation reads them, on
 * a copy): what the dispatcher asks to choose among templates a path matches (D469 a path routed to the template whose
 * parameters accept it). Undefined when the operation validates no path parameter.
 */
export function pathParametersAccepted(v: OperationRequestValidators): ((params: Record<string, string>) => boolean) | undefined {
  const validate = v.params;
  if (validate === undefined) return undefined;
  const rules = v.parameters.filter((rule) => rule.in === 'path' && rule.parse !== 'none');
  return (params) => {
    const copy: Bag = { ...params };
    try {
      for (const rule of rules) applyParameterRule(rule, {}, {}, copy);
    } catch (error) {
      // a value not written in its parameter's style (D413 object path parameters read by their style): this template does not take the path
      if (error instanceof RequestRejection) return false;
      throw error;
    }
    return validate(copy);
  };
}

/**
 * Whether an operation takes a request's query keys: every key one it declares (unless it takes any), every required
 * one sent. What the dispatcher asks to choose among templates of one route that nothing else tells apart (D469 a
 * path routed to the template whose parameters accept it: `/v1/{name}` listing with `filter` beside getting with
 * `projectId`). A key's `[...]` suffix (deepObject) is read as its parameter's name.
 */
export function queryParametersAccepted(
  v: OperationRequestValidators,
  operation: Pick<OperationRoute, 'path'>,
  required: readonly string[],
): (query: URLSearchParams) => boolean {
  const fit = queryParametersFit(v, operation, required);
  return (query) => {
    const { unknown, missing } = fit(query);
    return unknown === 0 && missing === 0;
  };
}

/**
 * How an operation takes a request's query keys: how many keys sent it does not know (none when it takes any) and how
 * many it requires are missing. When no template of a route takes the keys, the dispatcher chooses the one that knows
 * most of them (D485, "Operations told apart by their bodies dispatched by body schema").
 */
export function queryParametersFit(
  v: OperationRequestValidators,
  operation: Pick<OperationRoute, 'path'>,
  required: readonly string[],
): (query: URLSearchParams) => { unknown: number; missing: number } {
  const known = new Set([...v.queryNames, ...(v.securityQueryParams ?? []), ...templateQueryKeys(operation.path)]);
  return (query) => {
    let unknown = 0;
    if (!v.allowUnknownQuery) for (const key of new Set(query.keys())) if (!known.has(key.replace(/\[.*$/, ''))) unknown++;
    const missing = required.filter((name) => !query.has(name) && ![...query.keys()].some((key) => key.startsWith(`${name}[`))).length;
    return { unknown, missing };
  };
}

/** Route order for matching a URL to a known path: static segments before parameters, longer before shorter prefixes. */
export function compareRoutes(a: string, b: string): number {
  const e1 = a.replace(/\/:/g, '/~');
  const e2 = b.replace(/\/:/g, '/~');
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
}

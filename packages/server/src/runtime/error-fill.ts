/**
 * How one declared error schema is filled with what the runtime knows of an error (D119 scaffold shapes its answers from the spec; D215 error schema filled by role): the code, the
 * message, the HTTP status, the failing fields, the request path and the time. Each property is given a role by its
 * name and type (`code`, `message`/`err`/`detail`, `status`, `details`/`errors`/`detail[]`, a nested `error`
 * object, an `error: true` flag, `success: false`, a timestamp, the request path), a required `const` gets its value,
 * an enum its value that says the answer (D420 enum properties of error schemas filled from their values), and a required property of unknown meaning a fresh id (an id-like
 * name), the clock's now (a date), the value that claims nothing (null, '', [], {}) or the schema's own value (D421 required ids and dates of error schemas filled). An open object that has no place for the message gets `code` and `message`; an empty schema (`{}`)
 * is such an object. `x-paygate-error` on a schema says where the code, message, details and status go instead
 * (JSON pointers), and which codes the runtime's own answers use.
 *
 * What the message says (D216 rejections list failing fields in order): where the schema has a place for every failing field (a map or a list), the
 * runtime's message stays as it is and the fields go there; otherwise the message names the first failing field and
 * why (`query.limit: must be <= 100`, and how many more), so a schema with one string (`{status, err}`) still tells
 * the client what to fix.
 *
 * Each item of a list of errors names its field, in a field-like property or else in its message (D422 each list item of errors names its field).
 *
 * A required property no role and no earlier rule fills gets a neutral value its schema accepts, named at start-up (D466 neutral values for required error properties of unknown meaning);
 * a schema is unfillable only when no such value can be built (a string held to a pattern no id or date fits).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type BranchPins, branchOrder, pinsStatus } from './error-branch.js';
import type { ApiDocument } from './types.js';
import { isObj, pointerOf, unescapePointerToken } from '@paygate/contract/json';
export { isObj } from '@paygate/contract/json';

/** One failing field of a rejected request. */
export interface FieldProblem {
  /** Where the field is: `query`, `header`, `path`, `cookie`, `body`; absent when the error did not say. */
  in?: string;
  /** The field inside its location (`buyer.email`, `items[0].name`, `limit`): the key of a `details` map. */
  field: string;
  /** The path as segments (`['buyer', 'email']`), for list items such as FastAPI's `loc`. */
  path: readonly (string | number)[];
  /** What is wrong (`must be <= 100`). */
  reason: string;
}

/** What a filler writes: the error as the runtime knows it, with the code already the spec's. */
export interface FillInput {
  status: number;
  code: string;
  message: string;
  details?: Record<string, string>;
  problems: readonly FieldProblem[];
  /** The runtime's own kind of answer (`validation`, `auth`...), undefined for a handler's own error. */
  kind?: string;
  /** The request path (without the query string), for `instance` / `path` properties. */
  requestPath?: string;
  /** The answer's `Retry-After` header, for `retry_after` properties. */
  retryAfter?: string;
  now: Date;
}

export type Obj = Record<string, unknown>;

/** `x-paygate-error` on an error schema: where the fields go (JSON pointers into the body) and the runtime's codes. */
export interface ErrorSchemaExtension {
  code?: string;
  message?: string;
  details?: string;
  status?: string;
  codes?: Partial<Record<string, string>>;
}

export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export function statusTitle(status: number): string {
  return STATUS_TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');
}

/** `query.limit`, `body.buyer.email`, `body` (the whole body), `limit` (a handler's field without a location). */
export function problemName(p: FieldProblem): string {
  if (p.in === undefined || p.field === p.in) return p.field;
  return `${p.in}.${p.field}`;
}

/**
 * The message of a schema with no place for the fields: the first failing field and why, and how many more; for an
 * answer that is not a validation failure, its own message with the first field in parentheses.
 */
export function messageWithField(input: Pick<FillInput, 'message' | 'problems' | 'kind'>): string {
  const [first, ...rest] = input.problems;
  if (first === undefined) return input.message;
  const named = `${problemName(first)}: ${first.reason}${rest.length > 0 ? ` (and ${rest.length} more)` : ''}`;
  return input.kind === 'validation' ? named : `${input.message} (${named})`;
}

/** Keywords that describe a schema without constraining it. */
const ANNOTATION_KEYS: ReadonlySet<string> = new Set([
  'description',
  'title',
  'example',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$comment',
]);

/** Reads schemas of one document: local `$ref`s, allOf merged. */
export class SchemaReader {
  constructor(private readonly document: ApiDocument) {}

  /**
   * Follows local `$ref`s (`#/components/...`), at most 16 hops, and the one-member `allOf` written only to annotate
   * a ref (ShipEngine's `error_code: {allOf: [{$ref: error_code}], description}`): the member is the schema.
   */
  deref(node: unknown): unknown {
    let current = node;
    for (let i = 0; i < 16 && isObj(current); i++) {
      if (
        Array.isArray(current.allOf) &&
        current.allOf.length === 1 &&
        Object.keys(current).every((k) => k === 'allOf' || ANNOTATION_KEYS.has(k) || k.startsWith('x-'))
      ) {
        current = current.allOf[0];
        continue;
      }
      if (typeof current.$ref !== 'string') break;
      const ref = current.$ref;
      if (!ref.startsWith('#/')) return undefined;
      let target: unknown = this.document;
      for (const token of ref.slice(2).split('/')) {
        const key = unescapePointerToken(decodeURIComponent(token));
        target = isObj(target) ? target[key] : undefined;
      }
      current = target;
    }
    return current;
  }

  /** An object schema's properties and required names, allOf members merged. */
  shape(schema: unknown, depth = 0): Shape {
    const s = this.deref(schema);
    const out: Shape = { properties: {}, required: new Set(), extension: undefined, types: [], closed: false };
    if (!isObj(s) || depth > 8) return out;
    if (typeof s.type === 'string') out.types.push(s.type);
    if (Array.isArray(s.type)) out.types.push(...s.type.filter((t): t is string => typeof t === 'string'));
    if (s.nullable === true) out.types.push('null');
    if (isObj(s['x-paygate-error'])) out.extension = s['x-paygate-error'] as ErrorSchemaExtension;
    if (isObj(s.properties)) Object.assign(out.properties, s.properties);
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') out.required.add(r);
    if (s.additionalProperties === false || s.unevaluatedProperties === false) out.closed = true;
    if (isObj(s.additionalProperties)) out.extraValues = s.additionalProperties;
    // `anyOf: [{type: string}, {type: 'null'}]` (a nullable written as alternatives): the members' types
    for (const key of ['anyOf', 'oneOf'] as const)
      if (Array.isArray(s[key]) && typeof s.type !== 'string' && !Array.isArray(s.type))
        for (const member of s[key]) out.types.push(...this.shape(member, depth + 1).types.filter((t) => !out.types.includes(t)));
    if (Array.isArray(s.allOf)) {
      for (const member of s.allOf) {
        const m = this.shape(member, depth + 1);
        Object.assign(out.properties, m.properties);
        for (const r of m.required) out.required.add(r);
        out.extension ??= m.extension;
        out.types.push(...m.types);
        out.closed ||= m.closed;
        out.extraValues ??= m.extraValues;
      }
    }
    if (!out.types.some((t) => t !== 'null') && Object.keys(out.properties).length > 0) out.types.push('object');
    if (!out.types.some((t) => t !== 'null') && s.items !== undefined) out.types.push('array');
    return out;
  }

  constant(schema: unknown): { value: unknown } | undefined {
    const s = this.deref(schema);
    if (!isObj(s)) return undefined;
    if (s.const !== undefined) return { value: s.const };
    if (Array.isArray(s.enum) && s.enum.length === 1) return { value: s.enum[0] };
    return undefined;
  }
}

interface Shape {
  properties: Obj;
  required: Set<string>;
  extension: ErrorSchemaExtension | undefined;
  types: string[];
  /** additionalProperties / unevaluatedProperties false. */
  closed: boolean;
  /** The schema of every undeclared property (`additionalProperties` as a schema), when one is written. */
  extraValues?: unknown;
}

/** A value is left out (an optional property with nothing to say). */
const OMIT = Symbol('omit');
/** The answer cannot be written in this schema (a required code enum with no value for it). */
export const CANNOT = Symbol('cannot');
type Written = unknown | typeof OMIT | typeof CANNOT;

/** What a schema is filled with, per answer; `message` is the one the body says (see messageWithField). */
interface Ctx extends FillInput {
  text: string;
  /**
   * The status the body says when the alternative it is written in cannot hold the answer's own (D483, "Error body
   * alternative chosen by the answer's status"): the nearest one that alternative pins.
   */
  statusSaid?: number;
}

/**
 * The status a status property writes: the answer's, or the one its alternative pins nearest to it (D483, "Error body
 * alternative chosen by the answer's status").
 */
const saidStatus = (ctx: Ctx): number => ctx.statusSaid ?? ctx.status;

interface Node {
  write: (ctx: Ctx) => Written;
  /** The schema has a place for every failing field. */
  details: boolean;
  /** It writes the message or the fields somewhere (an alternative that does is preferred). */
  says?: boolean;
  /** The runtime's codes (`x-paygate-error.codes`) found in it. */
  codes?: Partial<Record<string, string>>;
}

export interface Filler {
  fill: (input: FillInput) => unknown | typeof CANNOT;
  codes: Partial<Record<string, string>>;
  /** The filled body carries every failing field (a map or list); the message is then left as the runtime's. */
  carriesDetails: boolean;
  /**
   * The required properties of no meaning the runtime knows that it gives a neutral value (`error.level`,
   * `errors[].count`, `(body)` for the whole body): named at start-up (D466 neutral values for required error properties of unknown meaning).
   */
  neutral: readonly string[];
  /** The filled body says what went wrong (a message or the fields), not only fixed values. */
  says: boolean;
}

const lower = (name: string): string => name.toLowerCase().replace(/[-\s]/g, '_');
const CODE_NAMES = new Set([
  'code',
  'error_code',
  'errorcode',
  'error_type',
  'errortype',
  'errcode',
  'err_code',
  'reason_code',
  // Mozilla's (Kinto's) `errno`: a number of the error, the status where the runtime has no other (D420 enum properties of error schemas filled from their values)
  'errno',
  'error_number',
  'errornumber',
]);
const MESSAGE_NAMES = new Set([
  'message',
  'detail',
  'error_description',
  'description',
  'msg',
  'reason',
  'error_message',
  'errormessage',
  'errordescription',
  'errmsg',
  'err_msg',
  'error_text',
  'errortext',
  'error_msg',
  'errormsg',
  'err',
  'developer_message',
  'developermessage',
  'user_message',
  'usermessage',
  'display_message',
  'displaymessage',
  'text',
  'summary',
  'title',
  'error_title',
]);
const STATUS_NAMES = new Set([
  'status',
  'status_code',
  'statuscode',
  'http_status',
  'httpstatus',
  'http_code',
  'httpcode',
  'http_status_code',
]);
const DETAILS_NAMES = new Set([
  'details',
  'errors',
  'fields',
  'field_errors',
  'fielderrors',
  'invalid_params',
  'invalidparams',
  // Vonage's `invalid_parameters: [{name, reason}]`
  'invalid_parameters',
  'invalidparameters',
  'violations',
  'validation_errors',
  'validationerrors',
  'causes',
  'root_causes',
  'issues',
  'problems',
  'detail',
]);
const TIME_NAMES = new Set(['timestamp', 'time', 'datetime', 'date', 'occurred_at', 'occurredat', 'created_at', 'createdat']);
const PATH_NAMES = new Set(['instance', 'path', 'request_path', 'requestpath']);
/** An id of this answer: a fresh random UUID (it names nothing internal). */
const ANSWER_ID_NAMES = new Set([
  'request_id',
  'requestid',
  'correlation_id',
  'correlationid',
  'trace_id',
  'traceid',
  'error_id',
  'errorid',
  'incident_id',
  'incidentid',
]);
const FIELD_NAMES = new Set([
  'field',
  'name',
  'path',
  'pointer',
  'parameter',
  'param',
  'property',
  'attribute',
  'key',
  'loc',
  'field_name',
  'fieldname',
  // Azure's `details[].target`, Google's `fieldViolations[].field`
  'target',
]);
const LOCATION_NAMES = new Set(['in', 'location']);
const FAILURE_FLAGS = new Set(['success', 'ok', 'succeeded', 'successful']);
/** Seconds to wait: the answer's `Retry-After` (a 429's, a 503's), else 0 (nothing says to wait). */
const RETRY_NAMES = new Set(['retry_after', 'retryafter', 'retry_after_seconds', 'retry_in']);

/**
 * Words an enum value of a code property may contain for each of the runtime's own answers (compared without case,
 * `_`, `-` or spaces), in the order they are tried: `INVALID_ARGUMENT`, `UNAUTHENTICATED`, `not_found`...
 */
const KIND_WORDS: Readonly<Record<string, readonly string[]>> = {
  validation: ['invalidrequest', 'validation', 'invalidargument', 'invalidparam', 'badrequest', 'invalid', 'malformed', 'unprocessable'],
  auth: ['unauthenticated', 'unauthorized', 'authentication', 'invalidtoken', 'credential', 'auth'],
  forbidden: ['forbidden', 'permission', 'denied', 'notallowed'],
  notFound: ['notfound', 'nosuch', 'unknownroute'],
  methodNotAllowed: ['methodnotallowed', 'method'],
  tooLarge: ['toolarge', 'payload', 'size'],
  unsupportedMediaType: ['unsupportedmediatype', 'mediatype', 'contenttype', 'unsupported'],
  rateLimited: ['ratelimit', 'toomany', 'throttl', 'quota'],
  internal: ['internal', 'servererror', 'unexpected', 'unknown'],
  notImplemented: ['notimplemented', 'unimplemented', 'notsupported', 'unsupported'],
};
/** Then, the words of any client error or any server error (Stripe's `invalid_request_error` and `api_error`). */
const CLASS_WORDS: Readonly<Record<'4' | '5', readonly string[]>> = {
  '4': ['invalidrequest', 'badrequest', 'clienterror', 'invalid'],
  '5': ['internal', 'apierror', 'servererror', 'server', 'unknown'],
};
const squash = (v: string): string => v.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The value of an enum for this answer (D420 enum properties of error schemas filled from their values): the code itself, else one whose words say the same (the runtime's
 * kind, then any client or server error, then the status or its title), else the first value: an enum property is
 * always given one of its own values, never the runtime's text.
 */
export function enumChoice(values: readonly unknown[], ctx: Pick<FillInput, 'code' | 'kind' | 'status'>): unknown {
  return enumMatch(values, ctx) ?? values[0];
}

/** An optional enum property is written only with a value that says the answer (else it is left out). */
function enumWriter(values: readonly unknown[], required: boolean): (ctx: Ctx) => Written {
  return required ? (ctx) => enumChoice(values, ctx) : (ctx) => enumMatch(values, ctx, false) ?? OMIT;
}

/**
 * The value of an enum that says this answer, if one does; `broad`: any client or server error's words count too
 * (Stripe's `invalid_request_error` for a 404), for a required property that must have a value.
 */
function enumMatch(values: readonly unknown[], ctx: Pick<FillInput, 'code' | 'kind' | 'status'>, broad = true): unknown {
  const strings = values.filter((v): v is string => typeof v === 'string');
  if (strings.includes(ctx.code)) return ctx.code;
  if (values.includes(ctx.status)) return ctx.status;
  const words = [
    ...(ctx.kind === undefined ? [] : (KIND_WORDS[ctx.kind] ?? [])),
    squash(statusTitle(ctx.status)),
    ...(broad ? (CLASS_WORDS[String(ctx.status)[0] as '4' | '5'] ?? []) : []),
  ];
  for (const word of words) {
    const found = strings.find((v) => squash(v).includes(word));
    if (found !== undefined) return found;
  }
  return strings.find((v) => squash(v).includes(String(ctx.status)));
}

/** A number for a status-like property: the status, or (an enum without it) the enum's first value. */
function statusNumber(reader: SchemaReader, property: unknown): (ctx: Ctx) => Written {
  const values = enumValues(reader, property);
  if (values === undefined || values.length === 0) return saidStatus;
  // the status, else a value of its class (a 5xx for a 501), else the first
  return (ctx) => {
    const status = saidStatus(ctx);
    return values.includes(status) ? status : (values.find((v) => String(v)[0] === String(status)[0]) ?? enumChoice(values, ctx));
  };
}

function setPointer(target: Obj, pointer: string, value: unknown): void {
  const tokens = pointer
    .replace(/^\//, '')
    .split('/')
    .map((t) => unescapePointerToken(t));
  let node = target;
  for (const token of tokens.slice(0, -1)) {
    if (!isObj(node[token])) node[token] = {};
    node = node[token] as Obj;
  }
  node[tokens[tokens.length - 1]!] = value;
}

type Build = Node | { unfillable: string };
const failed = (b: Build): b is { unfillable: string } => 'unfillable' in b;

/** Builds the filler of one schema, or says why it cannot be filled. */
export function fillerFor(reader: SchemaReader, schema: unknown): Filler | { unfillable: string } {
  const scope: Scope = { at: '', neutral: [] };
  let node = build(reader, schema, 0, scope);
  if (failed(node)) {
    // no place for the message at all (a list of numbers, a shape no role fits): a body that validates, said at
    // start-up, rather than no start (D466 neutral values for required error properties of unknown meaning)
    const whole: Scope = { at: '(body)', neutral: [] };
    const write = neutralWriter(reader, '', schema, 0, whole);
    if (write === undefined) return node;
    scope.neutral.splice(0, scope.neutral.length, ...whole.neutral);
    node = { details: false, write };
  }
  return {
    codes: node.codes ?? {},
    carriesDetails: node.details,
    neutral: [...new Set(scope.neutral)],
    says: node.says === true,
    fill: (input) => {
      const ctx: Ctx = { ...input, text: node.details ? input.message : messageWithField(input) };
      const value = node.write(ctx);
      return value === OMIT ? {} : value;
    },
  };
}

function typesOf(reader: SchemaReader, schema: unknown): string[] {
  return reader.shape(schema).types;
}

/** Any schema: a constant, an alternative (oneOf/anyOf), an object, an array, or a scalar carrying the message. */
function build(reader: SchemaReader, schema: unknown, depth: number, scope: Scope): Build {
  if (depth > 6) return { unfillable: 'nested too deeply' };
  const s = reader.deref(schema);
  if (s === true || s === undefined || (isObj(s) && Object.keys(s).every((k) => k === 'description' || k === 'title'))) {
    // `{}` accepts anything: the generic error object
    return openObject();
  }
  if (!isObj(s)) return { unfillable: 'a schema that accepts nothing' };
  const constant = reader.constant(s);
  if (constant !== undefined) return { write: () => structuredClone(constant.value), details: false };
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0) return oneOfNode(reader, s.oneOf, depth, scope);
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) {
    const byStatus = statusChosenNode(reader, s.anyOf, depth, scope);
    if (byStatus !== undefined) return byStatus;
    const reasons: string[] = [];
    let silent: Node | undefined;
    let silentNeutral: string[] = [];
    for (const alternative of s.anyOf) {
      // only the chosen alternative's neutral values are named
      const own: Scope = { at: scope.at, neutral: [] };
      const built = build(reader, alternative, depth + 1, own);
      if (failed(built)) reasons.push(built.unfillable);
      else if (built.says === true) {
        scope.neutral.push(...own.neutral);
        return built;
      } else if (silent === undefined) {
        silent = built;
        silentNeutral = own.neutral;
      }
    }
    scope.neutral.push(...silentNeutral);
    // an alternative that says what went wrong, else one that at least fits
    return silent ?? { unfillable: `no alternative of anyOf can be filled (${reasons.join('; ')})` };
  }
  const shape = reader.shape(s);
  const types = shape.types.filter((t) => t !== 'null');
  if (types.includes('object')) return objectNode(reader, shape, depth, scope);
  if (types.includes('array')) return listNode(reader, s, 'body', depth, scope);
  if (types.includes('string')) return stringNode(reader, s, 'message');
  if (types.includes('integer') || types.includes('number')) return { write: statusNumber(reader, s), details: false };
  if (types.includes('boolean')) return { write: () => true, details: false };
  if (shape.types.includes('null')) return { write: () => null, details: false };
  return openObject();
}

/**
 * An `anyOf` whose alternatives pin statuses (Increase's `default` error: thirteen objects, each with its `status` enum
 * and `type` code): per answer, the alternative whose pins hold the answer's status and say its kind (D483, "Error
 * body alternative chosen by the answer's status", error-branch.ts); the first body that fits its alternative, else
 * the first written. Undefined when no alternative pins a status (the first that says what went wrong is written, as
 * before).
 */
function statusChosenNode(reader: SchemaReader, alternatives: readonly unknown[], depth: number, scope: Scope): Build | undefined {
  const pins = alternatives.map((alternative) => pinsOf(reader, alternative));
  if (!pinsStatus(pins)) return undefined;
  const scopes = alternatives.map((): Scope => ({ at: scope.at, neutral: [] }));
  const built = alternatives.map((alternative, i) => build(reader, alternative, depth + 1, scopes[i]!));
  const usable = built.flatMap((b, i) => (failed(b) ? [] : [{ b, i }]));
  if (usable.length === 0)
    return { unfillable: `no alternative of anyOf can be filled (${built.map((b) => (failed(b) ? b.unfillable : '')).join('; ')})` };
  const preferred = usable.find((x) => x.b.says === true) ?? usable[0]!;
  scope.neutral.push(...scopes[preferred.i]!.neutral);
  const said = withSays(pins, built);
  const codes = usable.find((x) => x.b.codes !== undefined)?.b.codes;
  return {
    // the message names the first field unless every alternative has a place for the fields
    details: usable.every((x) => x.b.details),
    says: preferred.b.says === true,
    ...(codes === undefined ? {} : { codes }),
    write: (ctx) => {
      let first: unknown = CANNOT;
      for (const { index, body } of writtenInOrder(built, said, ctx)) {
        if (fits(reader, alternatives[index], body)) return body;
        if (first === CANNOT) first = body;
      }
      return first;
    },
  };
}

/**
 * The bodies of the alternatives that can be written, in the order error-branch.ts gives for the answer, each with
 * the status its alternative can hold (D483, "Error body alternative chosen by the answer's status").
 */
function* writtenInOrder(built: readonly Build[], pins: readonly BranchPins[], ctx: Ctx): Generator<{ index: number; body: unknown }> {
  for (const { index, status } of branchOrder(pins, ctx.status, (codes) => codeRank(codes, ctx))) {
    const b = built[index]!;
    if (failed(b)) continue;
    const value = b.write(status === undefined ? ctx : { ...ctx, statusSaid: status });
    if (value !== CANNOT) yield { index, body: value === OMIT ? {} : value };
  }
}

/**
 * What an alternative pins (D483, "Error body alternative chosen by the answer's status"): the statuses its status
 * property holds (a const or enum of numbers or of numeric text), and the string values of its const and enum
 * properties, its own and those of an object it holds (Azure's `error: {code}`).
 */
function pinsOf(reader: SchemaReader, alternative: unknown): Omit<BranchPins, 'says'> {
  const shape = reader.shape(alternative);
  const statuses: number[] = [];
  const codes: string[] = [];
  const valuesOf = (property: unknown): unknown[] => {
    const constant = reader.constant(property);
    return constant !== undefined ? [constant.value] : (enumValues(reader, property) ?? []);
  };
  for (const [name, property] of Object.entries(shape.properties)) {
    const values = valuesOf(property);
    if (STATUS_NAMES.has(lower(name)))
      for (const v of values) {
        const n = typeof v === 'number' ? v : typeof v === 'string' && /^[1-5]\d\d$/.test(v) ? Number(v) : Number.NaN;
        if (Number.isInteger(n) && n >= 100 && n <= 599) statuses.push(n);
      }
    else codes.push(...values.filter((v): v is string => typeof v === 'string'));
    if (typesOf(reader, property).includes('object'))
      for (const nested of Object.values(reader.shape(property).properties))
        codes.push(...valuesOf(nested).filter((v): v is string => typeof v === 'string'));
  }
  return { ...(statuses.length === 0 ? {} : { statuses }), codes };
}

/** The pins with whether each alternative's body says what went wrong. */
function withSays(pins: readonly Omit<BranchPins, 'says'>[], built: readonly Build[]): BranchPins[] {
  return pins.map((p, i) => {
    const b = built[i]!;
    return { ...p, says: !failed(b) && b.says === true };
  });
}

/**
 * How well an alternative's codes say the answer (D483, "Error body alternative chosen by the answer's status"): 0
 * for the answer's own code, else the place of the first of the words of its kind, its status's title and its class
 * of error that one of them contains; Infinity when none does.
 */
function codeRank(values: readonly string[], ctx: Pick<FillInput, 'code' | 'kind' | 'status'>): number {
  if (values.includes(ctx.code)) return 0;
  const words = [
    ...(ctx.kind === undefined ? [] : (KIND_WORDS[ctx.kind] ?? [])),
    squash(statusTitle(ctx.status)),
    ...(CLASS_WORDS[String(ctx.status)[0] as '4' | '5'] ?? []),
  ];
  const squashed = values.map(squash);
  const at = words.findIndex((word) => squashed.some((v) => v.includes(word)));
  return at === -1 ? Number.POSITIVE_INFINITY : at + 1;
}

/**
 * A `oneOf`: the body must match exactly one alternative (D459 a oneOf error schema filled so that exactly one branch accepts it). The alternatives that say what went wrong are
 * tried first, then those that at least fit, each in the order written; the first whose body no other alternative
 * accepts is the answer; else the first that a property another alternative declares, set to null, tells apart
 * (see toldApart). When none is (alternatives that accept the same bodies: no honest body matches exactly one), the
 * first is written, and `check` names the schema at start-up.
 */
function oneOfNode(reader: SchemaReader, alternatives: readonly unknown[], depth: number, scope: Scope): Build {
  // each alternative with a scope of its own: only the preferred one's neutral values are named (D466 neutral values for required error properties of unknown meaning)
  const scopes = alternatives.map((): Scope => ({ at: scope.at, neutral: [] }));
  const built = alternatives.map((alternative, i) => build(reader, alternative, depth + 1, scopes[i]!));
  const usable = built.map((b, i) => ({ b, i })).filter((x): x is { b: Node; i: number } => !failed(x.b));
  if (usable.length === 0)
    return { unfillable: `no alternative of oneOf can be filled (${built.map((b) => (failed(b) ? b.unfillable : '')).join('; ')})` };
  const order = [...usable.filter((x) => x.b.says === true), ...usable.filter((x) => x.b.says !== true)];
  scope.neutral.push(...scopes[order[0]!.i]!.neutral);
  const codes = order.find((x) => x.b.codes !== undefined)?.b.codes;
  // alternatives that pin statuses are tried in the order the answer's status gives (D483, "Error body alternative
  // chosen by the answer's status")
  const pins = alternatives.map((alternative) => pinsOf(reader, alternative));
  const said = pinsStatus(pins) ? withSays(pins, built) : undefined;
  const written = function* (ctx: Ctx): Generator<{ index: number; body: unknown }> {
    if (said !== undefined) {
      yield* writtenInOrder(built, said, ctx);
      return;
    }
    for (const { b, i } of order) {
      const value = b.write(ctx);
      if (value !== CANNOT) yield { index: i, body: value === OMIT ? {} : value };
    }
  };
  return {
    // the message names the first field unless every alternative has a place for the fields
    details: order.every((x) => x.b.details),
    says: order[0]!.b.says === true,
    ...(codes === undefined ? {} : { codes }),
    write: (ctx) => {
      const bodies: { i: number; body: unknown }[] = [];
      for (const { index: i, body } of written(ctx)) {
        if (onlyOne(i, body)) return body;
        bodies.push({ i, body });
      }
      for (const { i, body } of bodies) {
        const told = toldApart(i, body);
        if (told !== undefined) return told;
      }
      return bodies[0] === undefined ? CANNOT : bodies[0].body;
    },
  };

  function onlyOne(i: number, body: unknown): boolean {
    return alternatives.every((other, j) => j === i || !fits(reader, other, body));
  }

  /**
   * An open alternative's body told apart from the others that accept it: a property one of them declares, and this
   * one does not, set to null, the value that claims nothing (Dracoon's `violatedPasswordPolicies`, Vonage Reports'
   * `invalid_parameters`), where that other alternative refuses null there. Undefined when that does not make it
   * the only alternative to accept the body.
   */
  function toldApart(i: number, body: unknown): unknown {
    const own = reader.shape(alternatives[i]);
    if (!isObj(body) || own.closed) return undefined;
    const out: Obj = { ...body };
    alternatives.forEach((other, j) => {
      if (j === i || !fits(reader, other, out)) return;
      const properties = reader.shape(other).properties;
      const name = Object.keys(properties).find(
        (n) => !Object.hasOwn(own.properties, n) && !Object.hasOwn(out, n) && !fits(reader, properties[n], null),
      );
      if (name !== undefined) out[name] = null;
    });
    return onlyOne(i, out) && fits(reader, alternatives[i], out) ? out : undefined;
  }
}

/**
 * The alternatives of a `oneOf` schema that accept a body (as far as the runtime's own check judges), undefined for
 * a schema without one: what `check` reads to name a oneOf no honest body matches exactly once (D459 a oneOf error schema filled so that exactly one branch accepts it).
 */
export function oneOfMatches(reader: SchemaReader, schema: unknown, body: unknown): number[] | undefined {
  const s = reader.deref(schema);
  if (!isObj(s) || !Array.isArray(s.oneOf)) return undefined;
  return s.oneOf.flatMap((alternative, i) => (fits(reader, alternative, body) ? [i] : []));
}

/** `{code, message}` (and `details` when there are failing fields): what an open schema gets. */
function openObject(): Node {
  return {
    details: true,
    says: true,
    write: (ctx) => ({ code: ctx.code, message: ctx.text, ...(ctx.details === undefined ? {} : { details: { ...ctx.details } }) }),
  };
}

/** A string property in a role: its enum, format and length decide what can be written. */
function stringNode(reader: SchemaReader, schema: unknown, role: 'message' | 'code' | 'time' | 'path' | 'title', required = true): Build {
  const s = reader.deref(schema);
  const o = isObj(s) ? s : {};
  const values = Array.isArray(o.enum) && o.enum.length > 0 ? o.enum : undefined;
  if (values !== undefined) return { details: false, write: enumWriter(values, required) };
  if (o.format === 'date-time' || role === 'time') return { write: (ctx) => ctx.now.toISOString(), details: false };
  const max = typeof o.maxLength === 'number' ? o.maxLength : undefined;
  const fit = (text: string): string => (max !== undefined && text.length > max ? text.slice(0, Math.max(0, max - 1)) + '…' : text);
  switch (role) {
    case 'code':
      return { write: (ctx) => fit(ctx.code), details: false };
    case 'path':
      return { write: (ctx) => fit(ctx.requestPath ?? ''), details: false };
    case 'title':
      return { write: (ctx) => fit(statusTitle(ctx.status)), details: false };
    default:
      return { write: (ctx) => fit(ctx.text), details: false, says: true };
  }
}

/**
 * The value that claims nothing for a required property of unknown meaning: null, '', [], or an object of such
 * values, when the schema accepts it; undefined when it does not (a number, a boolean, a pattern, an enum).
 */
function neutral(reader: SchemaReader, schema: unknown, depth: number): { value: unknown } | undefined {
  const s = reader.deref(schema);
  if (s === true || (isObj(s) && Object.keys(s).length === 0)) return { value: null };
  if (!isObj(s) || depth > 4) return undefined;
  const constant = reader.constant(s);
  if (constant !== undefined) return { value: constant.value };
  const shape = reader.shape(s);
  if (shape.types.includes('null')) return { value: null };
  if (Array.isArray(s.enum)) return undefined;
  if (shape.types.includes('string') && s.pattern === undefined && s.format === undefined && !(Number(s.minLength) > 0))
    return { value: '' };
  if (shape.types.includes('array') && !(Number(s.minItems) > 0)) return { value: [] };
  if (shape.types.includes('object')) {
    const out: Obj = {};
    for (const name of shape.required) {
      const inner = neutral(reader, shape.properties[name], depth + 1);
      if (inner === undefined) return undefined;
      out[name] = inner.value;
    }
    return { value: out };
  }
  return undefined;
}

/** A name that says a time: `replied_at`, `createdAt`, `timestamp`, `time`, `date`. */
const TIME_NAME = /(_at|[a-z]At|timestamp|time|date)$/i;

/** An id-like name: `id`, `traceId`, `request_id`, `correlation-id`, `errorUUID`, `traceparent`. */
function idLike(name: string): boolean {
  return (
    ANSWER_ID_NAMES.has(lower(name)) ||
    /(^|[_\-\s.])(id|uuid|guid)$/i.test(name) ||
    /[a-z0-9](Id|ID|Uuid|UUID|Guid|GUID)$/.test(name) ||
    /^(trace|traceparent|span|request|correlation)$/i.test(name)
  );
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Fresh opaque ids in the forms error schemas ask for, tried in order until one fits the property's schema: a UUID,
 * 32 and 16 and 24 hex digits, a W3C traceparent (`00-<trace-id>-<span-id>-00`), a ULID-like 26 characters, digits.
 */
function idCandidates(): string[] {
  const traceId = hex(16);
  const spanId = hex(8);
  return [
    randomUUID(),
    traceId,
    spanId,
    hex(12),
    `00-${traceId}-${spanId}-00`,
    `00-${traceId}-${spanId}-01`,
    Array.from(randomBytes(26), (b) => CROCKFORD[b % 32]).join(''),
    String(Number.parseInt(hex(6), 16)),
  ];
}

/**
 * The value of a required property of no meaning the runtime knows (D421 required ids and dates of error schemas filled), as the best gateways fill theirs: an
 * id-like name gets a fresh opaque id (one that fits its schema), a date or date-time the clock's now; anything else
 * the value that claims nothing (null, '', [], {}), else the schema's own const, default, example or enum value that
 * validates. Undefined when nothing fits: the schema is then unfillable.
 */
function requiredValue(
  reader: SchemaReader,
  name: string,
  property: unknown,
  depth: number,
  scope: Scope,
): ((ctx: Ctx) => Written) | undefined {
  const s = reader.deref(property);
  const types = reader.shape(property).types;
  if (idLike(name) && isObj(s)) {
    if (types.includes('string') && idCandidates().some((id) => fits(reader, s, id))) {
      return () => idCandidates().find((id) => fits(reader, s, id))!;
    }
    if (types.includes('integer') || types.includes('number')) {
      const min = Math.max(1, typeof s.minimum === 'number' ? Math.ceil(s.minimum) : 1);
      const max = Math.min(2 ** 31 - 1, typeof s.maximum === 'number' ? Math.floor(s.maximum) : 2 ** 31 - 1);
      if (min <= max) return () => min + (randomBytes(4).readUInt32BE() % (max - min + 1));
    }
  }
  if (isObj(s) && types.includes('string') && (s.format === 'date-time' || s.format === 'date')) {
    const date = s.format === 'date';
    return (ctx) => (date ? ctx.now.toISOString().slice(0, 10) : ctx.now.toISOString());
  }
  // a time written as a number (BBC's `replied_at: {type: integer}`): the answer's time in Unix seconds
  if (isObj(s) && (types.includes('integer') || types.includes('number')) && TIME_NAME.test(name) && s.enum === undefined)
    return (ctx) => Math.floor(ctx.now.getTime() / 1000);
  const value = neutral(reader, property, depth);
  if (value !== undefined) return () => structuredClone(value.value);
  if (!isObj(s)) return undefined;
  const own = [
    ...(s.const === undefined ? [] : [s.const]),
    ...(s.default === undefined ? [] : [s.default]),
    ...(s.example === undefined ? [] : [s.example]),
    ...(Array.isArray(s.examples) ? s.examples : []),
    ...(Array.isArray(s.enum) ? s.enum : []),
  ];
  const found = own.find((v) => v !== undefined && fits(reader, s, v));
  if (found !== undefined) return () => structuredClone(found);
  return neutralWriter(reader, name, property, depth, within(scope, name));
}

/** Where a filler is in its schema (`error`, `errors[]`), and the properties it gave a neutral value so far. */
interface Scope {
  at: string;
  neutral: string[];
}

const within = (scope: Scope, name: string): Scope => ({ at: scope.at === '' ? name : `${scope.at}.${name}`, neutral: scope.neutral });

/** A number whose name says a status or an error code (`statusCode`, `api-error`, `errno`): the answer's status fits it best. */
const STATUS_LIKE = /(status|code|error|errno)$/i;

/** Strings that claim nothing, tried in order where '' does not fit: a word, a letter, a digit, a version, a URI. */
const PLACEHOLDERS: readonly string[] = ['', 'unknown', 'a', 'A', '0', '0.0.0', 'about:blank'];

/** What the neutral values are checked with at start-up (a status and a clock; any answer's would do). */
const SAMPLE: Ctx = { status: 400, code: 'invalid_request', message: '', text: '', problems: [], now: new Date(0) };

/**
 * A neutral value for a required property of no meaning the runtime knows (D466 neutral values for required error properties of unknown meaning), one its schema accepts: its
 * `const`, `default`, first `enum` value, `example`/`examples`, else by type: a fresh id, '', the clock's now for a
 * string; the answer's status for a status-like number, else 0 or the smallest value its bounds allow; false; an
 * empty array (or as many neutral items as it must have); an object of neutral required properties. Each such
 * property is named in `scope.neutral` (what start-up says); undefined when no value validates.
 */
function neutralWriter(
  reader: SchemaReader,
  name: string,
  schema: unknown,
  depth: number,
  scope: Scope,
): ((ctx: Ctx) => Written) | undefined {
  const own: string[] = [];
  const write = neutralOf(reader, name, schema, depth, { at: scope.at, neutral: own });
  if (write === undefined || !fits(reader, schema, write(SAMPLE))) return undefined;
  scope.neutral.push(...(own.length > 0 ? own : [scope.at]));
  return write;
}

function neutralOf(reader: SchemaReader, name: string, schema: unknown, depth: number, scope: Scope): ((ctx: Ctx) => unknown) | undefined {
  const s = reader.deref(schema);
  if (s === true || (isObj(s) && Object.keys(s).length === 0)) return () => null;
  if (!isObj(s) || depth > 8) return undefined;
  const valid = (v: unknown): boolean => v !== undefined && fits(reader, s, v);
  const declared = [
    s.const,
    s.default,
    ...(Array.isArray(s.enum) ? s.enum : []),
    s.example,
    ...(Array.isArray(s.examples) ? s.examples : []),
  ].find(valid);
  if (declared !== undefined) return () => structuredClone(declared);
  for (const key of ['oneOf', 'anyOf'] as const)
    if (Array.isArray(s[key]))
      for (const member of s[key] as unknown[]) {
        const write = neutralWriter(reader, name, member, depth + 1, scope);
        if (write !== undefined && valid(write(SAMPLE))) return write;
      }
  const types = reader.shape(s).types;
  for (const type of types) {
    const write = neutralOfType(reader, name, s, type, depth, scope);
    if (write !== undefined && valid(write(SAMPLE))) return write;
  }
  return types.length === 0 && valid(null) ? () => null : undefined;
}

function neutralOfType(
  reader: SchemaReader,
  name: string,
  s: Obj,
  type: string,
  depth: number,
  scope: Scope,
): ((ctx: Ctx) => unknown) | undefined {
  switch (type) {
    case 'null':
      return () => null;
    case 'boolean':
      return () => false;
    case 'string': {
      // fixed placeholders first (the same on every answer: a version, a lower-case name), then a fresh id, then now
      const fixed = PLACEHOLDERS.find((v) => fits(reader, s, v));
      if (fixed !== undefined) return () => fixed;
      const fresh = (ctx: Ctx): string[] => [...idCandidates(), ctx.now.toISOString(), ctx.now.toISOString().slice(0, 10)];
      const sample = fresh(SAMPLE).find((v) => fits(reader, s, v));
      if (sample === undefined) return undefined;
      return (ctx) => fresh(ctx).find((v) => fits(reader, s, v)) ?? sample;
    }
    case 'integer':
    case 'number': {
      const least = smallestNumber(s, type === 'integer');
      if (least === undefined) return undefined;
      return STATUS_LIKE.test(name) ? (ctx) => (fits(reader, s, ctx.status) ? ctx.status : least) : () => least;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      if (min === 0) return () => [];
      const item = neutralWriter(reader, name, s.items ?? {}, depth + 1, { at: `${scope.at}[]`, neutral: scope.neutral });
      return item === undefined ? undefined : (ctx) => Array.from({ length: min }, () => item(ctx));
    }
    case 'object': {
      const shape = reader.shape(s);
      const writers: [string, (ctx: Ctx) => Written][] = [];
      for (const required of shape.required) {
        const property = Object.hasOwn(shape.properties, required) ? shape.properties[required] : (shape.extraValues ?? {});
        const write = requiredValue(reader, required, property, depth + 1, scope);
        if (write === undefined) return undefined;
        writers.push([required, write]);
      }
      return (ctx) => Object.fromEntries(writers.map(([n, write]) => [n, write(ctx)]));
    }
    default:
      return undefined;
  }
}

/** 0, or the smallest value the bounds allow (a multiple of `multipleOf`), or the largest when all are negative. */
function smallestNumber(s: Obj, integer: boolean): number | undefined {
  const step = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : undefined;
  let low = typeof s.minimum === 'number' ? s.minimum : undefined;
  if (typeof s.exclusiveMinimum === 'number') low = Math.max(low ?? -Infinity, s.exclusiveMinimum + (step ?? 1));
  else if (s.exclusiveMinimum === true && low !== undefined) low += step ?? 1;
  let high = typeof s.maximum === 'number' ? s.maximum : undefined;
  if (typeof s.exclusiveMaximum === 'number') high = Math.min(high ?? Infinity, s.exclusiveMaximum - (step ?? 1));
  else if (s.exclusiveMaximum === true && high !== undefined) high -= step ?? 1;
  let value = low !== undefined && low > 0 ? low : high !== undefined && high < 0 ? high : 0;
  if (step !== undefined) value = value === high ? Math.floor(value / step) * step : Math.ceil(value / step) * step;
  return (low === undefined || value >= low) && (high === undefined || value <= high) ? value : undefined;
}

const FORMATS: Readonly<Record<string, RegExp>> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  // ajv-formats' `url`: http, https or ftp only
  url: /^(?:https?|ftp):\/\/\S+$/i,
};

/**
 * Whether a value the runtime makes up fits a schema (types, enum, const, pattern, lengths, bounds, the formats of
 * ids and dates, objects' required properties, arrays' items), so that a value is only given when it validates.
 * Deliberately small: what it cannot judge (another format, a $ref it cannot follow) it refuses.
 */
function fits(reader: SchemaReader, schema: unknown, value: unknown, depth = 0): boolean {
  const s = reader.deref(schema);
  if (s === true || (isObj(s) && Object.keys(s).length === 0)) return true;
  if (!isObj(s) || depth > 6) return false;
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) return false;
  if (Array.isArray(s.allOf) && !s.allOf.every((m) => fits(reader, m, value, depth + 1))) return false;
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(s[key]) && !(s[key] as unknown[]).some((m) => fits(reader, m, value, depth + 1))) return false;
  const declared = Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : [];
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : Number.isInteger(value)
          ? 'integer'
          : typeof value === 'number'
            ? 'number'
            : typeof value;
  if (
    declared.length > 0 &&
    !declared.includes(kind) &&
    !(kind === 'integer' && declared.includes('number')) &&
    !(kind === 'null' && s.nullable === true)
  )
    return false;
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && [...value].length < s.minLength) return false;
    if (typeof s.maxLength === 'number' && [...value].length > s.maxLength) return false;
    if (typeof s.pattern === 'string') {
      try {
        if (!new RegExp(s.pattern, 'u').test(value)) return false;
      } catch {
        return false;
      }
    }
    if (typeof s.format === 'string' && FORMATS[s.format] !== undefined && !FORMATS[s.format]!.test(value)) return false;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) return false;
    if (typeof s.maximum === 'number' && value > s.maximum) return false;
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) return false;
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) return false;
    if (typeof s.multipleOf === 'number' && value % s.multipleOf !== 0) return false;
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) return false;
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) return false;
    if (s.items !== undefined && !value.every((v) => fits(reader, s.items, v, depth + 1))) return false;
  }
  if (isObj(value)) {
    const shape = reader.shape(s);
    for (const r of shape.required) if (!Object.hasOwn(value, r)) return false;
    for (const [k, v] of Object.entries(value)) {
      if (Object.hasOwn(shape.properties, k)) {
        if (!fits(reader, shape.properties[k], v, depth + 1)) return false;
      } else if (shape.closed) return false;
    }
  }
  return true;
}

interface Step {
  name: string;
  required: boolean;
  write: (ctx: Ctx) => Written;
}

/** An object schema: every property it declares given a role (see the module comment). */
function objectNode(reader: SchemaReader, shape: Shape, depth: number, scope: Scope): Build {
  if (shape.extension !== undefined) return extensionNode(reader, shape);
  const names = Object.keys(shape.properties);
  const stringish = (n: string): boolean => typesOf(reader, shape.properties[n]).some((t) => t === 'string');
  const hasMessage = names.some(
    (n) => MESSAGE_NAMES.has(lower(n)) && lower(n) !== 'title' && stringish(n) && enumValues(reader, shape.properties[n]) === undefined,
  );
  const steps: Step[] = [];
  let details = false;
  let carriesMessage = false;
  let carriesCode = false;
  let codes: Partial<Record<string, string>> | undefined;
  const push = (name: string, write: (ctx: Ctx) => Written): void => {
    steps.push({ name, required: shape.required.has(name), write });
  };

  for (const name of names) {
    const property = shape.properties[name];
    const role = lower(name);
    const types = typesOf(reader, property);
    const concrete = types.filter((t) => t !== 'null');
    // an enum without a type is a string enum when its values are strings
    if (concrete.length === 0 && enumValues(reader, property)?.every((v) => typeof v === 'string')) concrete.push('string');
    const numeric = concrete.includes('integer') || concrete.includes('number');
    const required = shape.required.has(name);
    const constant = reader.constant(property);
    const enumerated = enumValues(reader, property) !== undefined;

    // the HTTP status, whatever constant the schema pins it to (a shared schema answers several statuses)
    if (STATUS_NAMES.has(role) && numeric) {
      // the answer's own status even where the schema pins another (a shared schema): a status field never lies; only
      // an alternative of anyOf/oneOf that cannot hold it says the nearest status it pins (D483, "Error body alternative
      // chosen by the answer's status")
      push(name, saidStatus);
      continue;
    }
    if (STATUS_NAMES.has(role) && concrete.includes('string')) {
      push(name, statusText(reader, property));
      continue;
    }
    if (constant !== undefined) {
      if (required) push(name, () => structuredClone(constant.value));
      continue;
    }
    if (CODE_NAMES.has(role) || (role === 'type' && concrete.includes('string') && !isProblemType(reader, property, names))) {
      if (numeric) push(name, statusNumber(reader, property));
      else if (concrete.includes('string')) {
        const node = stringNode(reader, property, 'code', required);
        if (failed(node)) return node;
        push(name, node.write);
        carriesCode = true;
      } else if (required) {
        const write = neutralWriter(reader, name, property, depth + 1, within(scope, name));
        if (write === undefined) return { unfillable: `required property '${name}' is a code of no string or number type` };
        push(name, write);
      }
      continue;
    }
    if (role === 'type' && concrete.includes('string')) {
      // Problem Details' `type`: about:blank, or the value of its enum that says the answer (D420 enum properties of error schemas filled from their values)
      const values = enumValues(reader, property);
      // pdfblocks' `type: {format: url}`: about:blank is no URL, so an optional one is left out
      const blank = required || fits(reader, property, 'about:blank') ? 'about:blank' : OMIT;
      push(name, values === undefined ? () => blank : enumWriter(values, required));
      continue;
    }
    if ((role === 'error' || role === 'err' || role === 'fault') && concrete.includes('object')) {
      const nested = build(reader, property, depth + 1, within(scope, name));
      if (failed(nested)) {
        if (required) {
          const write = neutralWriter(reader, name, property, depth + 1, within(scope, name));
          if (write === undefined) return { unfillable: `property '${name}': ${nested.unfillable}` };
          push(name, write);
        }
        continue;
      }
      codes = nested.codes;
      details ||= nested.details;
      carriesMessage = true;
      push(name, nested.write);
      continue;
    }
    if ((role === 'error' || role === 'err') && concrete.includes('boolean')) {
      push(name, () => true);
      continue;
    }
    if ((role === 'error' || role === 'err') && numeric) {
      push(name, statusNumber(reader, property));
      continue;
    }
    if ((role === 'error' || role === 'err') && concrete.includes('string')) {
      // OAuth style `{ error, error_description }`: the code; a lone `error` (or `err`) string is the message; an
      // `error` enum (`[invalid_request, unauthorized]`) is a code: its value for the answer (D420 enum properties of error schemas filled from their values)
      if (enumerated) {
        push(name, enumWriter(enumValues(reader, property)!, required));
        carriesCode = true;
      } else if (hasMessage && role === 'error') {
        push(name, (ctx) => ctx.code);
        carriesCode = true;
      } else {
        push(name, (ctx) => ctx.text);
        carriesMessage = true;
      }
      continue;
    }
    if ((role === 'error' || role === 'err') && concrete.includes('array')) {
      // NPR's VAST `error: [string]`: a list of errors under the singular name
      const node = listNode(reader, reader.deref(property), required ? 'required' : 'optional', depth, within(scope, name));
      if (failed(node)) {
        if (required) return { unfillable: `property '${name}': ${node.unfillable}` };
        continue;
      }
      details ||= node.details;
      push(name, node.write);
      continue;
    }
    if (FAILURE_FLAGS.has(role) && concrete.includes('boolean')) {
      push(name, () => false);
      continue;
    }
    if (DETAILS_NAMES.has(role) && (concrete.includes('array') || (concrete.includes('object') && role !== 'detail'))) {
      const node = concrete.includes('array')
        ? listNode(reader, reader.deref(property), required ? 'required' : 'optional', depth, within(scope, name))
        : mapNode(reader, property, required);
      if (failed(node)) {
        if (required) {
          const write = neutralWriter(reader, name, property, depth + 1, within(scope, name));
          if (write === undefined) return { unfillable: `property '${name}': ${node.unfillable}` };
          push(name, write);
        }
        continue;
      }
      details ||= node.details;
      push(name, node.write);
      continue;
    }
    if ((MESSAGE_NAMES.has(role) || DETAILS_NAMES.has(role)) && concrete.includes('string')) {
      const node = stringNode(reader, property, role === 'title' && hasMessage ? 'title' : 'message', required);
      if (failed(node)) return node;
      // an enum of fixed texts is given one of them (D420 enum properties of error schemas filled from their values): the message then still needs a place
      push(name, node.write);
      carriesMessage ||= !enumerated && (role !== 'title' || !hasMessage);
      continue;
    }
    if (TIME_NAMES.has(role) && (concrete.includes('string') || numeric)) {
      push(name, numeric ? (ctx) => Math.floor(ctx.now.getTime() / 1000) : (ctx) => ctx.now.toISOString());
      continue;
    }
    if (PATH_NAMES.has(role) && concrete.includes('string') && neutral(reader, property, 0) !== undefined) {
      push(name, (ctx) => ctx.requestPath ?? '');
      continue;
    }
    if (RETRY_NAMES.has(role) && numeric) {
      push(name, (ctx) => {
        const seconds = Number(ctx.retryAfter);
        return Number.isFinite(seconds) && seconds >= 0 ? seconds : 0;
      });
      continue;
    }
    if (ANSWER_ID_NAMES.has(role) && answerId(reader, property)) {
      push(name, () => randomUUID());
      continue;
    }
    if (!required) continue;
    const value = requiredValue(reader, name, property, depth, scope);
    if (value === undefined) return { unfillable: `required property '${name}' has no meaning the runtime knows` };
    push(name, value);
  }
  for (const name of shape.required)
    if (!Object.hasOwn(shape.properties, name) && shape.closed) return { unfillable: `required property '${name}' is not declared` };
  const undeclaredRequired = [...shape.required].filter((n) => !Object.hasOwn(shape.properties, n));
  // an open object with no place for the message gets `code` and `message` (valid: it allows any property), unless
  // its undeclared properties must be something a text is not (LUIS's `additionalProperties: {type: object}`)
  const extraTypes = shape.extraValues === undefined ? [] : typesOf(reader, shape.extraValues);
  const extraTakesText = extraTypes.length === 0 || extraTypes.includes('string');
  if (!carriesMessage && !details && (shape.closed || !extraTakesText)) {
    // a closed object with no place named for the message (Slack's `{ok, error: <enum>, callstack}`): its first free
    // text says which field and why (D467 validation answers name the field in the best string the schema offers)
    const free = freeText(reader, shape, new Set(steps.map((step) => step.name)));
    if (free !== undefined) {
      const node = stringNode(reader, shape.properties[free], 'message', shape.required.has(free));
      if (!failed(node)) {
        push(free, node.write);
        steps.sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
        carriesMessage = true;
      }
    }
  }
  const addGeneric = !shape.closed && extraTakesText && !carriesMessage && !details;
  // ...where they must be objects, the message goes in one, as Azure's and OData's `error: {code, message}`
  const extraObject = shape.extraValues as Obj;
  const addErrorObject =
    !shape.closed &&
    !extraTakesText &&
    extraTypes.includes('object') &&
    reader.shape(extraObject).required.size === 0 &&
    !reader.shape(extraObject).closed &&
    !carriesMessage &&
    !details;
  const freeName = (candidates: readonly string[], out: Obj): string | undefined =>
    candidates.find((n) => !(n in out) && !Object.hasOwn(shape.properties, n));
  return {
    details: details || addGeneric || addErrorObject,
    says: carriesMessage || details || addGeneric || addErrorObject,
    ...(codes === undefined ? {} : { codes }),
    write: (ctx) => {
      const out: Obj = {};
      for (const step of steps) {
        const value = step.write(ctx);
        if (value === CANNOT) {
          if (step.required) return CANNOT;
          continue;
        }
        if (value !== OMIT) out[step.name] = value;
        else if (step.required) return CANNOT;
      }
      for (const name of undeclaredRequired) out[name] ??= null;
      if (addGeneric) {
        // under names the schema leaves free (paypi's `message` is a boolean: the text goes to `error_message`)
        const code = freeName(['code', 'error_code'], out);
        const message = freeName(['message', 'error_message', 'detail'], out);
        const detailsName = freeName(['details', 'field_errors'], out);
        if (!carriesCode && code !== undefined) out[code] = ctx.code;
        if (message !== undefined) out[message] = ctx.text;
        if (ctx.details !== undefined && detailsName !== undefined) out[detailsName] = { ...ctx.details };
      }
      if (addErrorObject) {
        const name = freeName(['error', 'error_details'], out);
        if (name !== undefined)
          out[name] = { code: ctx.code, message: ctx.text, ...(ctx.details === undefined ? {} : { details: { ...ctx.details } }) };
      }
      return out;
    },
  };
}

function enumValues(reader: SchemaReader, schema: unknown): unknown[] | undefined {
  const s = reader.deref(schema);
  return isObj(s) && Array.isArray(s.enum) ? s.enum : undefined;
}

/** A string property a random UUID fits (no pattern, no enum; `format: uuid` or none). */
function answerId(reader: SchemaReader, schema: unknown): boolean {
  const s = reader.deref(schema);
  if (!isObj(s) || s.pattern !== undefined || s.enum !== undefined) return false;
  if (!reader.shape(s).types.includes('string')) return false;
  if (typeof s.maxLength === 'number' && s.maxLength < 36) return false;
  return s.format === undefined || s.format === 'uuid';
}

/** Problem Details' `type` (a URI reference, `about:blank`) rather than an error's type code. */
function isProblemType(reader: SchemaReader, property: unknown, siblings: readonly string[]): boolean {
  const s = reader.deref(property);
  if (isObj(s) && (s.format === 'uri' || s.format === 'uri-reference')) return true;
  return siblings.some((n) => ['title', 'instance'].includes(lower(n)));
}

/** `x-paygate-error`: the required constants, then the code, message, details and status where its pointers say. */
function extensionNode(reader: SchemaReader, shape: Shape): Build {
  const ext = shape.extension!;
  const constants: [string, unknown][] = [];
  for (const [name, property] of Object.entries(shape.properties)) {
    const c = reader.constant(property);
    if (c !== undefined && shape.required.has(name)) constants.push([name, c.value]);
  }
  const pointers = (['code', 'message', 'details', 'status'] as const).filter((f) => typeof ext[f] === 'string');
  return {
    details: typeof ext.details === 'string',
    says: typeof ext.message === 'string' || typeof ext.details === 'string',
    codes: ext.codes ?? {},
    write: (ctx) => {
      const out: Obj = {};
      for (const [name, value] of constants) out[name] = structuredClone(value);
      for (const field of pointers) {
        const value = field === 'code' ? ctx.code : field === 'message' ? ctx.text : field === 'status' ? ctx.status : ctx.details;
        if (value !== undefined) setPointer(out, ext[field]!, value);
      }
      return out;
    },
  };
}

/**
 * A string `status`: the status as text, or the value of its enum that says it (JSend's `status: error`), or its
 * constant.
 */
function statusText(reader: SchemaReader, property: unknown): (ctx: Ctx) => Written {
  const s = reader.deref(property);
  const constant = reader.constant(property);
  if (constant !== undefined) return () => constant.value;
  const values = isObj(s) && Array.isArray(s.enum) ? s.enum.filter((v): v is string => typeof v === 'string') : undefined;
  if (values === undefined) return (ctx) => String(saidStatus(ctx));
  // JSend's `status: error`, else the enum's value for the answer (D420 enum properties of error schemas filled from their values)
  return (ctx) =>
    values.includes(String(saidStatus(ctx)))
      ? String(saidStatus(ctx))
      : (values.find((v) => /error|fail/i.test(v)) ?? enumChoice(values, ctx));
}

/** A details map (`{field: reason}`, or `{field: [reason]}`); a required one is `{}` when no field failed. */
function mapNode(reader: SchemaReader, property: unknown, required: boolean): Build {
  const s = reader.deref(property);
  const o = isObj(s) ? s : {};
  const shape = reader.shape(property);
  if (shape.required.size > 0 || (shape.closed && Object.keys(shape.properties).length === 0))
    return { unfillable: 'a details object with required or no properties' };
  const values = o.additionalProperties;
  const valueTypes = values === undefined || values === true ? ['string'] : typesOf(reader, values);
  const asList = !valueTypes.includes('string') && valueTypes.includes('array');
  if (!valueTypes.includes('string') && !asList) return { unfillable: 'a details map whose values are neither strings nor lists' };
  return {
    details: true,
    says: true,
    write: (ctx) => {
      if (ctx.details === undefined) return required ? {} : OMIT;
      return Object.fromEntries(Object.entries(ctx.details).map(([field, reason]) => [field, asList ? [reason] : reason]));
    },
  };
}

/**
 * A list of errors: one item per failing field (a string `field: reason`, or an object with the field, its
 * location, the reason and a code). Without failing fields: one item saying the message when the list is the whole
 * body or must not be empty, `[]` when it is required, else nothing.
 */
function listNode(reader: SchemaReader, list: unknown, mode: 'body' | 'required' | 'optional', depth: number, scope: Scope): Build {
  const items = isObj(list) ? list.items : undefined;
  const item = itemNode(reader, items, depth, { at: `${scope.at}[]`, neutral: scope.neutral });
  if (typeof item !== 'function') return item;
  const min = isObj(list) && typeof list.minItems === 'number' ? list.minItems : 0;
  // items with no place for a field or a reason (Docker Hub's `details: [{}]`) carry no details: the message names
  // the field then (D422 each list item of errors names its field), and an optional list of them is left out
  const silent = (item as SilentItem).silent === true;
  return {
    details: !silent,
    says: !silent,
    write: (ctx) => {
      if (silent && mode === 'optional') return OMIT;
      const entries: FieldProblem[] =
        ctx.problems.length > 0 ? [...ctx.problems] : mode === 'body' || min > 0 ? [{ field: '', path: [], reason: ctx.text }] : [];
      if (entries.length === 0) return mode === 'required' ? [] : OMIT;
      const out: unknown[] = [];
      for (const entry of entries) {
        const value = item(ctx, entry);
        if (value === CANNOT) return CANNOT;
        out.push(value);
      }
      return out;
    },
  };
}

type ItemWriter = (ctx: Ctx, problem: FieldProblem) => Written;
/** An item writer whose items say neither the field nor the reason. */
type SilentItem = ItemWriter & { silent?: boolean };

/**
 * A `source` object of an error item (JSON:API): a field of the body as a JSON Pointer into it (`/items/0/name`)
 * where it has a `pointer`, any other field by name in `parameter` (or another field-like property); one of them only
 * (Amadeus declares `maxProperties: 1`). Undefined when it has no such property.
 */
function sourceWriter(reader: SchemaReader, property: unknown): ItemWriter | undefined {
  const shape = reader.shape(property);
  const strings = Object.keys(shape.properties).filter(
    (n) =>
      FIELD_NAMES.has(lower(n)) &&
      enumValues(reader, shape.properties[n]) === undefined &&
      typesOf(reader, shape.properties[n]).includes('string'),
  );
  if (strings.length === 0 || [...shape.required].some((r) => !strings.includes(r))) return undefined;
  const pointer = strings.find((n) => lower(n) === 'pointer');
  const other = strings.find((n) => lower(n) !== 'pointer');
  return (_ctx, p) => {
    if (p.field === '') return OMIT;
    if (pointer !== undefined && (p.in === 'body' || other === undefined))
      return p.path.length === 0 ? OMIT : { [pointer]: pointerOf(p.in === 'body' || p.in === undefined ? p.path : [p.in, ...p.path]) };
    // a body field without a pointer, or the whole body: the item's message names it
    if (p.in === 'body') return pointer === undefined && p.path.length > 0 ? { [other!]: problemName(p) } : OMIT;
    return { [other!]: p.field };
  };
}

/** What an item's message says when nothing else in it names the field: `query.limit: must be <= 100`. */
const itemText = (p: FieldProblem): string => (p.field === '' ? p.reason : `${problemName(p)}: ${p.reason}`);

/**
 * The first property of an object that can hold any text (a string without enum, const, pattern or format, not a
 * vocabulary's `@`/`$` keyword), other than those already given a role: where the message goes when the schema names
 * no place for it.
 */
function freeText(reader: SchemaReader, shape: Shape, taken: ReadonlySet<string>): string | undefined {
  return Object.keys(shape.properties).find((name) => {
    // `@type`, `$schema`: keywords of a vocabulary (JSON-LD, protobuf's Any), not text
    if (taken.has(name) || /^[@$]/.test(name)) return false;
    const s = reader.deref(shape.properties[name]);
    if (!isObj(s) || !typesOf(reader, s).includes('string')) return false;
    return s.enum === undefined && s.const === undefined && s.pattern === undefined && s.format === undefined && !(Number(s.minLength) > 1);
  });
}

/** One item of a list of errors. */
function itemNode(reader: SchemaReader, items: unknown, depth: number, scope: Scope): ItemWriter | { unfillable: string } {
  const shape = reader.shape(items);
  const types = shape.types.filter((t) => t !== 'null');
  if (items === undefined || types.includes('string') || (types.length === 0 && Object.keys(shape.properties).length === 0))
    return (_ctx, p) => (p.field === '' ? p.reason : `${problemName(p)}: ${p.reason}`);
  if (!types.includes('object')) return { unfillable: 'a list of errors whose items are neither strings nor objects' };
  const steps: { name: string; required: boolean; write: ItemWriter }[] = [];
  const names = Object.keys(shape.properties);
  const hasLocation = names.some((n) => LOCATION_NAMES.has(lower(n)));
  // where the item names the field; without such a place its message does (`query.limit: must be <= 100`, D422)
  const fieldSteps = new Set<string>();
  const messageSteps: { name: string; required: boolean; write: ItemWriter }[] = [];
  for (const name of names) {
    const role = lower(name);
    const property = shape.properties[name];
    const concrete = typesOf(reader, property).filter((t) => t !== 'null');
    const required = shape.required.has(name);
    const constant = reader.constant(property);
    const add = (write: ItemWriter): void => void steps.push({ name, required, write });
    if (constant !== undefined) {
      if (required) add(() => structuredClone(constant.value));
      continue;
    }
    if (
      LOCATION_NAMES.has(role) &&
      concrete.includes('string') &&
      (role === 'in' || names.some((n) => FIELD_NAMES.has(lower(n)) && n !== name))
    ) {
      add((_ctx, p) => (p.in === undefined ? OMIT : p.in));
      continue;
    }
    if (FIELD_NAMES.has(role) && concrete.includes('array')) {
      // FastAPI's `loc`: the location, then the path
      add((_ctx, p) => (p.in === undefined ? [...p.path] : [p.in, ...(p.field === p.in ? [] : p.path)]));
      fieldSteps.add(name);
      continue;
    }
    if ((FIELD_NAMES.has(role) || role === 'source') && concrete.includes('string') && enumValues(reader, property) === undefined) {
      // a string `source` (Storecove's `{source, details}`) is the field itself
      const pointer = role === 'pointer';
      fieldSteps.add(name);
      add((_ctx, p) => {
        if (p.field === '') return OMIT;
        if (pointer) return `/${[...(p.in === undefined ? [] : [p.in]), ...(p.field === p.in ? [] : p.path)].join('/')}`;
        return hasLocation ? p.field : problemName(p);
      });
      continue;
    }
    if (role === 'source' && concrete.includes('object')) {
      // JSON:API's (and Amadeus's) `source: {pointer, parameter}`: one of them names the field (D422 each list item of errors names its field)
      const source = sourceWriter(reader, property);
      if (source !== undefined) {
        add(source);
        fieldSteps.add(name);
        continue;
      }
    }
    if ((MESSAGE_NAMES.has(role) || DETAILS_NAMES.has(role)) && concrete.includes('string')) {
      const values = enumValues(reader, property);
      if (values !== undefined && values.length > 0) {
        const write = enumWriter(values, required);
        add((ctx) => write(ctx));
      } else messageSteps.push({ name, required, write: (_ctx, p) => p.reason });
      continue;
    }
    const errorObject = (role === 'error' || role === 'err' || role === 'fault' || MESSAGE_NAMES.has(role)) && concrete.includes('object');
    const errorList = DETAILS_NAMES.has(role) && concrete.includes('array');
    if ((errorObject || errorList) && depth < 6) {
      // an item's own `{error: {code, message}}` (Wealthreader's), `errorMessage: {code, message}` or list of errors
      // (BeezUP's): filled as the error of this one field (D467 validation answers name the field in the best string the schema offers)
      const at = within(scope, name);
      const nested = errorList
        ? listNode(reader, reader.deref(property), required ? 'required' : 'optional', depth + 1, at)
        : build(reader, property, depth + 1, at);
      if (!failed(nested) && nested.says === true) {
        add((ctx, p) =>
          nested.write({
            ...ctx,
            text: itemText(p),
            problems: p.field === '' ? [] : [p],
            ...(p.field === '' ? {} : { details: { [p.field]: p.reason } }),
          }),
        );
        fieldSteps.add(name);
        continue;
      }
    }
    if ((CODE_NAMES.has(role) || STATUS_NAMES.has(role)) && (concrete.includes('integer') || concrete.includes('number'))) {
      const write = STATUS_NAMES.has(role) ? (ctx: Ctx) => ctx.status : statusNumber(reader, property);
      add((ctx) => write(ctx));
      continue;
    }
    if (STATUS_NAMES.has(role) && concrete.includes('string')) {
      const write = statusText(reader, property);
      add((ctx) => write(ctx));
      continue;
    }
    if ((CODE_NAMES.has(role) || role === 'type' || role === 'keyword') && concrete.includes('string')) {
      const node = stringNode(reader, property, 'code', required);
      if (failed(node)) return node;
      add((ctx) => node.write(ctx));
      continue;
    }
    if (!required) continue;
    const value = requiredValue(reader, name, property, depth + 1, scope);
    if (value === undefined) return { unfillable: `an error item's required property '${name}' has no meaning the runtime knows` };
    add((ctx) => value(ctx));
  }
  if (fieldSteps.size === 0 && messageSteps.length === 0) {
    // no place named for the field or the reason: the first free text the item has says both (D467 validation answers
    // name the field in the best string the schema offers)
    const free = freeText(reader, shape, new Set(steps.map((step) => step.name)));
    if (free !== undefined) messageSteps.push({ name: free, required: shape.required.has(free), write: (_ctx, p) => p.reason });
  }
  const named = itemText;
  const messages = new Set(messageSteps.map((m) => m.name));
  steps.push(...messageSteps);
  steps.sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
  const writer: SilentItem = (ctx, p) => {
    const values = new Map<string, Written>();
    for (const step of steps) if (!messages.has(step.name)) values.set(step.name, step.write(ctx, p));
    // the message names the field when nothing else in the item does (a whole-body problem has no pointer)
    const fieldNamed = [...fieldSteps].some((n) => {
      const v = values.get(n);
      return v !== OMIT && v !== CANNOT && v !== undefined && v !== '';
    });
    const out: Obj = {};
    for (const step of steps) {
      const value = messages.has(step.name) ? (fieldNamed ? step.write(ctx, p) : named(p)) : values.get(step.name);
      if (value === CANNOT) return CANNOT;
      if (value === OMIT) {
        if (step.required) out[step.name] = '';
        continue;
      }
      out[step.name] = value;
    }
    return out;
  };
  if (fieldSteps.size === 0 && messageSteps.length === 0) writer.silent = true;
  return writer;
}

/**
 * The scaffold's own answers (request validation 400, 401 from authentication, unknown route 404, 405, 413, 415,
 * 429, 500, 501) in the error shape the spec declares (D119 scaffold shapes its answers from the spec): the schema of the operation's response for that
 * status, else its `NXX` range, else its `default`; for an answer outside any operation (unknown route) or a status
 * the operation does not declare, the schema most operations of the document declare for that status (else for
 * `default`, else the error schema it declares most often); for a spec that declares none, RFC 9457
 * `application/problem+json`.
 *
 * Two of those answers take the status the operation declares for their meaning when it does not declare theirs
 * (D217 422 or 403 when that is what the spec declares): a validation failure is 422 where 422 and no 400 is declared (FastAPI's specs), a refused or missing
 * credential 403 where 403 and no 401 is (Figma's).
 *
 * A status the operation declares without content is answered without a body (D423 a status declared without content answers without a body); a JSON media type without a
 * schema, a media range or a `text/plain` declaration is answered in it (D424 error answers in the declared media type).
 *
 * How a declared schema is filled is error-fill.ts (D215 error schema filled by role). One that cannot be filled is reported at start-up per
 * operation and status (`check`), and answered with problem+json: createApiApp refuses to start for a status the
 * runtime answers on its own unless an `errorMapper` is given.
 */
import {
  CANNOT,
  fillerFor,
  isObj,
  oneOfMatches,
  messageWithField,
  SchemaReader,
  statusTitle,
  type FieldProblem,
  type Filler,
  type Obj,
} from './error-fill.js';
import type { ApiDocument, Logger, OperationRoute } from './types.js';
import { xmlDocument } from './xml-body.js';
import { escapePointerToken } from '@paygate/contract/json';

export type { ErrorSchemaExtension, FieldProblem } from './error-fill.js';

/** What the runtime is answering, before it has a shape. */
export interface RuntimeError {
  status: number;
  /** The error code: the handler's `HttpError` code, or the spec's code for the runtime's own answers. */
  code: string;
  message: string;
  /** Field (`items[0].name`, a parameter name) -> what is wrong. */
  details?: Record<string, string>;
  /** The failing fields in order, with where each is (`query`, `body`...): what a message or a list of errors names. */
  problems?: readonly FieldProblem[];
  headers: Record<string, string>;
  /** True when the cause is a server fault that must be logged (the body never carries its internals). */
  internal: boolean;
  /** Which of the runtime's own answers this is (undefined for an `HttpError` a handler threw with its own code). */
  kind?: RuntimeErrorKind;
}

export type RuntimeErrorKind =
  | 'validation'
  | 'auth'
  | 'forbidden'
  | 'notFound'
  | 'methodNotAllowed'
  | 'tooLarge'
  | 'unsupportedMediaType'
  | 'rateLimited'
  | 'internal'
  | 'notImplemented';

/** The codes of the runtime's own answers when the spec names none (`x-paygate-error.codes` overrides them). */
export const GENERIC_ERROR_CODES: Readonly<Record<RuntimeErrorKind, string>> = {
  validation: 'invalid_request',
  auth: 'unauthorized',
  forbidden: 'forbidden',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  tooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  rateLimited: 'rate_limited',
  internal: 'internal_error',
  notImplemented: 'not_implemented',
};

/** The status each of the runtime's own answers has, and (D217 422 or 403 when that is what the spec declares) the one it takes where only that is declared. */
const KIND_STATUS: Readonly<Record<RuntimeErrorKind, { status: number; alternative?: number }>> = {
  validation: { status: 400, alternative: 422 },
  auth: { status: 401, alternative: 403 },
  forbidden: { status: 403 },
  notFound: { status: 404 },
  methodNotAllowed: { status: 405 },
  tooLarge: { status: 413 },
  unsupportedMediaType: { status: 415 },
  rateLimited: { status: 429 },
  internal: { status: 500 },
  notImplemented: { status: 501 },
};

/** A shaped error response. */
export interface ErrorResponse {
  status: number;
  /**
   * The declared media type of the body; null when the operation declares the status with no content (D423 a status declared without content answers without a body): the
   * answer then has no body (and `body` is undefined).
   */
  contentType: string | null;
  /** JSON for a JSON media type; the text itself for a `text/*` one. */
  body: unknown;
  headers: Record<string, string>;
}

/**
 * A declared error schema whose required properties of no meaning the runtime knows it fills with neutral values,
 * for one operation and status (D466 neutral values for required error properties of unknown meaning): one start-up warning names them.
 */
export interface NeutrallyFilledErrorSchema {
  operationId: string;
  status: string;
  schema: string;
  mediaType: string;
  /** The properties given a neutral value (`error.level`, `errors[].count`, `(body)`). */
  properties: readonly string[];
}

/** A declared error schema the scaffold cannot fill, for one operation and status (reported at start-up). */
export interface UnfillableErrorSchema {
  operationId: string;
  /** The response key: `400`, `4XX`, `default`. */
  status: string;
  /** JSON pointer of the schema in the document (its `$ref`, or where it is written inline). */
  schema: string;
  mediaType: string;
  reason: string;
  /** The runtime answers this status on its own (validation, auth, 404, 405, 413, 415, 429, 500, 501, a range). */
  runtime: boolean;
  /**
   * The schema is filled, but no honest body matches exactly one alternative of its `oneOf` (D459 a oneOf error schema filled so that exactly one branch accepts it): a warning,
   * never a refusal to start (the answer is the first alternative's).
   */
  ambiguous?: true;
}

export const PROBLEM_JSON = 'application/problem+json';

/** RFC 9457 problem details, with the code and the field errors as extension members. */
export function problemDetails(error: RuntimeError): Obj {
  const body: Obj = {
    type: 'about:blank',
    title: statusTitle(error.status),
    status: error.status,
    detail: error.message,
    code: error.code,
  };
  if (error.details !== undefined) body.errors = Object.entries(error.details).map(([field, detail]) => ({ field, detail }));
  return body;
}

interface DeclaredError {
  mediaType: string;
  /**
   * How the body is written: `text`, the message itself (a `text/*` or binary media type whose schema is a string or
   * absent); `xml`, the filled schema as an XML document (D458 error answers in binary, image and XML media types); else the filled schema as JSON (JSON text under a
   * media type that is not JSON).
   */
  form?: 'text' | 'xml';
  /** The schema as written (a `$ref` or inline), the key of the document-wide choice. */
  schema: unknown;
  /** Where the schema is in the document. */
  pointer: string;
}

const JSON_MEDIA = /^application\/(.+\+)?json\b/i;
const MEDIA_RANGE = /^(\*|application)\/\*(\s*;|$)/i;
const TEXT_MEDIA = /^text\/(plain|\*)\b/i;
/** The media types whose declarations count for the document's error shape: JSON, text, XML. */
const STRUCTURED_MEDIA = /^(application\/([^;,\s]+\+)?(json|xml)\b|text\/)/i;
const XML_MEDIA = /^(application|text)\/([^;,\s]+\+)?xml\b/i;
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'readOnly', 'writeOnly', 'deprecated', '$comment', 'nullable']);
const RUNTIME_STATUSES = new Set(['400', '401', '403', '404', '405', '413', '415', '422', '429', '500', '501']);
const token = escapePointerToken;
/** The failing field of the validation answer `check` tries a schema with. */
const CHECK_PROBLEM: FieldProblem = { in: 'query', field: 'check', path: ['check'], reason: 'check' };

/** The runtime's own answers a declared status key may carry (what `check` fills to find a missing code). */
function kindsOf(statusKey: string): RuntimeErrorKind[] {
  const kinds = (Object.keys(KIND_STATUS) as RuntimeErrorKind[]).filter((kind) => {
    const { status, alternative } = KIND_STATUS[kind];
    return String(status) === statusKey || String(alternative) === statusKey;
  });
  if (kinds.length > 0) return kinds;
  if (/^4xx$/i.test(statusKey)) return ['validation'];
  if (/^5xx$/i.test(statusKey)) return ['internal'];
  if (statusKey === 'default') return ['validation', 'internal'];
  return [];
}

/** The response of a status in an operation's `responses`: exact, then its range (any case), then `default`. */
function responseFor(responses: Obj, status: number): { key: string; response: unknown } | undefined {
  const exact = String(status);
  if (responses[exact] !== undefined) return { key: exact, response: responses[exact] };
  for (const key of [`${exact[0]}XX`, `${exact[0]}xx`]) if (responses[key] !== undefined) return { key, response: responses[key] };
  return responses.default === undefined ? undefined : { key: 'default', response: responses.default };
}

/** The error mapper of one document: cached per (operation, status). */
export class SpecErrorShapes {
  private readonly reader: SchemaReader;
  private readonly fillers = new Map<string, Filler | { unfillable: string }>();
  private readonly byOperation = new Map<string, DeclaredError | null>();
  private documentWide: Map<string, DeclaredError> | undefined;

  constructor(
    private readonly document: ApiDocument,
    /** The clock of timestamps in error bodies. */
    private readonly now: () => Date = () => new Date(),
  ) {
    this.reader = new SchemaReader(document);
  }

  /**
   * The declared error response of a response object the scaffold can write (D424 error answers in the declared media type; D458 error answers in
   * binary, image and XML media types), in this order of preference: its JSON media type (a `+json` suffix is JSON,
   * problem+json too), a JSON media type without a schema (anything goes: `{code, message}`), a media range (`*\/*`,
   * `application/*`: answered as application/json); a `text/*` one whose schema is a string or absent (the message as
   * text); an XML one (`application/xml`, `text/xml`, `application/*+xml`: the schema filled, written as an XML
   * document, D458); any other `text/*` one (its schema filled, written as JSON text); any other media type whose
   * schema is a string or absent (a binary, an image: such a schema accepts any bytes, the message's UTF-8 bytes are
   * one, D458); else the first declared media type with its schema filled, written as JSON text (D458: an object
   * schema under `image/png`, `application/pdf`, `application/octet-stream` is Swagger 2's `produces` applied to
   * every response, and JSON is the only writing of an object such a schema describes). Undefined when the response
   * declares no content.
   */
  private declared(response: unknown, at: string): DeclaredError | undefined {
    const ref = isObj(response) && typeof response.$ref === 'string' ? response.$ref : undefined;
    const r = this.reader.deref(response);
    if (!isObj(r) || !isObj(r.content)) return undefined;
    const entries = Object.entries(r.content).filter((e): e is [string, Obj] => isObj(e[1]));
    const where = (mediaType: string, schema: unknown): string =>
      isObj(schema) && typeof schema.$ref === 'string'
        ? schema.$ref
        : `${ref ?? at}/content/${token(mediaType)}${schema === undefined ? '' : '/schema'}`;
    const of = ([mediaType, media]: [string, Obj], form: DeclaredError['form']): DeclaredError => ({
      mediaType,
      schema: media.schema ?? {},
      pointer: where(mediaType, media.schema),
      ...(form === undefined ? {} : { form }),
    });
    const json = entries.find(([mediaType]) => JSON_MEDIA.test(mediaType)) ?? entries.find(([mediaType]) => MEDIA_RANGE.test(mediaType));
    if (json !== undefined) {
      const [mediaType, media] = json;
      return { ...of(json, undefined), mediaType: JSON_MEDIA.test(mediaType) ? mediaType : 'application/json', schema: media.schema ?? {} };
    }
    const text = entries.find(([mediaType, media]) => TEXT_MEDIA.test(mediaType) && this.textSchema(media.schema));
    if (text !== undefined) return of(text, 'text');
    const xml = entries.find(([mediaType]) => XML_MEDIA.test(mediaType));
    if (xml !== undefined) return of(xml, 'xml');
    // any other text type (`text/plain` with an object schema, `text/csv`: a Swagger 2 `produces` applied to every
    // response) is answered in it, its schema filled as for JSON and written as JSON text: the body is the declared
    // structure, in the declared content type
    const textual = entries.find(([mediaType]) => /^text\//i.test(mediaType));
    if (textual !== undefined) return of(textual, undefined);
    const bytes = entries.find(([, media]) => this.bytesSchema(media.schema));
    if (bytes !== undefined) return of(bytes, 'text');
    return entries[0] === undefined ? undefined : of(entries[0], undefined);
  }

  /** `{}` or an open object without properties: a schema that says nothing of the body (problem+json's own then). */
  private saysNothing(schema: unknown): boolean {
    const shape = this.reader.shape(schema);
    return (
      Object.keys(shape.properties).length === 0 &&
      shape.required.size === 0 &&
      !shape.closed &&
      shape.types.every((t) => t === 'object') &&
      !(isObj(this.reader.deref(schema)) && ['oneOf', 'anyOf'].some((k) => k in (this.reader.deref(schema) as Obj)))
    );
  }

  /** A `text/*` body the message can be: no schema, or a string one. */
  private textSchema(schema: unknown): boolean {
    if (schema === undefined) return true;
    const shape = this.reader.shape(schema);
    return shape.types.includes('string') || (shape.types.length === 0 && Object.keys(shape.properties).length === 0);
  }

  /** A schema any bytes fit (D458 error answers in binary, image and XML media types): none, `{}`, or a string with no constraint but `format: binary`. */
  private bytesSchema(schema: unknown): boolean {
    if (schema === undefined) return true;
    const s = this.reader.deref(schema);
    if (!isObj(s)) return s === true;
    const constraints = Object.keys(s).filter((k) => !ANNOTATIONS.has(k) && !k.startsWith('x-'));
    if (constraints.length === 0) return true;
    return s.type === 'string' && constraints.every((k) => k === 'type' || (k === 'format' && s.format === 'binary'));
  }

  /**
   * Whether the operation declares this status (exactly, by its range or by `default`) with no content at all
   * (D423 a status declared without content answers without a body): the answer then has no body, as declared.
   */
  private declaredWithoutContent(operation: Pick<OperationRoute, 'path' | 'method'>, status: number): boolean {
    const declared = responseFor(this.responsesOf(operation), status);
    if (declared === undefined) return false;
    const r = this.reader.deref(declared.response);
    return isObj(r) && (r.content === undefined || (isObj(r.content) && Object.keys(r.content).length === 0));
  }

  private responsesOf(operation: Pick<OperationRoute, 'path' | 'method'>): Obj {
    const item = this.reader.deref(this.document.paths?.[operation.path]);
    const op = isObj(item) ? item[operation.method] : undefined;
    return isObj(op) && isObj(op.responses) ? op.responses : {};
  }

  private forOperation(operation: Pick<OperationRoute, 'path' | 'method' | 'operationId'>, status: number): DeclaredError | undefined {
    const key = `${operation.operationId} ${status}`;
    let found = this.byOperation.get(key);
    if (found === undefined) {
      const declared = responseFor(this.responsesOf(operation), status);
      found =
        declared === undefined
          ? null
          : (this.declared(declared.response, `#/paths/${token(operation.path)}/${operation.method}/responses/${declared.key}`) ?? null);
      this.byOperation.set(key, found);
    }
    return found ?? undefined;
  }

  /** Every operation of the document with its responses and pointer. */
  private *operationsOfDocument(): Generator<{ operationId: string; responses: Obj; at: string }> {
    for (const [path, item] of Object.entries(this.document.paths ?? {})) {
      const pathItem = this.reader.deref(item);
      if (!isObj(pathItem)) continue;
      for (const [method, op] of Object.entries(pathItem)) {
        if (!isObj(op) || !isObj(op.responses)) continue;
        const at = `#/paths/${token(path)}/${method}`;
        yield {
          operationId: typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${path}`,
          responses: op.responses,
          at,
        };
      }
    }
  }

  /** Per status key (`404`, `4XX`, `default`): the schema most operations declare for it (first seen wins a tie). */
  private documentChoice(status: number): DeclaredError | undefined {
    if (this.documentWide === undefined) {
      const counts = new Map<string, Map<string, { count: number; declared: DeclaredError }>>();
      for (const op of this.operationsOfDocument()) {
        for (const [rawKey, response] of Object.entries(op.responses)) {
          if (!/^[45]/.test(rawKey) && rawKey !== 'default') continue;
          const statusKey = rawKey.toUpperCase() === 'DEFAULT' ? 'default' : rawKey.toUpperCase();
          const declared = this.declared(response, `${op.at}/responses/${token(rawKey)}`);
          // the API's error shape is a structured one: a binary or image declaration of one operation (D458 error answers in binary, image and XML media types) is
          // not the answer of a status another operation leaves undeclared
          if (declared === undefined || !STRUCTURED_MEDIA.test(declared.mediaType)) continue;
          const bySchema = counts.get(statusKey) ?? new Map<string, { count: number; declared: DeclaredError }>();
          counts.set(statusKey, bySchema);
          const schemaKey = `${declared.mediaType} ${JSON.stringify(declared.schema)}`;
          const entry = bySchema.get(schemaKey) ?? { count: 0, declared };
          entry.count++;
          bySchema.set(schemaKey, entry);
        }
      }
      this.documentWide = new Map();
      const overall = new Map<string, { count: number; declared: DeclaredError }>();
      for (const [statusKey, bySchema] of counts) {
        let best: { count: number; declared: DeclaredError } | undefined;
        for (const [schemaKey, entry] of bySchema) {
          if (best === undefined || entry.count > best.count) best = entry;
          const total = overall.get(schemaKey) ?? { count: 0, declared: entry.declared };
          total.count += entry.count;
          overall.set(schemaKey, total);
        }
        this.documentWide.set(statusKey, best!.declared);
      }
      // The API's error shape for a status nobody declares: the one declared most often for any error status.
      let best: { count: number; declared: DeclaredError } | undefined;
      for (const entry of overall.values()) if (best === undefined || entry.count > best.count) best = entry;
      if (best !== undefined) this.documentWide.set('*', best.declared);
    }
    const statusKey = String(status);
    return (
      this.documentWide.get(statusKey) ??
      this.documentWide.get(`${statusKey[0]}XX`) ??
      this.documentWide.get('default') ??
      this.documentWide.get('*')
    );
  }

  private filler(declared: DeclaredError): Filler | { unfillable: string } {
    const key = `${declared.mediaType} ${JSON.stringify(declared.schema)}`;
    let filler = this.fillers.get(key);
    if (filler === undefined) {
      // problem+json without a schema of its own is RFC 9457's; one with its own schema (Xero's `type` enum) is filled
      // like any other (D420 enum properties of error schemas filled from their values)
      filler =
        declared.form === 'text'
          ? { fill: (input) => messageWithField(input), codes: {}, carriesDetails: false, neutral: [], says: true }
          : declared.mediaType.toLowerCase().startsWith(PROBLEM_JSON) && this.saysNothing(declared.schema)
            ? {
                fill: (input) => problemDetails({ ...input, kind: undefined, headers: {}, internal: false }),
                codes: {},
                carriesDetails: true,
                neutral: [],
                says: true,
              }
            : fillerFor(this.reader, declared.schema);
      if (declared.form === 'xml' && !('unfillable' in filler)) filler = asXml(this.reader, declared.schema, filler);
      this.fillers.set(key, filler);
    }
    return filler;
  }

  /**
   * The status of an answer: the runtime's own validation failure or credential refusal takes the status the
   * operation declares for it when it does not declare the usual one (D217 422 or 403 when that is what the spec declares); everything else keeps its status.
   */
  statusFor(error: Pick<RuntimeError, 'status' | 'kind'>, operation?: Pick<OperationRoute, 'path' | 'method'>): number {
    if (error.kind === undefined || operation === undefined) return error.status;
    const { status, alternative } = KIND_STATUS[error.kind];
    if (alternative === undefined || error.status !== status) return error.status;
    const responses = this.responsesOf(operation);
    if (responseFor(responses, status) !== undefined || responses[String(alternative)] === undefined) return error.status;
    return alternative;
  }

  /** The JSON media type declared for an error status (the operation's, else the document's), if any. */
  declaredMediaType(status: number, operation?: Pick<OperationRoute, 'path' | 'method' | 'operationId'>): string | undefined {
    return ((operation === undefined ? undefined : this.forOperation(operation, status)) ?? this.documentChoice(status))?.mediaType;
  }

  /** The response for an error, in the operation's declared shape (see the module comment). */
  respond(
    error: RuntimeError,
    operation?: Pick<OperationRoute, 'path' | 'method' | 'operationId'>,
    request?: { path?: string },
  ): ErrorResponse {
    const status = this.statusFor(error, operation);
    const answer = status === error.status ? error : { ...error, status };
    if (operation !== undefined && this.declaredWithoutContent(operation, status))
      return { status, contentType: null, body: undefined, headers: error.headers };
    const own = operation === undefined ? undefined : this.forOperation(operation, status);
    const declared = own ?? this.documentChoice(status);
    const filler = declared === undefined ? undefined : this.filler(declared);
    // a schema borrowed from other operations (this one declares none for the status) is used only when it can say
    // what went wrong: one of fixed values (a 409's `enum: [EMAIL, USERNAME]`) would tell the client nothing (D467
    // validation answers name the field in the best string the schema offers)
    const borrowedSilent = own === undefined && filler !== undefined && !('unfillable' in filler) && !filler.says;
    if (declared !== undefined && filler !== undefined && !('unfillable' in filler) && !borrowedSilent) {
      const named = this.withCode(answer, filler.codes);
      const body = filler.fill({
        status,
        code: named.code,
        message: named.message,
        ...(named.details === undefined ? {} : { details: named.details }),
        problems: named.problems ?? problemsOf(named.details),
        ...(named.kind === undefined ? {} : { kind: named.kind }),
        ...(request?.path === undefined ? {} : { requestPath: request.path }),
        ...retryAfterOf(error.headers),
        now: this.now(),
      });
      if (body !== CANNOT) return { status, contentType: declared.mediaType, body, headers: error.headers };
    }
    return { status, contentType: PROBLEM_JSON, body: problemDetails(this.withCode(answer, {})), headers: error.headers };
  }

  /** The runtime's own answers use the spec's code for their kind (`x-paygate-error.codes`), else the generic one. */
  private withCode(error: RuntimeError, codes: Partial<Record<string, string>>): RuntimeError {
    if (error.kind === undefined) return error;
    return { ...error, code: codes[error.kind] ?? GENERIC_ERROR_CODES[error.kind] };
  }

  /** Every declared error schema, per operation and status, that the scaffold fills with neutral values (start-up). */
  neutrallyFilled(): NeutrallyFilledErrorSchema[] {
    const out: NeutrallyFilledErrorSchema[] = [];
    for (const op of this.operationsOfDocument()) {
      for (const [rawKey, response] of Object.entries(op.responses)) {
        if (!/^[45]/.test(rawKey) && rawKey !== 'default') continue;
        const declared = this.declared(response, `${op.at}/responses/${token(rawKey)}`);
        if (declared === undefined) continue;
        const filler = this.filler(declared);
        if ('unfillable' in filler || filler.neutral.length === 0) continue;
        out.push({
          operationId: op.operationId,
          status: rawKey,
          schema: declared.pointer,
          mediaType: declared.mediaType,
          properties: filler.neutral,
        });
      }
    }
    return out;
  }

  /**
   * Fills every declared error schema of every operation once (start-up), so that one the scaffold cannot fill is
   * named with its operation and status before the first request: a schema it cannot fill at all, or a code enum
   * with no value for an answer the runtime gives at that status.
   */
  check(): UnfillableErrorSchema[] {
    const out: UnfillableErrorSchema[] = [];
    // what a schema says for a kind at a status is the same on every operation that declares it: filled once
    const tried = new Map<Filler, Map<string, { fills: boolean; clash?: string }>>();
    for (const op of this.operationsOfDocument()) {
      for (const [rawKey, response] of Object.entries(op.responses)) {
        if (!/^[45]/.test(rawKey) && rawKey !== 'default') continue;
        const declared = this.declared(response, `${op.at}/responses/${token(rawKey)}`);
        if (declared === undefined) continue;
        // a declaration in a binary, image or XML media type the scaffold cannot fill is named, never a refusal to start:
        // before D458 (error answers in binary, image and XML media types) such answers were problem+json without a word, and still are
        const runtime =
          (RUNTIME_STATUSES.has(rawKey) || !/^\d{3}$/.test(rawKey)) &&
          (JSON_MEDIA.test(declared.mediaType) || /^text\//i.test(declared.mediaType));
        const entry = { operationId: op.operationId, status: rawKey, schema: declared.pointer, mediaType: declared.mediaType, runtime };
        const filler = this.filler(declared);
        if ('unfillable' in filler) {
          out.push({ ...entry, reason: filler.unfillable });
          continue;
        }
        let seen = tried.get(filler);
        if (seen === undefined) tried.set(filler, (seen = new Map()));
        for (const kind of kindsOf(rawKey)) {
          const status = /^\d{3}$/.test(rawKey) ? Number(rawKey) : KIND_STATUS[kind].status;
          const code = filler.codes[kind] ?? GENERIC_ERROR_CODES[kind];
          let tryout = seen.get(`${kind} ${status}`);
          if (tryout === undefined) {
            const body = filler.fill({ status, code, message: 'check', problems: [], kind, now: this.now() });
            // D459 a oneOf error schema filled so that exactly one branch accepts it: named when no honest body can; a
            // validation answer is tried as the runtime gives it, with a failing field (GitHub's alternatives differ
            // by the items of their `errors` list only)
            const answer =
              kind === 'validation' && body !== CANNOT
                ? filler.fill({
                    status,
                    code,
                    message: 'check',
                    details: { check: 'check' },
                    problems: [CHECK_PROBLEM],
                    kind,
                    now: this.now(),
                  })
                : body;
            const matches =
              answer === CANNOT || declared.form !== undefined ? undefined : oneOfMatches(this.reader, declared.schema, answer);
            tryout = {
              fills: body !== CANNOT,
              // several: certain; none could be the runtime's own small check refusing what it cannot judge
              ...(matches === undefined || matches.length < 2
                ? {}
                : {
                    clash: `no answer matches exactly one alternative of its oneOf (alternatives ${matches.join(', ')} accept the same bodies)`,
                  }),
            };
            seen.set(`${kind} ${status}`, tryout);
          }
          if (!tryout.fills) {
            out.push({
              ...entry,
              reason: `no value of its code enum (or string status enum) says '${code}' (the runtime's ${kind} answer)`,
            });
            break;
          }
          if (tryout.clash !== undefined) {
            out.push({ ...entry, reason: tryout.clash, runtime: false, ambiguous: true });
            break;
          }
        }
      }
    }
    return out;
  }
}

/**
 * Start-up (D215 error schema filled by role): the declared error schemas the scaffold cannot fill, in ONE block grouped by schema, naming every
 * operation and status that declares each. For a status the runtime answers on its own the app refuses to start,
 * unless an `errorMapper` is given (then, and for the other statuses, one warning: what the mapper leaves undefined
 * is answered with problem+json).
 */
export function reportUnfillable(all: readonly UnfillableErrorSchema[], mapped: boolean, logger: Logger): void {
  const ambiguous = groupsOf(all.filter((p) => p.ambiguous === true));
  if (ambiguous.size > 0)
    logger.warn(
      { schemas: [...ambiguous.values()].map((g) => ({ schema: g.schema, reason: g.reason, declaredBy: g.uses })) },
      `${ambiguous.size} declared error schema(s) whose oneOf no honest answer matches exactly once (the scaffold answers in its first alternative's shape; a strict reader refuses it):\n${blockOf(ambiguous)}`,
    );
  const problems = all.filter((p) => p.ambiguous !== true);
  if (problems.length === 0) return;
  const groups = groupsOf(problems);
  const block = blockOf(groups);
  const fix =
    'Pass `errorMapper` to createApiApp to shape these answers yourself, or describe the schema with `x-paygate-error` (JSON pointers of code, message, details and status).';
  const runtime = problems.filter((p) => p.runtime);
  if (runtime.length > 0 && !mapped)
    throw new Error(
      `createApp: the scaffold cannot fill ${groups.size} declared error schema(s), ${runtime.length} of them for answers it gives on its own (operation and status after each):\n${block}\n${fix}`,
    );
  logger.warn(
    { schemas: [...groups.values()].map((g) => ({ schema: g.schema, reason: g.reason, declaredBy: g.uses })) },
    `${groups.size} declared error schema(s) cannot be filled by the scaffold (${mapped ? 'your errorMapper answers them; undefined sends' : 'a handler error there is answered with'} application/problem+json):\n${block}`,
  );
}

/**
 * Start-up (D466 neutral values for required error properties of unknown meaning): ONE warning naming, per schema, the required properties given a neutral value and the
 * operations and statuses that declare it, and that an `errorMapper` is how to give them their meaning.
 */
export function reportNeutrallyFilled(filled: readonly NeutrallyFilledErrorSchema[], logger: Logger): void {
  if (filled.length === 0) return;
  const groups = new Map<string, { schema: string; mediaType: string; properties: readonly string[]; uses: string[] }>();
  for (const f of filled) {
    const key = `${f.schema}\n${f.mediaType}`;
    const group = groups.get(key) ?? { schema: f.schema, mediaType: f.mediaType, properties: f.properties, uses: [] };
    group.uses.push(`${f.operationId} ${f.status}`);
    groups.set(key, group);
  }
  const block = [...groups.values()]
    .map((g) => `  ${g.schema} (${g.mediaType}): ${g.properties.map((p) => `'${p}'`).join(', ')}; declared by ${g.uses.join(', ')}`)
    .join('\n');
  logger.warn(
    { schemas: [...groups.values()].map((g) => ({ schema: g.schema, properties: g.properties, declaredBy: g.uses })) },
    `${groups.size} declared error schema(s) have required properties of no meaning the scaffold knows; it answers them with neutral values that validate (the schema's default, const, first enum value or example, else 0, false, '', [] or a fresh id):\n${block}\nPass \`errorMapper\` to createApiApp to give them their meaning.`,
  );
}

/** A filler whose body is the XML document of what the schema's own filler writes (D458 error answers in binary, image and XML media types). */
function asXml(reader: SchemaReader, schema: unknown, filler: Filler): Filler {
  return {
    ...filler,
    fill: (input) => {
      const value = filler.fill(input);
      return value === CANNOT ? CANNOT : xmlDocument(reader, schema, value);
    },
  };
}

/** Problems grouped by schema, media type and reason, with every operation and status that declares each. */
function groupsOf(
  problems: readonly UnfillableErrorSchema[],
): Map<string, { schema: string; mediaType: string; reason: string; uses: string[] }> {
  const groups = new Map<string, { schema: string; mediaType: string; reason: string; uses: string[] }>();
  for (const p of problems) {
    const key = `${p.schema}\n${p.mediaType}\n${p.reason}`;
    const group = groups.get(key) ?? { schema: p.schema, mediaType: p.mediaType, reason: p.reason, uses: [] };
    group.uses.push(`${p.operationId} ${p.status}`);
    groups.set(key, group);
  }
  return groups;
}

function blockOf(groups: ReturnType<typeof groupsOf>): string {
  return [...groups.values()].map((g) => `  ${g.schema} (${g.mediaType}): ${g.reason}; declared by ${g.uses.join(', ')}`).join('\n');
}

function retryAfterOf(headers: Record<string, string>): { retryAfter?: string } {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === 'retry-after') return { retryAfter: value };
  return {};
}

/** A handler's `details` as field problems (no location: the handler names the field as it wants). */
function problemsOf(details: Record<string, string> | undefined): FieldProblem[] {
  if (details === undefined) return [];
  return Object.entries(details).map(([field, reason]) => ({ field, path: [field], reason }));
}

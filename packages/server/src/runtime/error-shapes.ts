/**
 * The scaffold's own answers (request validation 400, 401 from authentication, unknown route 404, 405, 413, 415,
 * 429, 500) in the error shape the spec declares (D119): the schema of the operation's response for that status,
 * else its `NXX` range, else its `default`; for an answer outside any operation (unknown route) or a status the
 * operation does not declare, the schema most operations of the document declare for that status (else for
 * `default`, else the error schema it declares most often); for a spec that declares none, RFC 9457
 * `application/problem+json`.
 *
 * How a declared schema is filled: an `x-paygate-error` extension on the schema says where the code, message and
 * details go (JSON pointers) and which codes the runtime's own answers use; without it the common names are
 * recognised (`code`, `message`/`detail`/`title`, `status`, `details`/`errors`, a nested `error` object), and a
 * required property with a `const` (or a one-value `enum`) gets that value. A schema that cannot be filled that way
 * (a required property of unknown meaning) is reported once at start-up and answered with problem+json: pass
 * `errorMapper` to `createApiApp` for it.
 */
import type { ApiDocument, OperationRoute } from './types.js';

/** What the runtime is answering, before it has a shape. */
export interface RuntimeError {
  status: number;
  /** The error code: the handler's `HttpError` code, or the spec's code for the runtime's own answers. */
  code: string;
  message: string;
  /** Field (`items[0].name`, a parameter name) -> what is wrong. */
  details?: Record<string, string>;
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

/** A shaped error response. */
export interface ErrorResponse {
  status: number;
  contentType: string;
  body: unknown;
  headers: Record<string, string>;
}

/** `x-paygate-error` on an error schema: where the fields go (JSON pointers into the body) and the runtime's codes. */
export interface ErrorSchemaExtension {
  code?: string;
  message?: string;
  details?: string;
  status?: string;
  codes?: Partial<Record<RuntimeErrorKind, string>>;
}

export const PROBLEM_JSON = 'application/problem+json';

const STATUS_TITLES: Record<number, string> = {
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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 9457 problem details, with the code and the field errors as extension members. */
export function problemDetails(error: RuntimeError): Obj {
  const body: Obj = {
    type: 'about:blank',
    title: STATUS_TITLES[error.status] ?? (error.status >= 500 ? 'Server Error' : 'Client Error'),
    status: error.status,
    detail: error.message,
    code: error.code,
  };
  if (error.details !== undefined) body.errors = Object.entries(error.details).map(([field, detail]) => ({ field, detail }));
  return body;
}

/** A builder for one declared schema, or the reason it cannot be filled. */
type Filler = { fill: (error: RuntimeError) => unknown; codes: Partial<Record<RuntimeErrorKind, string>> } | { unfillable: string };

class SchemaReader {
  constructor(private readonly document: ApiDocument) {}

  /** Follows local `$ref`s (`#/components/...`), at most 16 hops. */
  deref(node: unknown): unknown {
    let current = node;
    for (let i = 0; i < 16 && isObj(current) && typeof current.$ref === 'string'; i++) {
      const ref = current.$ref;
      if (!ref.startsWith('#/')) return undefined;
      let target: unknown = this.document;
      for (const token of ref.slice(2).split('/')) {
        const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
        target = isObj(target) ? target[key] : undefined;
      }
      current = target;
    }
    return current;
  }

  /** An object schema's properties and required names, allOf members merged. */
  shape(schema: unknown, depth = 0): { properties: Obj; required: Set<string>; extension?: ErrorSchemaExtension; types: string[] } {
    const s = this.deref(schema);
    const out = {
      properties: {} as Obj,
      required: new Set<string>(),
      extension: undefined as ErrorSchemaExtension | undefined,
      types: [] as string[],
    };
    if (!isObj(s) || depth > 8) return out;
    if (typeof s.type === 'string') out.types.push(s.type);
    if (Array.isArray(s.type)) out.types.push(...s.type.filter((t): t is string => typeof t === 'string'));
    if (isObj(s['x-paygate-error'])) out.extension = s['x-paygate-error'] as ErrorSchemaExtension;
    if (isObj(s.properties)) Object.assign(out.properties, s.properties);
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') out.required.add(r);
    if (Array.isArray(s.allOf)) {
      for (const member of s.allOf) {
        const m = this.shape(member, depth + 1);
        Object.assign(out.properties, m.properties);
        for (const r of m.required) out.required.add(r);
        out.extension ??= m.extension;
        out.types.push(...m.types);
      }
    }
    if (out.types.length === 0 && Object.keys(out.properties).length > 0) out.types.push('object');
    return out;
  }

  constant(schema: unknown): { value: unknown } | undefined {
    const s = this.deref(schema);
    if (!isObj(s)) return undefined;
    if (s.const !== undefined) return { value: s.const };
    if (Array.isArray(s.enum) && s.enum.length === 1) return { value: s.enum[0] };
    return undefined;
  }

  types(schema: unknown): string[] {
    return this.shape(schema).types;
  }
}

const CODE_NAMES = new Set(['code', 'error_code', 'errorcode', 'error_type']);
const MESSAGE_NAMES = new Set(['message', 'detail', 'error_description', 'description', 'msg', 'reason', 'error_message', 'title']);
const STATUS_NAMES = new Set(['status', 'status_code', 'statuscode', 'http_status', 'httpstatus']);
const DETAILS_NAMES = new Set(['details', 'errors', 'fields', 'field_errors', 'invalid_params', 'violations']);

function setPointer(target: Obj, pointer: string, value: unknown): void {
  const tokens = pointer
    .replace(/^\//, '')
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = target;
  for (const token of tokens.slice(0, -1)) {
    if (!isObj(node[token])) node[token] = {};
    node = node[token] as Obj;
  }
  node[tokens[tokens.length - 1]!] = value;
}

/** Builds the filler of one schema (see the module comment), or says why it cannot. */
function fillerFor(reader: SchemaReader, schema: unknown, depth = 0): Filler {
  const shape = reader.shape(schema);
  const constant = reader.constant(schema);
  if (constant !== undefined) return { fill: () => constant.value, codes: {} };
  if (shape.types.includes('string') && !shape.types.includes('object')) return { fill: (e) => e.message, codes: {} };
  if ((shape.types.includes('integer') || shape.types.includes('number')) && !shape.types.includes('object'))
    return { fill: (e) => e.status, codes: {} };
  if (!shape.types.includes('object') || depth > 4) return { unfillable: 'not an object, string or number schema' };

  const ext = shape.extension;
  const steps: ((e: RuntimeError, out: Obj) => void)[] = [];
  const placed = new Set<string>();
  // constants first (`success: false`), so the extension's pointers may write below them
  for (const [name, property] of Object.entries(shape.properties)) {
    const c = reader.constant(property);
    if (c !== undefined && shape.required.has(name)) {
      steps.push((_e, out) => void (out[name] = structuredClone(c.value)));
      placed.add(name);
    }
  }
  if (ext !== undefined) {
    for (const [field, pointer] of [
      ['code', ext.code],
      ['message', ext.message],
      ['details', ext.details],
      ['status', ext.status],
    ] as const) {
      if (typeof pointer !== 'string') continue;
      placed.add(pointer.replace(/^\//, '').split('/')[0]!);
      steps.push((e, out) => {
        const value = field === 'code' ? e.code : field === 'message' ? e.message : field === 'status' ? e.status : e.details;
        if (value !== undefined) setPointer(out, pointer, value);
      });
    }
    return { fill: (e) => steps.reduce((out, step) => (step(e, out), out), {} as Obj), codes: ext.codes ?? {} };
  }

  let codes: Partial<Record<RuntimeErrorKind, string>> = {};
  const hasMessage = Object.keys(shape.properties).some((n) => MESSAGE_NAMES.has(n.toLowerCase()));
  for (const [name, property] of Object.entries(shape.properties)) {
    if (placed.has(name)) continue;
    const lower = name.toLowerCase();
    const types = reader.types(property);
    const numeric = types.includes('integer') || types.includes('number');
    if (CODE_NAMES.has(lower)) {
      steps.push((e, out) => void (out[name] = numeric ? e.status : e.code));
    } else if (STATUS_NAMES.has(lower)) {
      steps.push((e, out) => void (out[name] = numeric ? e.status : String(e.status)));
    } else if (MESSAGE_NAMES.has(lower) && types.every((t) => t === 'string')) {
      steps.push((e, out) => void (out[name] = e.message));
    } else if (DETAILS_NAMES.has(lower)) {
      const detailsSchema = reader.deref(property);
      const isArray = types.includes('array');
      const itemShape = isArray && isObj(detailsSchema) ? reader.shape(detailsSchema.items) : undefined;
      steps.push((e, out) => {
        if (e.details === undefined) return;
        if (!isArray) {
          out[name] = e.details;
          return;
        }
        const entries = Object.entries(e.details);
        if (itemShape === undefined || !itemShape.types.includes('object')) {
          out[name] = entries.map(([field, message]) => `${field}: ${message}`);
          return;
        }
        const names = Object.keys(itemShape.properties);
        const fieldKey = names.find((n) =>
          ['field', 'name', 'path', 'pointer', 'parameter', 'param', 'location'].includes(n.toLowerCase()),
        );
        const messageKey = names.find((n) => MESSAGE_NAMES.has(n.toLowerCase()));
        out[name] = entries.map(([field, message]) => ({
          ...(fieldKey === undefined ? {} : { [fieldKey]: field }),
          ...(messageKey === undefined ? {} : { [messageKey]: message }),
        }));
      });
    } else if (lower === 'error') {
      if (types.includes('object')) {
        const nested = fillerFor(reader, property, depth + 1);
        if ('unfillable' in nested) return { unfillable: `property 'error': ${nested.unfillable}` };
        codes = nested.codes;
        steps.push((e, out) => void (out[name] = nested.fill(e)));
      } else if (types.includes('string')) {
        // OAuth style `{ error, error_description }`: the code; a lone `error` string is the message
        steps.push((e, out) => void (out[name] = hasMessage ? e.code : e.message));
      } else {
        continue;
      }
    } else if (lower === 'success' || lower === 'ok') {
      steps.push((_e, out) => void (out[name] = false));
    } else if (lower === 'type' && types.includes('string') && shape.required.has(name)) {
      steps.push((_e, out) => void (out[name] = 'about:blank'));
    } else {
      if (shape.required.has(name)) return { unfillable: `required property '${name}' has no meaning the runtime knows` };
      continue;
    }
    placed.add(name);
  }
  for (const name of shape.required) if (!placed.has(name)) return { unfillable: `required property '${name}' is not declared` };
  if (placed.size === 0) return { unfillable: 'no property to carry the code or the message' };
  return { fill: (e) => steps.reduce((out, step) => (step(e, out), out), {} as Obj), codes };
}

interface DeclaredError {
  mediaType: string;
  /** The schema as written (a `$ref` or inline), the key of the document-wide choice. */
  schema: unknown;
}

const JSON_MEDIA = /^application\/(.+\+)?json\b/i;

/** The error mapper of one document: cached per (operation, status). */
export class SpecErrorShapes {
  private readonly reader: SchemaReader;
  private readonly fillers = new Map<string, Filler>();
  private readonly byOperation = new Map<string, DeclaredError | null>();
  private documentWide: Map<string, DeclaredError> | undefined;
  /** Schemas that could not be filled: `pointer: reason` (reported once at start-up). */
  readonly unfillable: string[] = [];

  constructor(private readonly document: ApiDocument) {
    this.reader = new SchemaReader(document);
  }

  /** The declared JSON (or problem+json) error response of a response object, if any. */
  private declared(response: unknown): DeclaredError | undefined {
    const r = this.reader.deref(response);
    if (!isObj(r) || !isObj(r.content)) return undefined;
    const entries = Object.entries(r.content);
    const found = entries.find(([mediaType]) => JSON_MEDIA.test(mediaType));
    if (found === undefined || !isObj(found[1]) || found[1].schema === undefined) return undefined;
    return { mediaType: found[0], schema: found[1].schema };
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
      const responses = this.responsesOf(operation);
      const statusKey = String(status);
      const response = responses[statusKey] ?? responses[`${statusKey[0]}XX`] ?? responses.default;
      found = this.declared(response) ?? null;
      this.byOperation.set(key, found);
    }
    return found ?? undefined;
  }

  /** Per status key (`404`, `4XX`, `default`): the schema most operations declare for it (first seen wins a tie). */
  private documentChoice(status: number): DeclaredError | undefined {
    if (this.documentWide === undefined) {
      const counts = new Map<string, Map<string, { count: number; declared: DeclaredError }>>();
      for (const item of Object.values(this.document.paths ?? {})) {
        const pathItem = this.reader.deref(item);
        if (!isObj(pathItem)) continue;
        for (const op of Object.values(pathItem)) {
          if (!isObj(op) || !isObj(op.responses)) continue;
          for (const [statusKey, response] of Object.entries(op.responses)) {
            if (!/^[45]/.test(statusKey) && statusKey !== 'default') continue;
            const declared = this.declared(response);
            if (declared === undefined) continue;
            const bySchema = counts.get(statusKey) ?? new Map<string, { count: number; declared: DeclaredError }>();
            counts.set(statusKey, bySchema);
            const schemaKey = `${declared.mediaType} ${JSON.stringify(declared.schema)}`;
            const entry = bySchema.get(schemaKey) ?? { count: 0, declared };
            entry.count++;
            bySchema.set(schemaKey, entry);
          }
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

  private filler(declared: DeclaredError): Filler {
    const key = `${declared.mediaType} ${JSON.stringify(declared.schema)}`;
    let filler = this.fillers.get(key);
    if (filler === undefined) {
      filler = declared.mediaType.toLowerCase().startsWith(PROBLEM_JSON)
        ? { fill: problemDetails, codes: {} }
        : fillerFor(this.reader, declared.schema);
      if ('unfillable' in filler)
        this.unfillable.push(
          `${typeof (declared.schema as Obj)?.$ref === 'string' ? String((declared.schema as Obj).$ref) : 'inline schema'} (${declared.mediaType}): ${filler.unfillable}`,
        );
      this.fillers.set(key, filler);
    }
    return filler;
  }

  /** The response for an error, in the operation's declared shape (see the module comment). */
  respond(error: RuntimeError, operation?: Pick<OperationRoute, 'path' | 'method' | 'operationId'>): ErrorResponse {
    const declared =
      (operation === undefined ? undefined : this.forOperation(operation, error.status)) ?? this.documentChoice(error.status);
    const filler = declared === undefined ? undefined : this.filler(declared);
    if (declared === undefined || filler === undefined || 'unfillable' in filler) {
      return { status: error.status, contentType: PROBLEM_JSON, body: problemDetails(this.withCode(error, {})), headers: error.headers };
    }
    return {
      status: error.status,
      contentType: declared.mediaType,
      body: filler.fill(this.withCode(error, filler.codes)),
      headers: error.headers,
    };
  }

  /** The runtime's own answers use the spec's code for their kind (`x-paygate-error.codes`), else the generic one. */
  private withCode(error: RuntimeError, codes: Partial<Record<RuntimeErrorKind, string>>): RuntimeError {
    if (error.kind === undefined) return error;
    return { ...error, code: codes[error.kind] ?? GENERIC_ERROR_CODES[error.kind] };
  }

  /** Fills every declared error schema once (start-up), so an unfillable one is reported before the first request. */
  check(): string[] {
    for (const item of Object.values(this.document.paths ?? {})) {
      const pathItem = this.reader.deref(item);
      if (!isObj(pathItem)) continue;
      for (const op of Object.values(pathItem)) {
        if (!isObj(op) || !isObj(op.responses)) continue;
        for (const [statusKey, response] of Object.entries(op.responses)) {
          if (!/^[45]/.test(statusKey) && statusKey !== 'default') continue;
          const declared = this.declared(response);
          if (declared !== undefined) this.filler(declared);
        }
      }
    }
    return [...this.unfillable];
  }
}

/**
 * Response conformance (Schemathesis' status_code_conformance, content_type_conformance,
 * response_headers_conformance, response_schema_conformance, not_a_server_error):
 * every response that goes through `checkedFetch` / `api.request` is validated against the bundled spec with Ajv 2020
 * (validators compiled once per operation + status + media type), and every (operationId, status) seen is recorded
 * for the coverage table.
 *
 * A violation throws a `ConformanceError` naming the operation, the status and the JSON pointer of the schema in the
 * document that failed (plus the instance path inside the body).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { findOperation, resolvePointer, spec, type Json, type OperationSpec, type ResponseSpec } from './spec.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module namespace in some toolchains.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const SPEC_ID = 'https://paygate.test/openapi.json';

export const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true });
addFormats(ajv);
ajv.addSchema(spec as object, SPEC_ID);

const validators = new Map<string, ValidateFunction>();

/** The compiled validator of the schema at an internal pointer of the spec (cached). */
export function validatorAt(pointer: string): ValidateFunction {
  let v = validators.get(pointer);
  if (!v) {
    resolvePointer(pointer); // fail early with a readable message when the pointer is wrong
    v = ajv.compile({ $ref: `${SPEC_ID}${pointer}` });
    validators.set(pointer, v);
  }
  return v;
}

/** `#/components/schemas/Name` validator. */
export function schemaValidator(name: string): ValidateFunction {
  return validatorAt(`#/components/schemas/${name}`);
}

function describeErrors(errors: readonly ErrorObject[] | null | undefined, at: string): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => {
      const raw = e.schemaPath.startsWith(`${SPEC_ID}#`) ? e.schemaPath.slice(SPEC_ID.length) : e.schemaPath;
      // Ajv reports paths inside a followed $ref from the document root; others are relative to the compiled pointer.
      const schemaPath = /^#\/(components|paths|webhooks)\//.test(raw) ? raw : `${at}${raw.replace(/^#/, '')}`;
      return `  - body${e.instancePath || ''} ${e.message ?? ''} (schema ${schemaPath}${e.params ? ` ${JSON.stringify(e.params)}` : ''})`;
    })
    .join('\n');
}

export class ConformanceError extends Error {
  constructor(
    readonly check: string,
    readonly operationId: string,
    readonly status: number,
    readonly pointer: string,
    detail: string,
  ) {
    super(`[${check}] ${operationId} -> ${status}: ${detail}\n  at ${pointer}`);
    this.name = 'ConformanceError';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Hit recording (per process; dumped to the coverage dir by the suite's afterAll).

const hits = new Map<string, number>();
const undeclared: { operationId: string; status: number; request: string }[] = [];
const unmatched: { method: string; path: string; status: number }[] = [];

function recordHit(operationId: string, status: number): void {
  const key = `${operationId} ${status}`;
  hits.set(key, (hits.get(key) ?? 0) + 1);
}

/** Everything this process saw. */
export function coverageSnapshot(): { hits: Record<string, number>; undeclared: typeof undeclared; unmatched: typeof unmatched } {
  return { hits: Object.fromEntries(hits), undeclared: [...undeclared], unmatched: [...unmatched] };
}

/** Write this process' hits to `<dir>/<name>.json` (merged by the contract suite's global teardown). */
export function dumpCoverage(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${process.pid}.json`), JSON.stringify(coverageSnapshot()));
}

// ---------------------------------------------------------------------------------------------------------------
// The checks.

function mediaTypeOf(contentType: string | null): string | undefined {
  if (!contentType) return undefined;
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function isJsonMedia(mt: string): boolean {
  return mt === 'application/json' || /\+json$/.test(mt);
}

/** The response object an operation declares for a status: exact, then `4XX`, then `default`. */
export function declaredResponse(op: OperationSpec, status: number): ResponseSpec | undefined {
  return op.responses.get(String(status)) ?? op.responses.get(`${String(status)[0]}XX`) ?? op.responses.get('default');
}

function coerceHeader(value: string, schema: Record<string, Json>): Json {
  if ((schema['type'] === 'integer' || schema['type'] === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  if (schema['type'] === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export interface CheckedResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when not JSON). */
  json: unknown;
  operation: OperationSpec | undefined;
  /** Shortcut for `json.error` of an error envelope. */
  error: { code: string; message: string; details?: Record<string, string> } | undefined;
}

/**
 * Validate one response against the spec. Returns the parsed body. Throws ConformanceError on any violation.
 * `method`/`pathname` identify the operation (pathname relative to the API base).
 */
export function checkResponse(method: string, pathname: string, status: number, headers: Headers, text: string): CheckedResponse {
  const op = findOperation(method, pathname);
  const mt = mediaTypeOf(headers.get('content-type'));
  let json: unknown;
  if (mt && isJsonMedia(mt) && text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      throw new ConformanceError(
        'content_type_conformance',
        op?.operationId ?? `${method.toUpperCase()} ${pathname}`,
        status,
        op?.at ?? '#/paths',
        `declared JSON but body is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }
  const errorOf = (): CheckedResponse['error'] => {
    const e = (json as { error?: CheckedResponse['error'] } | undefined)?.error;
    return e && typeof e === 'object' ? e : undefined;
  };

  if (!op) {
    // Unknown route or undeclared method: not an operation, but the answer must still be the error envelope, never a 5xx.
    unmatched.push({ method: method.toUpperCase(), path: pathname, status });
    const where = `${method.toUpperCase()} ${pathname}`;
    if (status >= 500) throw new ConformanceError('not_a_server_error', where, status, '#/paths', text.slice(0, 300));
    if (status >= 400) {
      if (mt !== 'application/json')
        throw new ConformanceError(
          'content_type_conformance',
          where,
          status,
          '#/components/schemas/ErrorEnvelope',
          `error without JSON body (content-type ${String(mt)})`,
        );
      const v = validatorAt('#/components/schemas/ErrorEnvelope');
      if (!v(json))
        throw new ConformanceError(
          'response_schema_conformance',
          where,
          status,
          '#/components/schemas/ErrorEnvelope',
          `\n${describeErrors(v.errors, '#/components/schemas/ErrorEnvelope')}`,
        );
    }
    return { status, headers, text, json, operation: undefined, error: errorOf() };
  }

  const declared = declaredResponse(op, status);
  if (!declared) {
    undeclared.push({ operationId: op.operationId, status, request: `${method.toUpperCase()} ${pathname}` });
    throw new ConformanceError(
      'status_code_conformance',
      op.operationId,
      status,
      `${op.at}/responses`,
      `status ${status} is not declared (declared: ${[...op.responses.keys()].join(', ')}); body: ${text.slice(0, 300)}`,
    );
  }
  recordHit(op.operationId, status);

  // content_type_conformance
  let schemaAt: string | null = null;
  if (declared.content.size > 0) {
    if (!mt)
      throw new ConformanceError(
        'content_type_conformance',
        op.operationId,
        status,
        `${declared.at}/content`,
        'response has no Content-Type',
      );
    const match = [...declared.content.keys()].find(
      (k) => k.toLowerCase() === mt || (k.endsWith('/*') && mt.startsWith(k.slice(0, -1))) || k === '*/*',
    );
    if (!match) {
      throw new ConformanceError(
        'content_type_conformance',
        op.operationId,
        status,
        `${declared.at}/content`,
        `Content-Type ${mt} not among ${[...declared.content.keys()].join(', ')}`,
      );
    }
    schemaAt = declared.content.get(match) ?? null;
  } else if (text.length > 0) {
    throw new ConformanceError(
      'content_type_conformance',
      op.operationId,
      status,
      `${declared.at}`,
      `response declares no content but has a body (${mt ?? 'no type'})`,
    );
  }

  // response_headers_conformance
  for (const h of declared.headers) {
    const value = headers.get(h.name);
    if (value === null) {
      if (h.required)
        throw new ConformanceError(
          'response_headers_conformance',
          op.operationId,
          status,
          `${declared.at}/headers`,
          `required header ${h.name} missing`,
        );
      continue;
    }
    const v = validatorAt(h.schemaAt);
    if (!v(coerceHeader(value, h.schema))) {
      throw new ConformanceError(
        'response_headers_conformance',
        op.operationId,
        status,
        h.schemaAt,
        `header ${h.name}: ${JSON.stringify(value)} ${v.errors?.[0]?.message ?? ''}`,
      );
    }
  }

  // response_schema_conformance
  if (schemaAt) {
    const v = validatorAt(schemaAt);
    const instance = mt && isJsonMedia(mt) ? json : text;
    if (!v(instance)) {
      throw new ConformanceError(
        'response_schema_conformance',
        op.operationId,
        status,
        schemaAt,
        `\n${describeErrors(v.errors, schemaAt)}\n  body: ${text.slice(0, 600)}`,
      );
    }
  }

  // not_a_server_error: a declared 500 is conformant, but it is reported as a server error unless the test expects it.
  return { status, headers, text, json, operation: op, error: errorOf() };
}

// ---------------------------------------------------------------------------------------------------------------
// Fetch wrappers.

export interface CheckerOptions {
  /** API base URL (its path prefix is stripped before matching operations). */
  baseUrl: string;
  /** Per-request timeout (default 15 s): a hang fails the test instead of stalling it. */
  timeoutMs?: number;
  /** Allow 5xx answers (fault-injection tests). Default false: any 5xx throws (not_a_server_error). */
  allowServerErrors?: boolean;
  /**
   * Against a deployment (D125 paygate contract checks any API against its spec): a 429 is waited out per `Retry-After` (1 s when absent) and the request sent again,
   * up to `maxWaitMs` in total per request; then the request fails with what to change instead of the suite failing
   * later with TypeErrors on a 429 body. Off in process, where the suite provokes 429s on purpose.
   */
  rateLimit?: { maxWaitMs: number; sleep?: (ms: number) => Promise<void> };
}

/** The message of a request still rate limited after the bounded wait. */
export function rateLimitedMessage(method: string, pathname: string, waitedMs: number): string {
  return `${method} ${pathname}: the deployment still answers 429 after waiting ${Math.round(waitedMs / 1000)} s (Retry-After): raise its rate limit for the contract run (a Paygate gateway: PAYGATE_RATE_LIMIT, e.g. PAYGATE_RATE_LIMIT=1000) and rerun`;
}

export interface ApiRequest {
  headers?: Record<string, string | undefined>;
  /** JSON body (serialised, content-type application/json unless given). */
  json?: unknown;
  /** Raw body (string / bytes / FormData / URLSearchParams). */
  body?: BodyInit;
  query?: Record<string, string | number | undefined>;
  /** Permit a 5xx for this one request. */
  allowServerError?: boolean;
}

export interface Checker {
  baseUrl: string;
  /** fetch-compatible: validates then returns an equivalent Response (for openapi-fetch / @paygate/client). */
  fetch: typeof fetch;
  /** Send and validate; returns the parsed response. */
  request(method: string, pathname: string, req?: ApiRequest): Promise<CheckedResponse>;
}

export function createChecker(options: CheckerOptions): Checker {
  const base = new URL(options.baseUrl.replace(/\/+$/, '') + '/');
  const prefix = base.pathname.replace(/\/$/, '');
  const timeoutMs = options.timeoutMs ?? 15_000;

  function relative(url: URL): string {
    const p = url.pathname;
    return prefix && p.startsWith(prefix) ? p.slice(prefix.length) || '/' : p;
  }

  async function exchange(request: Request, allowServerError: boolean): Promise<{ res: Response; checked: CheckedResponse }> {
    const url = new URL(request.url);
    let res: Response;
    let waited = 0;
    for (;;) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        res = await fetch(options.rateLimit === undefined ? request : request.clone(), { signal, redirect: 'manual' });
      } catch (err) {
        throw new Error(`${request.method} ${url.pathname}: no answer (${(err as Error).message}) — hang or connection failure`, {
          cause: err,
        });
      }
      if (res.status !== 429 || options.rateLimit === undefined) break;
      const retryAfter = Number(res.headers.get('retry-after'));
      const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : 1000;
      await res.body?.cancel();
      if (waited + wait > options.rateLimit.maxWaitMs) throw new Error(rateLimitedMessage(request.method, url.pathname, waited + wait));
      waited += wait;
      await (options.rateLimit.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(wait);
    }
    const text = await res.text();
    const checked = checkResponse(request.method, relative(url), res.status, res.headers, text);
    if (res.status >= 500 && !(allowServerError || options.allowServerErrors)) {
      throw new ConformanceError(
        'not_a_server_error',
        checked.operation?.operationId ?? `${request.method} ${url.pathname}`,
        res.status,
        checked.operation?.at ?? '#/paths',
        text.slice(0, 500),
      );
    }
    const nullBody = res.status === 204 || res.status === 304 || request.method === 'HEAD';
    return { res: new Response(nullBody ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers }), checked };
  }

  const checkedFetch: typeof fetch = async (input, init) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    return (await exchange(request, false)).res;
  };

  return {
    baseUrl: base.toString().replace(/\/$/, ''),
    fetch: checkedFetch,
    async request(method, pathname, req = {}) {
      const url = new URL(prefix + pathname, base);
      for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.append(k, String(v));
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers ?? {})) if (v !== undefined) headers.set(k, v);
      let body: BodyInit | undefined = req.body;
      if (req.json !== undefined) {
        body = JSON.stringify(req.json);
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
      const request = new Request(url, { method: method.toUpperCase(), headers, ...(body !== undefined ? { body } : {}) });
      return (await exchange(request, req.allowServerError ?? false)).checked;
    },
  };
}

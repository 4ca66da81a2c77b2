/**
 * `checkApi`: spec-driven contract checks of any deployment against any OpenAPI 3.0/3.1 document, in the spirit of
 * Schemathesis (D125). Per operation:
 *  - positive: a request built from the spec's examples / schemas, sent with the configured credentials; a 4xx other
 *    than 404 (for an operation on a resource that may not exist) or 409/422 (state the sample cannot know) fails;
 *  - negative: a request body / required query parameter the schema must refuse; anything but a 4xx fails;
 *  - unauthenticated: an operation that declares `security`, sent without credentials; anything but a 4xx fails;
 *  - every response conforms: status declared (exact, range, default), Content-Type declared for it, declared
 *    headers present and valid, body valid against the declared schema (Ajv, draft 2020-12);
 *  - stateful: a `Location` header of a 2xx answer that names another operation's path is followed with GET and
 *    checked too.
 * A failure names the check, the operation, the status and the JSON pointer of the schema in the document (plus the
 * instance path inside the body). 429 answers are waited out per `Retry-After` (bounded), then reported with a message
 * to raise the deployment's rate limit. Nothing here knows Paygate: its flows stay in the suite files.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import {
  applyAuth,
  chooseAlternative,
  type AuthTarget,
  type SecuritySchemeSpec,
  type SecuritySchemes,
} from '@paygate/client/runtime/security.js';
import { negativeOf, sampleOf, type Json, type JsonObject } from './samples.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SPEC_ID = 'https://contract.check/openapi.json';

export interface CheckApiOptions {
  /** The bundled OpenAPI document (internal `$ref`s only), e.g. from `paygate contract --spec FILE`. */
  document: Readonly<Record<string, unknown>>;
  /** The deployment's API root (the operation paths are appended). */
  baseUrl: string;
  /** Credentials by the spec's security scheme names (as the generated client takes them). */
  auth?: Readonly<Record<string, unknown>>;
  /** Custom fetch (tests). Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Longest total wait for 429 `Retry-After` per request. Default 30 s. */
  maxRateLimitWaitMs?: number;
  /** Delay function (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Which checks run. Default all. */
  checks?: readonly CheckName[];
  /** Per-request timeout. Default 15 s. */
  timeoutMs?: number;
}

export type CheckName = 'positive' | 'negative' | 'unauthenticated' | 'stateful';
const ALL_CHECKS: readonly CheckName[] = ['positive', 'negative', 'unauthenticated', 'stateful'];

export interface CheckFailure {
  /** Schemathesis-style check name: status_code_conformance, response_schema_conformance, positive_data_acceptance... */
  check: string;
  operationId: string;
  status: number | undefined;
  /** JSON pointer in the document of what was violated. */
  pointer: string;
  message: string;
  /** The request that produced it (`POST /books`). */
  request: string;
}

export interface CheckCase {
  operationId: string;
  check: CheckName;
  request: string;
  status: number | undefined;
  failures: CheckFailure[];
  durationMs: number;
}

export interface ApiCheckReport {
  ok: boolean;
  cases: CheckCase[];
  failures: CheckFailure[];
  /** operationId -> declared statuses -> times seen (0 = declared, never exercised). */
  coverage: { operationId: string; method: string; path: string; statuses: Record<string, number> }[];
}

interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Json | undefined;
  example: Json | undefined;
  style: string | undefined;
  explode: boolean | undefined;
}

interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  at: string;
  params: ParamSpec[];
  body: { mediaType: string; schema: Json | undefined; schemaAt: string; example: Json | undefined; required: boolean } | undefined;
  responses: Map<
    string,
    { at: string; content: Map<string, string | null>; headers: { name: string; required: boolean; schemaAt: string | null }[] }
  >;
  security: string[][];
}

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const token = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Resolves `#/...` pointers in the bundled document. */
function makeResolver(doc: JsonObject) {
  const at = (pointer: string): Json | undefined => {
    let node: Json | undefined = doc;
    for (const raw of pointer
      .replace(/^#\/?/, '')
      .split('/')
      .filter((p) => p !== '')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = isObj(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    return node;
  };
  /** Follows `$ref`s; returns the node and its pointer. */
  const follow = (node: Json | undefined, where: string): { node: Json | undefined; at: string } => {
    let current = node;
    let pointer = where;
    for (let i = 0; i < 20 && isObj(current) && typeof current['$ref'] === 'string' && current['$ref'].startsWith('#'); i++) {
      pointer = current['$ref'];
      current = at(pointer);
    }
    return { node: current, at: pointer };
  };
  return { at, follow, deref: (node: Json | undefined) => follow(node, '').node };
}

/** OpenAPI 3.0 `nullable: true` as 2020-12 `type: [T, 'null']`, so one Ajv validates both versions. */
function upgradeNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(upgradeNullable);
  if (!isObj(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = upgradeNullable(v);
  if (out['nullable'] === true) {
    if (typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
    else if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
    delete out['nullable'];
  }
  return out;
}

function readOperations(doc: JsonObject, r: ReturnType<typeof makeResolver>): OperationInfo[] {
  const out: OperationInfo[] = [];
  const paths = isObj(doc['paths']) ? doc['paths'] : {};
  const globalSecurity = Array.isArray(doc['security']) ? doc['security'] : [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = r.deref(rawItem);
    if (!isObj(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const at = `#/paths/${token(path)}/${method}`;
      const params = new Map<string, ParamSpec>();
      for (const raw of [
        ...(Array.isArray(item['parameters']) ? item['parameters'] : []),
        ...(Array.isArray(op['parameters']) ? op['parameters'] : []),
      ]) {
        const p = r.deref(raw);
        if (!isObj(p) || typeof p['name'] !== 'string' || typeof p['in'] !== 'string') continue;
        params.set(`${p['in']}:${p['name']}`, {
          name: p['name'],
          in: p['in'] as ParamSpec['in'],
          required: p['required'] === true || p['in'] === 'path',
          schema: p['schema'],
          example: p['example'] ?? (isObj(p['examples']) ? firstExample(p['examples'], r) : undefined),
          style: typeof p['style'] === 'string' ? p['style'] : undefined,
          explode: typeof p['explode'] === 'boolean' ? p['explode'] : undefined,
        });
      }
      let body: OperationInfo['body'];
      const rb = r.follow(op['requestBody'], `${at}/requestBody`);
      if (isObj(rb.node) && isObj(rb.node['content'])) {
        const types = Object.keys(rb.node['content']);
        const mediaType = types.find((t) => /json/.test(t)) ?? types[0];
        if (mediaType !== undefined) {
          const media = rb.node['content'][mediaType];
          const m = isObj(media) ? media : {};
          body = {
            mediaType,
            schema: m['schema'],
            schemaAt: `${rb.at}/content/${token(mediaType)}/schema`,
            example: m['example'] ?? (isObj(m['examples']) ? firstExample(m['examples'], r) : undefined),
            required: rb.node['required'] === true,
          };
        }
      }
      const responses: OperationInfo['responses'] = new Map();
      for (const [status, rawResponse] of Object.entries(isObj(op['responses']) ? op['responses'] : {})) {
        const resolved = r.follow(rawResponse, `${at}/responses/${token(status)}`);
        if (!isObj(resolved.node)) continue;
        const content = new Map<string, string | null>();
        for (const [mt, media] of Object.entries(isObj(resolved.node['content']) ? resolved.node['content'] : {})) {
          content.set(
            mt.toLowerCase(),
            isObj(media) && media['schema'] !== undefined ? `${resolved.at}/content/${token(mt)}/schema` : null,
          );
        }
        const headers: { name: string; required: boolean; schemaAt: string | null }[] = [];
        for (const [name, rawHeader] of Object.entries(isObj(resolved.node['headers']) ? resolved.node['headers'] : {})) {
          const h = r.follow(rawHeader, `${resolved.at}/headers/${token(name)}`);
          if (!isObj(h.node)) continue;
          headers.push({ name, required: h.node['required'] === true, schemaAt: h.node['schema'] !== undefined ? `${h.at}/schema` : null });
        }
        responses.set(status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase(), { at: resolved.at, content, headers });
      }
      const security = (Array.isArray(op['security']) ? op['security'] : globalSecurity).filter(isObj).map((req) => Object.keys(req));
      out.push({
        operationId: typeof op['operationId'] === 'string' ? op['operationId'] : `${method.toUpperCase()} ${path}`,
        method,
        path,
        at,
        params: [...params.values()],
        body,
        responses,
        security,
      });
    }
  }
  return out;
}

function firstExample(examples: JsonObject, r: ReturnType<typeof makeResolver>): Json | undefined {
  for (const ex of Object.values(examples)) {
    const e = r.deref(ex);
    if (isObj(e) && e['value'] !== undefined) return e['value'];
  }
  return undefined;
}

function securitySchemes(doc: JsonObject, r: ReturnType<typeof makeResolver>): SecuritySchemes {
  const out: Record<string, SecuritySchemeSpec> = {};
  const components = isObj(doc['components']) ? doc['components'] : {};
  for (const [name, raw] of Object.entries(isObj(components['securitySchemes']) ? components['securitySchemes'] : {})) {
    const s = r.deref(raw);
    if (!isObj(s)) continue;
    if (s['type'] === 'apiKey')
      out[name] = { type: 'apiKey', in: s['in'] === 'query' || s['in'] === 'cookie' ? s['in'] : 'header', name: String(s['name'] ?? '') };
    else if (s['type'] === 'http') out[name] = { type: 'http', scheme: String(s['scheme'] ?? 'bearer').toLowerCase() };
    else if (s['type'] === 'oauth2' || s['type'] === 'openIdConnect' || s['type'] === 'mutualTLS') out[name] = { type: s['type'] };
  }
  return out;
}

/** The declared response for a status: exact, then range, then default. */
function declaredFor(op: OperationInfo, status: number) {
  return op.responses.get(String(status)) ?? op.responses.get(`${Math.floor(status / 100)}XX`) ?? op.responses.get('default');
}

function mediaTypeOf(contentType: string | null): string | undefined {
  return contentType === null ? undefined : contentType.split(';')[0]!.trim().toLowerCase();
}
const isJsonMedia = (mt: string): boolean => mt === 'application/json' || /\+json$/.test(mt);

function serializeParam(p: ParamSpec, value: Json): [string, string][] {
  if (Array.isArray(value)) {
    if (p.style === 'deepObject') return value.map((v) => [`${p.name}[]`, String(v)]);
    if (p.explode === false || p.in !== 'query') return [[p.name, value.map(String).join(',')]];
    return value.map((v) => [p.name, String(v)]);
  }
  if (isObj(value)) {
    if (p.style === 'deepObject') return Object.entries(value).map(([k, v]) => [`${p.name}[${k}]`, String(v)]);
    if (p.explode === false) return [[p.name, Object.entries(value).flat().map(String).join(',')]];
    return Object.entries(value).map(([k, v]) => [k, String(v)]);
  }
  return [[p.name, String(value)]];
}

interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  label: string;
}

export async function checkApi(options: CheckApiOptions): Promise<ApiCheckReport> {
  const doc = upgradeNullable(options.document as Json) as JsonObject;
  const r = makeResolver(doc);
  const operations = readOperations(doc, r);
  const schemes = securitySchemes(doc, r);
  const auth = options.auth ?? {};
  const checks = new Set(options.checks ?? ALL_CHECKS);
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxWait = options.maxRateLimitWaitMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const base = options.baseUrl.replace(/\/+$/, '');
  const basePath = new URL(base).pathname.replace(/\/+$/, '');

  // verbose: each error carries the schema object it failed in, which `pointers` maps back to its place in the document
  // (Ajv's own schemaPath is relative to whichever referenced schema it compiled separately)
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true, verbose: true });
  const pointers = new WeakMap<object, string>();
  const walk = (node: Json, at: string): void => {
    if (typeof node !== 'object' || node === null || pointers.has(node)) return;
    pointers.set(node, at);
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${at}/${i}`));
    else for (const [k, v] of Object.entries(node)) walk(v, `${at}/${token(k)}`);
  };
  walk(doc, '#');
  addFormats(ajv);
  ajv.addSchema(doc as object, SPEC_ID);
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string): ValidateFunction => {
    let v = validators.get(pointer);
    if (v === undefined) validators.set(pointer, (v = ajv.compile({ $ref: `${SPEC_ID}${pointer}` })));
    return v;
  };

  const coverage = new Map(operations.map((op) => [op.operationId, new Map([...op.responses.keys()].map((k) => [k, 0]))]));
  const cases: CheckCase[] = [];

  const templates = operations.map((op) => ({
    op,
    re: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const operationFor = (method: string, pathname: string): OperationInfo | undefined =>
    templates.find((t) => t.op.method === method && t.re.test(pathname))?.op;

  function describe(errors: readonly ErrorObject[] | null | undefined, at: string): string {
    return (errors ?? [])
      .slice(0, 6)
      .map((e) => {
        const parent = typeof e.parentSchema === 'object' && e.parentSchema !== null ? pointers.get(e.parentSchema) : undefined;
        const raw = e.schemaPath.startsWith(`${SPEC_ID}#`) ? e.schemaPath.slice(SPEC_ID.length) : e.schemaPath;
        const schemaPath =
          parent !== undefined
            ? `${parent}/${e.keyword}`
            : /^#\/(components|paths|webhooks)\//.test(raw)
              ? raw
              : `${at}${raw.replace(/^#/, '')}`;
        return `body${e.instancePath} ${e.message ?? ''} (schema ${schemaPath})`;
      })
      .join('; ');
  }

  /** The conformance checks of one response. */
  function conformance(op: OperationInfo, label: string, response: Response, text: string): CheckFailure[] {
    const status = response.status;
    const fail = (check: string, pointer: string, message: string): CheckFailure[] => [
      { check, operationId: op.operationId, status, pointer, message, request: label },
    ];
    const declared = declaredFor(op, status);
    if (declared === undefined)
      return fail(
        'status_code_conformance',
        `${op.at}/responses`,
        `status ${status} is not declared (declared: ${[...op.responses.keys()].join(', ')}); body: ${text.slice(0, 200)}`,
      );
    const seen = coverage.get(op.operationId)!;
    const key = op.responses.has(String(status))
      ? String(status)
      : op.responses.has(`${Math.floor(status / 100)}XX`)
        ? `${Math.floor(status / 100)}XX`
        : 'default';
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const failures: CheckFailure[] = [];
    const mt = mediaTypeOf(response.headers.get('content-type'));
    let schemaAt: string | null = null;
    let instance: unknown = text;
    if (declared.content.size > 0) {
      if (mt === undefined) return fail('content_type_conformance', `${declared.at}/content`, 'response has no Content-Type');
      const match = [...declared.content.keys()].find(
        (k) => k === mt || k === '*/*' || (k.endsWith('/*') && mt.startsWith(k.slice(0, -1))),
      );
      if (match === undefined)
        return fail(
          'content_type_conformance',
          `${declared.at}/content`,
          `Content-Type ${mt} is not among ${[...declared.content.keys()].join(', ')}`,
        );
      schemaAt = declared.content.get(match) ?? null;
      if (isJsonMedia(mt) && text.length > 0) {
        try {
          instance = JSON.parse(text);
        } catch {
          return fail(
            'content_type_conformance',
            `${declared.at}/content`,
            `declared JSON but the body is not JSON: ${text.slice(0, 200)}`,
          );
        }
      }
    } else if (text.length > 0 && status !== 204 && op.method !== 'head') {
      failures.push(
        ...fail('content_type_conformance', declared.at, `the response declares no content but has a body (${mt ?? 'no type'})`),
      );
    }
    for (const h of declared.headers) {
      if (h.name.toLowerCase() === 'content-type') continue;
      const value = response.headers.get(h.name);
      if (value === null) {
        if (h.required)
          failures.push(
            ...fail('response_headers_conformance', `${declared.at}/headers/${token(h.name)}`, `required header ${h.name} is missing`),
          );
        continue;
      }
      if (h.schemaAt !== null) {
        const v = validatorAt(h.schemaAt);
        const coerced = /^-?\d+(\.\d+)?$/.test(value) && !v(value) ? Number(value) : value;
        if (!v(coerced))
          failures.push(
            ...fail(
              'response_headers_conformance',
              h.schemaAt,
              `header ${h.name}: ${JSON.stringify(value)} ${v.errors?.[0]?.message ?? ''}`,
            ),
          );
      }
    }
    if (schemaAt !== null && (text.length > 0 || status !== 204)) {
      const v = validatorAt(schemaAt);
      if (!v(instance)) failures.push(...fail('response_schema_conformance', schemaAt, describe(v.errors, schemaAt)));
    }
    if (status >= 500) failures.push(...fail('not_a_server_error', declared.at, `server error ${status}: ${text.slice(0, 200)}`));
    return failures;
  }

  /** Sends with 429 handling: waits out Retry-After up to `maxWait` in total, then reports. */
  async function send(req: BuiltRequest): Promise<{ response: Response; text: string } | { error: string }> {
    let waited = 0;
    for (;;) {
      let response: Response;
      try {
        response = await doFetch(req.url, {
          method: req.method.toUpperCase(),
          headers: req.headers,
          body: req.body,
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'manual',
        });
      } catch (error) {
        return { error: `request failed: ${(error as Error).message}` };
      }
      const text = await response.text();
      if (response.status !== 429) return { response, text };
      const retryAfter = Number(response.headers.get('retry-after'));
      const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : 1000;
      if (waited + wait > maxWait) {
        return {
          error: `rate limited (429) for more than ${Math.round(maxWait / 1000)} s: raise the deployment's rate limit for this run (a Paygate gateway: PAYGATE_RATE_LIMIT) or lower the request rate`,
        };
      }
      waited += wait;
      await sleep(wait);
    }
  }

  function build(
    op: OperationInfo,
    mode: { withAuth: boolean; negative?: 'body' | 'query'; pathValues?: Record<string, string> },
  ): BuiltRequest | { negativeReason: undefined } {
    let pathname = op.path;
    const query: [string, string][] = [];
    const headers: Record<string, string> = {};
    let negativeReason: string | undefined;
    for (const p of op.params) {
      if (p.in === 'path') {
        const value = mode.pathValues?.[p.name] ?? String(p.example ?? sampleOf(p.schema, r.deref));
        pathname = pathname.replace(`{${p.name}}`, encodeURIComponent(value));
        continue;
      }
      if (mode.negative === 'query' && p.in === 'query' && p.required && negativeReason === undefined) {
        const neg = negativeOf(p.schema, r.deref);
        if (neg !== undefined && typeof neg.value !== 'object') {
          query.push([p.name, String(neg.value)]);
          negativeReason = `query ${p.name}: ${neg.reason}`;
          continue;
        }
      }
      if (!p.required) continue;
      const value = p.example ?? sampleOf(p.schema, r.deref);
      if (p.in === 'query') query.push(...serializeParam(p, value));
      else if (p.in === 'header') headers[p.name] = String(value);
      else if (p.in === 'cookie') headers['Cookie'] = `${headers['Cookie'] ? `${headers['Cookie']}; ` : ''}${p.name}=${String(value)}`;
    }
    let body: string | undefined;
    if (op.body !== undefined && (op.body.required || mode.negative === 'body')) {
      headers['Content-Type'] = op.body.mediaType;
      let value: Json = op.body.example ?? sampleOf(op.body.schema, r.deref);
      if (mode.negative === 'body') {
        const neg = negativeOf(op.body.schema, r.deref);
        if (neg !== undefined) {
          value = neg.value;
          negativeReason = `body: ${neg.reason}`;
        }
      }
      body = /json/.test(op.body.mediaType)
        ? JSON.stringify(value)
        : op.body.mediaType === 'application/x-www-form-urlencoded' && isObj(value)
          ? new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)])).toString()
          : String(value);
    }
    if (mode.negative !== undefined && negativeReason === undefined) return { negativeReason: undefined };
    if (mode.withAuth && op.security.length > 0) {
      const target: AuthTarget = { headers: {}, query: {}, cookies: [] };
      // synchronous credentials only here (flags and environment variables are strings)
      void applyAuth(schemes, auth, op.security, target);
      Object.assign(headers, target.headers);
      query.push(...Object.entries(target.query));
      if (target.cookies.length > 0) headers['Cookie'] = [headers['Cookie'], ...target.cookies].filter(Boolean).join('; ');
    }
    const qs = query.length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
    const label = `${op.method.toUpperCase()} ${pathname}${negativeReason ? ` (${negativeReason})` : ''}`;
    return { url: `${base}${pathname}${qs}`, method: op.method, headers, body, label };
  }

  async function runCase(
    op: OperationInfo,
    check: CheckName,
    req: BuiltRequest,
    expect: (status: number) => string | undefined,
  ): Promise<Response | undefined> {
    const started = performance.now();
    const outcome = await send(req);
    const failures: CheckFailure[] = [];
    let status: number | undefined;
    let response: Response | undefined;
    if ('error' in outcome) {
      failures.push({
        check: 'request',
        operationId: op.operationId,
        status: undefined,
        pointer: op.at,
        message: outcome.error,
        request: req.label,
      });
    } else {
      response = outcome.response;
      status = response.status;
      failures.push(...conformance(op, req.label, response, outcome.text));
      const problem = expect(status);
      if (problem !== undefined)
        failures.push({
          check: `${check}_data`,
          operationId: op.operationId,
          status,
          pointer: op.at,
          message: `${problem}; body: ${outcome.text.slice(0, 200)}`,
          request: req.label,
        });
    }
    cases.push({
      operationId: op.operationId,
      check,
      request: req.label,
      status,
      failures,
      durationMs: Math.round(performance.now() - started),
    });
    return response;
  }

  for (const op of operations) {
    const hasPathParams = op.params.some((p) => p.in === 'path');
    const authenticated =
      op.security.length === 0 || chooseAlternative(op.security, auth) !== undefined || op.security.some((alt) => alt.length === 0);
    if (checks.has('positive')) {
      const req = build(op, { withAuth: true });
      if ('url' in req) {
        const response = await runCase(op, 'positive', req, (status) => {
          if (status < 400 || status >= 500) return undefined;
          if (!authenticated && (status === 401 || status === 403)) return undefined;
          // a sample id may name nothing, a sample state may conflict: those answers are the API's to give
          if (status === 404 && hasPathParams) return undefined;
          if (status === 409 || status === 422) return undefined;
          return `positive data was refused with ${status}`;
        });
        const location = response?.headers.get('location');
        if (checks.has('stateful') && response !== undefined && response.status < 300 && location) {
          const target = new URL(location, `${base}/`);
          const relative = target.pathname.startsWith(basePath) ? target.pathname.slice(basePath.length) : target.pathname;
          const next = operationFor('get', relative);
          if (next !== undefined && target.origin === new URL(base).origin) {
            const follow = build(next, { withAuth: true });
            if ('url' in follow) {
              follow.url = `${base}${relative}`;
              follow.label = `GET ${relative} (Location of ${op.operationId})`;
              await runCase(next, 'stateful', follow, (status) =>
                status >= 400 && status < 500 ? `following the Location of ${op.operationId} answered ${status}` : undefined,
              );
            }
          }
        }
      }
    }
    if (checks.has('negative')) {
      for (const negative of ['body', 'query'] as const) {
        const req = build(op, { withAuth: true, negative });
        if (!('url' in req)) continue;
        await runCase(op, 'negative', req, (status) =>
          status >= 400 && status < 500 ? undefined : `negative data was answered ${status}, not a 4xx`,
        );
      }
    }
    if (checks.has('unauthenticated') && op.security.length > 0 && !op.security.some((alt) => alt.length === 0)) {
      const req = build(op, { withAuth: false });
      if ('url' in req) {
        req.label = `${req.label} (no credentials)`;
        await runCase(op, 'unauthenticated', req, (status) =>
          status >= 400 && status < 500 ? undefined : `a request without credentials was answered ${status}, not a 4xx`,
        );
      }
    }
  }

  const failures = cases.flatMap((c) => c.failures);
  return {
    ok: failures.length === 0,
    cases,
    failures,
    coverage: operations.map((op) => ({
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      statuses: Object.fromEntries(coverage.get(op.operationId)!),
    })),
  };
}

/** The operation x status coverage table, one row per operation (`-` = declared, never answered). */
export function formatCoverage(report: ApiCheckReport): string {
  const rows = report.coverage.map((c) => [
    c.operationId,
    `${c.method} ${c.path}`,
    Object.entries(c.statuses)
      .map(([s, n]) => (n > 0 ? `${s}x${n}` : `${s}:-`))
      .join(' '),
  ]);
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]!.length), i === 0 ? 9 : 7));
  const header = ['operation'.padEnd(widths[0]!), 'request'.padEnd(widths[1]!), 'statuses (seen x times, - never)'].join('  ');
  return [header, ...rows.map((row) => [row[0]!.padEnd(widths[0]!), row[1]!.padEnd(widths[1]!), row[2]].join('  '))].join('\n');
}

/** Each failure on its own lines: check, operation, status, pointer, message, request. */
export function formatFailures(report: ApiCheckReport): string {
  return report.failures
    .map((f) => `[${f.check}] ${f.operationId} -> ${f.status ?? 'no response'}: ${f.message}\n  at ${f.pointer}\n  request: ${f.request}`)
    .join('\n');
}

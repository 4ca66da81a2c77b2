/**
 * Differential test of request validation. Paygate validates requests with its own precompiled engine and rules
 * (docs/request-validation.md); express-openapi-validator 5.6, validating the same requests from the embedded
 * document, is the independent oracle. Echo handlers sit behind both, so an answer is the status, the body (the
 * error envelope and its `details`, or the request the handler saw after coercion and defaults) and `Allow`.
 *
 * Two documents:
 * - the Paygate spec, with thousands of generated requests per operation (valid, mutated, malformed: parameters,
 *   bodies, content types, methods, multipart);
 * - test/fixtures/params, one operation per parameter style Paygate parses, with a table of targeted requests.
 *
 * Every answer must be identical, unless one of the DELIBERATE DIFFERENCES below applies to the request: then its
 * check (how Paygate's answer relates to the oracle's) must hold. Each difference must be observed at least once, so
 * the list cannot go stale. The same list, with the rules, is in docs/request-validation.md.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import fc from 'fast-check';
import { apiDocument, operations } from '@paygate/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arbitraryFor } from '../../../../test/support/arbitraries.js';
import { apiDocument as paramsDocument } from '../../../../test/fixtures/params/generated/contract/api-document.gen.js';
import {
  operations as paramsOperations,
  securitySchemes as paramsSecuritySchemes,
} from '../../../../test/fixtures/params/generated/contract/operations.gen.js';
import { requestValidators as paramsValidators } from '../../../../test/fixtures/params/generated/server/request-validators.gen.js';
import { createApp } from '../app.js';
import { requestValidators } from '../generated/request-validators.gen.js';
import { createApiApp } from './app.js';
import { errorHandler } from './lifecycle/error.js';
import { handlerRequest } from './lifecycle/handle.js';
import { formEncodedQuerySpaces } from './lifecycle/on-request.js';
import { bodyParsers } from './lifecycle/parse-body.js';
import { GENERIC_ERROR_CODES, SpecErrorShapes } from './error-shapes.js';
import { HttpError, RUNTIME_ERROR_CODES } from './errors.js';
import type { OperationRequestValidators } from './request-validation.js';
import type { ApiDocument, Logger, OperationRoute } from './types.js';
import { escapePointerToken } from '@paygate/contract/json';

type Obj = Record<string, unknown>;
const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const BODY_LIMIT = '64kb';
const UPLOAD_LIMITS = { fileSize: 2048, files: 1, fields: 20, fieldSize: 64 * 1024 };

function echo(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (key === 'host') return undefined;
      if (key === 'content-type' && typeof v === 'string') return v.replace(/boundary=[^;]+/, 'boundary=X'); // random per request
      if (v !== null && typeof v === 'object' && 'buffer' in v && 'originalname' in v) {
        const f = v as unknown as { originalname: string; size: number; mimetype: string; fieldname: string };
        return { file: f.originalname, size: f.size, mimetype: f.mimetype, field: f.fieldname };
      }
      return v;
    }),
  );
}

/** The oracle: express-openapi-validator validating requests (multipart included) from the document, same parsers, same echo, same error mapper. */
function oracleApp(document: ApiDocument, routes: readonly OperationRoute[]): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(formEncodedQuerySpaces);
  const parsers = bodyParsers(BODY_LIMIT);
  const validator = OpenApiValidator.middleware({
    apiSpec: document as unknown as Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'],
    validateApiSpec: false,
    validateRequests: { allErrors: true },
    validateResponses: false,
    validateSecurity: false,
    $refParser: { mode: 'bundle' },
    fileUploader: { limits: UPLOAD_LIMITS },
  }) as unknown as express.RequestHandler[];
  for (const op of routes) {
    app[op.method](op.expressPath, ...parsers, ...validator, (req: Request, res: Response, next: NextFunction) => {
      try {
        res.status(200).json({ op: op.operationId, req: echo(handlerRequest(op, req)) });
      } catch (error) {
        next(error);
      }
    });
  }
  app.use(...parsers, ...validator);
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new HttpError(404, RUNTIME_ERROR_CODES.notFound, 'No such route')));
  app.use(errorHandler(silent, new SpecErrorShapes(document)));
  return app;
}

function echoHandlers(routes: readonly OperationRoute[]): never {
  const handlers: Record<string, (req: unknown) => Promise<{ status: number; body: unknown }>> = {};
  for (const op of routes) handlers[op.operationId] = async (req) => ({ status: 200, body: { op: op.operationId, req: echo(req) } });
  return handlers as never;
}

interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

interface Answer {
  status: number;
  allow: string | null;
  body: string;
}

async function send(base: string, r: Built): Promise<Answer> {
  const res = await fetch(`${base}${r.url}`, { method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) });
  return { status: res.status, allow: res.headers.get('allow'), body: await res.text() };
}

interface Envelope {
  success: false;
  error: { code: string; message: string; details?: Record<string, string> };
}
/**
 * The answer's error, as Paygate's envelope: the params fixture declares no error schema, so its answers are RFC 9457
 * problem details (D119 scaffold shapes its answers from the spec), read back here into the same fields (the codes are the runtime's, by kind).
 */
const envelope = (a: Answer): Envelope => {
  const body = JSON.parse(a.body) as
    | Envelope
    | { type: string; detail: string; code: string; errors?: { field: string; detail: string }[] };
  if (!('type' in body)) return body;
  const kind = Object.entries(GENERIC_ERROR_CODES).find(([, code]) => code === body.code)?.[0] as
    | keyof typeof RUNTIME_ERROR_CODES
    | undefined;
  const error: Envelope['error'] = { code: kind === undefined ? body.code : RUNTIME_ERROR_CODES[kind], message: body.detail };
  if (body.errors !== undefined) error.details = Object.fromEntries(body.errors.map((e) => [e.field, e.detail]));
  return { success: false, error } as Envelope;
};
const echoed = (a: Answer): { op: string; req: { query: Obj; headers: Obj; params: Obj; body: unknown } } => JSON.parse(a.body);

/** The query keys of a URL as written (decoded), with `null` for a key sent without `=`. */
function queryPairs(url: string): [string, string | null][] {
  const qs = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return qs
    .split('&')
    .filter((p) => p.length > 0)
    .map((p) => {
      const eq = p.indexOf('=');
      const key = eq === -1 ? p : p.slice(0, eq);
      let decoded = key;
      try {
        decoded = decodeURIComponent(key);
      } catch {
        // as written
      }
      return [decoded, eq === -1 ? null : p.slice(eq + 1)];
    });
}

interface Context {
  spec: 'paygate' | 'params';
  route: OperationRoute | undefined;
  validators: OperationRequestValidators | undefined;
}

/**
 * A deliberate difference: where Paygate's rule (docs/request-validation.md) and the oracle answer differently, and
 * how the two answers must relate.
 */
interface Difference {
  id: string;
  /** Paygate's rule, and what the oracle does instead. */
  rule: string;
  applies(r: Built, ctx: Context): boolean;
  /** Throws unless Paygate's answer relates to the oracle's as documented. */
  check(paygate: Answer, oracle: Answer, r: Built, ctx: Context): void;
}

const nonDeepObjectBracketKeys = (r: Built, ctx: Context): string[] =>
  queryPairs(r.url)
    .map(([k]) => k)
    .filter((k) => {
      if (!k.includes('[')) return false;
      const rule = ctx.validators?.parameters.find((p) => p.in === 'query' && p.name === k.slice(0, k.indexOf('[')));
      return !ctx.validators?.queryNames.includes(k) && rule?.parse !== 'deepObject';
    });

export const DIFFERENCES: Difference[] = [
  {
    id: 'allow-order',
    rule: "`Allow` (405) lists the path's methods in the route table's order (GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE). The oracle lists them in document order.",
    applies: (_r, ctx) => ctx.spec === 'paygate' || ctx.spec === 'params',
    check: (paygate, oracle) => {
      expect(paygate.status).toBe(405);
      expect({ ...paygate, allow: null }).toEqual({ ...oracle, allow: null });
      expect(paygate.allow?.split(', ').sort()).toEqual(oracle.allow?.split(', ').sort());
    },
  },
  {
    id: 'value-less-key',
    rule: 'A query key sent without `=` (`?tags`) has the empty value: 400 "Empty value found" unless allowEmptyValue. The oracle answers 500 for a non-exploded parameter (its reserved-character check reads the missing value).',
    applies: (r, ctx) =>
      queryPairs(r.url).some(
        ([k, v]) => v === null && ctx.validators?.parameters.some((p) => p.in === 'query' && p.name === k && p.reserved === 'comma'),
      ),
    check: (paygate, oracle, r) => {
      expect(oracle.status).toBe(500);
      expect(paygate.status).toBe(400);
      const key = queryPairs(r.url).find(([, v]) => v === null)![0];
      expect(envelope(paygate).error.details).toEqual({ [key]: `Empty value found for query parameter '${key}'` });
    },
  },
  {
    id: 'bracket-key',
    rule: 'Brackets are only read for deepObject parameters (`filter[status]=open`); any other `name[...]` key is an unknown query parameter (400 naming the key, or passed on as written where unknown parameters are allowed). The oracle reads every bracketed key qs-style into an object or array under `name` and validates that.',
    applies: (r, ctx) => nonDeepObjectBracketKeys(r, ctx).length > 0,
    check: (paygate, _oracle, r, ctx) => {
      const key = nonDeepObjectBracketKeys(r, ctx)[0]!;
      if (ctx.validators?.allowUnknownQuery === true) {
        expect(paygate.status).toBe(200);
        expect(echoed(paygate).req.query[key]).toBeDefined();
        return;
      }
      expect(paygate.status).toBe(400);
      expect(envelope(paygate).error.details).toEqual({ [key]: `Unknown query parameter '${key}'` });
    },
  },
  {
    id: 'unencoded-sub-delims',
    rule: "`! ' ( ) *` are accepted unencoded in a query value: encodeURIComponent and URLSearchParams (every browser and Node client, openapi-fetch included) never encode them, so a conforming client cannot. The oracle rejects them as reserved.",
    applies: (r, ctx) =>
      queryPairs(r.url).some(
        ([k, v]) =>
          v !== null &&
          /[!'()*]/.test(v) &&
          ctx.validators?.parameters.some((p) => p.in === 'query' && p.name === k && p.reserved !== undefined) === true,
      ),
    check: (paygate, _oracle, r) => {
      const details = paygate.status === 400 ? (envelope(paygate).error.details ?? {}) : {};
      for (const [k, v] of queryPairs(r.url)) {
        // refused for any other reason it may be (a schema rule), never as unencoded
        if (v !== null && /[!'()*]/.test(v) && !/[:/?#[\]@$&+,;=]/.test(v))
          expect(String(details[k] ?? ''), `${k}=${v}`).not.toMatch(/must be url encoded/);
      }
    },
  },
  {
    id: 'reserved-whole-value',
    rule: 'Reserved characters are looked for in each query value as received, all of it. The oracle drops the first `?` of the query string and ignores everything after a second `=` in a pair, so `a=x?y` or `a=x=y` pass there.',
    applies: (r, ctx) =>
      queryPairs(r.url).some(
        ([k, v]) =>
          v !== null &&
          /[?=]/.test(v) &&
          ctx.validators?.parameters.some((p) => p.in === 'query' && p.name === k && p.reserved !== undefined) === true,
      ),
    check: (paygate, _oracle, r) => {
      expect(paygate.status).toBe(400);
      const details = envelope(paygate).error.details ?? {};
      const [name, message] = Object.entries(details)[0] ?? [];
      expect(message).toBe(`Parameter '${name}' must be url encoded. Its value may not contain reserved characters.`);
      expect(queryPairs(r.url).some(([k, v]) => k === name && v !== null && /[?=]/.test(v))).toBe(true);
    },
  },
  {
    id: 'simple-array-header',
    rule: "A header (or path) array without `style` has OpenAPI's default `simple`: comma-separated. The oracle has no default style for headers and rejects every request of the operation (400 \"Parameter 'style' has incorrect value\").",
    applies: (_r, ctx) => ctx.validators?.parameters.some((p) => p.in === 'header' && p.parse === 'split') === true,
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(400);
      expect(JSON.stringify(envelope(oracle).error.details)).toMatch(/Parameter 'style' has incorrect value 'undefined'/);
      expect(paygate.body).not.toMatch(/Parameter 'style'/);
    },
  },
  {
    id: 'optional-body',
    rule: "A request body whose `required` is omitted is optional (OpenAPI's default): a request without Content-Type and body has no body to validate. The oracle treats an omitted `required` like `true` and answers 415.",
    applies: (r, ctx) => ctx.validators?.body?.required === false && r.headers['content-type'] === undefined && r.body === undefined,
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(415);
      expect(paygate.status).toBe(200);
    },
  },
  {
    id: 'deep-object-absent',
    rule: "A deepObject parameter that is not sent stays absent (a `default` would apply through validation). The oracle fills it with an object of its properties' defaults (`{}` when they have none).",
    applies: (r, ctx) => {
      const deep = ctx.validators?.parameters.filter((p) => p.parse === 'deepObject') ?? [];
      return deep.some((p) => !queryPairs(r.url).some(([k]) => k === p.name || k.startsWith(`${p.name}[`)));
    },
    check: (paygate, oracle, _r, ctx) => {
      expect(paygate.status).toBe(oracle.status);
      if (oracle.status !== 200) {
        expect(paygate.body).toBe(oracle.body);
        return;
      }
      const expected = echoed(oracle);
      for (const p of ctx.validators!.parameters.filter((x) => x.parse === 'deepObject')) {
        if (JSON.stringify(expected.req.query[p.name]) === '{}') delete expected.req.query[p.name];
      }
      expect(echoed(paygate)).toEqual(expected);
    },
  },
  {
    id: 'calendar-date',
    rule: 'A `format: date` / `date-time` value must be a real calendar day (ajv-formats "full" for these two formats: no 2026-02-30, leap years honoured); every other format is checked "fast". The oracle checks dates "fast" (the shape only) and lets an impossible day through.',
    applies: (r) => /(^|[?&=":])20\d\d-(02-3\d|13-\d\d)/.test(`${r.url} ${typeof r.body === 'string' ? r.body : ''}`),
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(200);
      expect(paygate.status).toBe(400);
      expect(envelope(paygate).error.code).toBe('ERR_VALIDATION_400');
    },
  },
  {
    id: 'unpaired-surrogate',
    rule: 'Strings and keys of a JSON body must be well-formed Unicode: a lone UTF-16 surrogate (`"\\ud800"`) is 400 naming the field. The oracle lets it through (a database then fails on it).',
    applies: (r) =>
      typeof r.body === 'string' && /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i.test(r.body),
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(200);
      expect(paygate.status).toBe(400);
      expect(Object.values(envelope(paygate).error.details ?? {})).toContain('must be well-formed Unicode (no unpaired UTF-16 surrogate)');
    },
  },
  {
    id: 'rejection-details',
    rule: 'A 413 or 415 names what to fix in `details`: the header (`content-type` with the accepted media types, `content-encoding`) or the part (`file`, `body`) with its limit. The oracle names the request path.',
    applies: () => true,
    check: (paygate, oracle) => {
      expect([413, 415]).toContain(paygate.status);
      expect(paygate.status).toBe(oracle.status);
      expect(envelope(paygate).error.code).toBe(envelope(oracle).error.code);
      expect(Object.keys(envelope(paygate).error.details ?? {})).toEqual([
        expect.stringMatching(/^(content-type|content-encoding|file|body)$/),
      ]);
    },
  },
  {
    id: 'malformed-path-encoding',
    rule: 'A path segment whose percent-encoding does not decode (`/pg/orders/%E0%A4%A`) is 400 naming the path parameter it stands for. The oracle answers 400 without `details`.',
    applies: (r) =>
      r.url
        .split('?')[0]!
        .split('/')
        .some((segment) => {
          try {
            decodeURIComponent(segment);
            return false;
          } catch {
            return true;
          }
        }),
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(400);
      expect(paygate.status).toBe(400);
      expect(Object.values(envelope(paygate).error.details ?? {})[0]).toMatch(/malformed percent-encoding/);
    },
  },
  {
    id: 'strict-uri',
    rule: 'A `format: uri` value must be an RFC 3986 URI (ajv-formats "full"): `"`, `<`, `>`, `\\`, `{}`, `|` and a bad `%` escape are refused with 400. The oracle checks it "fast" and lets them through.',
    applies: (r) => typeof r.body === 'string' && /"(url|return_url)":"[^"]*(\\"|<|>|\{|\||%[^0-9a-f])/i.test(r.body),
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(200);
      expect(paygate.status).toBe(400);
      expect(Object.values(envelope(paygate).error.details ?? {})).toContain('must match format "uri"');
    },
  },
  {
    id: 'malformed-multipart',
    rule: "A multipart body that cannot be parsed (truncated, bad boundary) is the client's error: 400. The oracle answers 500.",
    applies: (r) => typeof r.body === 'string' && /^multipart\/form-data/.test(r.headers['content-type'] ?? ''),
    check: (paygate, oracle) => {
      expect(oracle.status).toBe(500);
      expect(paygate.status).toBe(400);
      expect(envelope(paygate).error.code).toBe('ERR_VALIDATION_400');
    },
  },
];

const observed = new Set<string>();

function compare(paygate: Answer, oracle: Answer, r: Built, ctx: Context): void {
  if (paygate.status === oracle.status && paygate.body === oracle.body && paygate.allow === oracle.allow) return;
  const applicable = DIFFERENCES.filter((d) => d.applies(r, ctx));
  const failures: string[] = [];
  for (const d of applicable) {
    try {
      d.check(paygate, oracle, r, ctx);
      observed.add(d.id);
      return;
    } catch (error) {
      failures.push(`${d.id}: ${(error as Error).message.split('\n')[0]!}`);
    }
  }
  // No documented difference explains it: show the two answers.
  expect({ request: r, ...paygate, explainedBy: failures }, `${r.method} ${r.url}`).toEqual({ request: r, ...oracle, explainedBy: [] });
}

// ---------------------------------------------------------------------------------------------------------------
// servers

const servers: Server[] = [];
const bases = { paygate: { paygate: '', oracle: '' }, params: { paygate: '', oracle: '' } };

async function listen(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  // Kept-alive sockets outlive any pause of this process: with Node's 5 s default, a busy machine (load 24 here) delays
  // fetch's own idle timer past the server's, fetch reuses a socket the server just closed and gets ECONNRESET.
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.once('listening', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  // The echo apps answer every request (authentication is not what is compared): served unauthenticated on purpose.
  const options = {
    validateResponses: false,
    bodyLimit: BODY_LIMIT,
    uploadLimits: { fileSize: UPLOAD_LIMITS.fileSize },
    allowUnauthenticated: true,
    logger: silent,
  };
  bases.paygate.paygate = await listen(createApp({ handlers: echoHandlers(operations), ...options }));
  bases.paygate.oracle = await listen(oracleApp(apiDocument, operations));
  bases.params.paygate = await listen(
    createApiApp(
      {
        apiDocument: paramsDocument,
        operations: paramsOperations,
        securitySchemes: paramsSecuritySchemes,
        requestValidators: paramsValidators,
      },
      { handlers: echoHandlers(paramsOperations), ...options },
    ),
  );
  bases.params.oracle = await listen(oracleApp(paramsDocument, paramsOperations));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function differential(spec: Context['spec'], r: Built, route: OperationRoute | undefined): Promise<Answer> {
  const [paygate, oracle] = [await send(bases[spec].paygate, r), await send(bases[spec].oracle, r)];
  const table = spec === 'params' ? paramsValidators : requestValidators;
  compare(paygate, oracle, r, { spec, route, validators: route === undefined ? undefined : table[route.operationId] });
  return oracle;
}

// ---------------------------------------------------------------------------------------------------------------
// generated requests (Paygate spec)

const doc = apiDocument as unknown as { paths: Record<string, Obj>; components: { parameters: Record<string, Obj> } };

interface Param {
  name: string;
  in: string;
  schema: Obj;
  pointer: string;
}

const esc = escapePointerToken;

function parametersOf(op: OperationRoute): Param[] {
  const item = doc.paths[op.path]!;
  const operation = item[op.method] as Obj;
  const at = (list: Obj[] | undefined, base: string) => (list ?? []).map((p, i) => ({ p, where: `${base}/parameters/${i}` }));
  const list = [
    ...at(operation.parameters as Obj[] | undefined, `#/paths/${esc(op.path)}/${op.method}`),
    ...at(item.parameters as Obj[] | undefined, `#/paths/${esc(op.path)}`),
  ];
  return list.map(({ p, where }) => {
    const ref = typeof p.$ref === 'string' ? p.$ref : undefined;
    const param = ref !== undefined ? doc.components.parameters[ref.split('/').pop()!]! : p;
    const schema = param.schema as Obj;
    const pointer = typeof schema.$ref === 'string' ? schema.$ref : `${ref ?? where}/schema`;
    return { name: param.name as string, in: param.in as string, schema, pointer };
  });
}

const junk = fc.constantFrom(
  '',
  'abc',
  '-1',
  '0',
  '1',
  '2',
  '250',
  '251',
  '99999999',
  '1.5',
  'true',
  'a*b',
  "it's",
  'x(1)',
  'a,b',
  '%00',
  '[]',
  'OD0000000000000001',
  '12345678',
  'null',
);

function valueFor(p: Param): fc.Arbitrary<string> {
  const valid = arbitraryFor(p.pointer).map(String);
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: junk }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
}

function bodyPointer(op: OperationRoute): string | undefined {
  const media = op.requestMediaTypes[0];
  if (media === undefined) return undefined;
  return `#/paths/${esc(op.path)}/${op.method}/requestBody/content/${media.replace(/\//g, '~1')}/schema`;
}

function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fc.constant(value);
  const keys = Object.keys(value);
  return fc.oneof(
    fc.constant(value),
    keys.length === 0
      ? fc.constant(value)
      : fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(value).filter(([x]) => x !== k))),
    keys.length === 0
      ? fc.constant(value)
      : fc
          .tuple(fc.constantFrom(...keys), fc.constantFrom<unknown>(1, 'x', null, true, [], {}, -1, '1.00'))
          .map(([k, v]) => ({ ...value, [k]: v })),
    fc.constant({ ...value, unexpected_field: 1 }),
    fc.constantFrom<unknown>(null, [], 'text', 42, {}),
  );
}

function requestArb(op: OperationRoute): fc.Arbitrary<Built> {
  const params = parametersOf(op);
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const headers = params.filter((p) => p.in === 'header');
  const pathArb = fc.tuple(...pathParams.map((p) => valueFor(p))).map((values) => {
    let url = op.path;
    pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeURIComponent(values[i]!) || 'x')));
    return url;
  });
  const extras = fc.constantFrom<[string, string | null][]>(
    [['unknown', '1']],
    [['page[x]', '1']],
    [
      ['page', '1'],
      ['page', '2'],
    ],
    [['page', null]],
    [['page_size', null]],
  );
  const queryArb = fc
    .tuple(
      fc.subarray(query).chain((chosen) => fc.tuple(...chosen.map((p) => valueFor(p).map((v) => [p.name, v] as const)))),
      fc.oneof({ weight: 5, arbitrary: fc.constant<[string, string | null][]>([]) }, { weight: 1, arbitrary: extras }),
      fc.boolean(),
    )
    .map(([pairs, extra, raw]) => {
      const all: [string, string | null][] = [...pairs.map(([k, v]): [string, string | null] => [k, v]), ...extra];
      if (all.length === 0) return '';
      // raw: values as written (reserved characters unencoded, value-less keys); else URLSearchParams encoding
      if (raw) return `?${all.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join('&')}`;
      return `?${new URLSearchParams(all.map(([k, v]) => [k, v ?? ''])).toString()}`;
    });
  const headerArb = fc
    .tuple(...headers.map((p) => fc.option(valueFor(p), { nil: undefined }).map((v) => [p.name, v] as const)))
    .map((pairs) => {
      const out: Record<string, string> = {};
      for (const [k, v] of pairs) if (v !== undefined && /^[\x20-\x7e]*$/.test(v)) out[k] = v;
      return out;
    });
  const pointer = bodyPointer(op);
  const multipart = op.requestMediaTypes.includes('multipart/form-data');
  let bodyArb: fc.Arbitrary<{ body?: string | FormData; contentType?: string }> = fc.constant({});
  if (multipart) {
    bodyArb = fc
      .record({
        documentType: fc.constantFrom('invoice', 'air_waybill', 'INVOICE', 'BANK_PROOF', 'passport', undefined),
        files: fc.integer({ min: 0, max: 2 }),
        fileSize: fc.constantFrom(4, 4096),
        extra: fc.boolean(),
      })
      .map(({ documentType, files, fileSize, extra }) => {
        const form = new FormData();
        if (documentType !== undefined) form.append('document_type', documentType);
        if (extra) form.append('identifier', 'INV-1');
        for (let i = 0; i < files; i++) form.append('file', new Blob([new Uint8Array(fileSize)], { type: 'application/pdf' }), `f${i}.pdf`);
        return { body: form };
      });
  } else if (pointer !== undefined) {
    const valid = arbitraryFor(pointer);
    bodyArb = fc
      .tuple(
        valid.chain(mutate),
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'text/plain',
          'application/xml',
          undefined,
          'application/x-www-form-urlencoded',
        ),
        fc.integer({ min: 0, max: 20 }),
      )
      .map(([value, contentType, malformed]) => {
        const isForm = op.requestMediaTypes[0] === 'application/x-www-form-urlencoded';
        let body =
          isForm && value !== null && typeof value === 'object'
            ? new URLSearchParams(value as Record<string, string>).toString()
            : JSON.stringify(value);
        if (malformed === 0) body = '{"broken": ';
        const ct = isForm && contentType === 'application/json' ? 'application/x-www-form-urlencoded' : contentType;
        return ct === undefined ? { body } : { body, contentType: ct };
      });
  }
  const methodArb = fc.oneof(
    { weight: 12, arbitrary: fc.constant(op.method.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS') },
  );
  return fc.tuple(methodArb, pathArb, queryArb, headerArb, bodyArb).map(([method, path, qs, hdrs, b]) => {
    const headers: Record<string, string> = { ...hdrs };
    if (b.contentType !== undefined) headers['content-type'] = b.contentType;
    const built: Built = { method, url: `${path}${qs}`, headers };
    if (b.body !== undefined && method !== 'HEAD' && method !== 'GET') built.body = b.body;
    return built;
  });
}

describe('request validation, Paygate spec: precompiled engine vs express-openapi-validator', () => {
  it.each(operations.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    const samples = fc.sample(requestArb(op), { numRuns: 120, seed: 20261121 });
    const statuses = new Map<number, number>();
    for (const r of samples) {
      const oracle = await differential('paygate', r, op);
      statuses.set(oracle.status, (statuses.get(oracle.status) ?? 0) + 1);
    }
    // the corpus must reach the handler and the validator alike
    expect(
      [...statuses.keys()].some((s) => s === 200),
      `statuses ${JSON.stringify([...statuses])}`,
    ).toBe(true);
  });

  it('unknown paths, other methods, malformed bodies on them, malformed multipart', async () => {
    const upload = operations.find((op) => op.operationId === 'uploadOrderDocument')!;
    const cases: [Built, OperationRoute | undefined][] = [
      [{ method: 'GET', url: '/nope', headers: {} }, undefined],
      [{ method: 'POST', url: '/nope', headers: { 'content-type': 'application/json' }, body: '{"x": ' }, undefined],
      [{ method: 'DELETE', url: '/pg/orders/', headers: {} }, undefined],
      [{ method: 'PUT', url: '/pg/orders/OD0000000000000001', headers: {} }, undefined],
      [{ method: 'OPTIONS', url: '/pg/refunds', headers: {} }, undefined],
      [{ method: 'PATCH', url: '/webhooks/endpoints', headers: { 'content-type': 'application/json' }, body: '{}' }, undefined],
      [{ method: 'HEAD', url: '/pg/orders/OD0000000000000001', headers: {} }, undefined],
      [{ method: 'GET', url: '/pg/orders/%E0%A4%A', headers: {} }, undefined],
      [
        { method: 'GET', url: '/pg/payments/?from_created_date=2026-02-30', headers: {} },
        operations.find((op) => op.operationId === 'listPayments'),
      ],
      [
        {
          method: 'POST',
          url: '/webhooks/endpoints',
          headers: { 'content-type': 'application/json' },
          body: '{"url":"https://hooks.example/a<b>","events":["PAYMENT_FAILED"]}',
        },
        operations.find((op) => op.operationId === 'createWebhookEndpoint'),
      ],
      [
        {
          method: 'POST',
          url: '/webhooks/endpoints',
          headers: { 'content-type': 'application/json' },
          body: '{"url":"https://hooks.example/a","events":["PAYMENT_FAILED"],"description":"x\\ud800"}',
        },
        operations.find((op) => op.operationId === 'createWebhookEndpoint'),
      ],
      [
        {
          method: 'POST',
          url: '/pg/orders/OD0000000000000001/documents/',
          headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
          body: '--XyZ\r\nContent-Disposition: form-data; name="document_type"\r\n\r\ninvoice\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n',
        },
        upload,
      ],
    ];
    for (const [r, route] of cases) await differential('paygate', r, route);
  });
});

describe('request validation, parameter styles (test/fixtures/params): precompiled engine vs express-openapi-validator', () => {
  const route = (id: string) => paramsOperations.find((op) => op.operationId === id)!;
  const get = (url: string, headers: Record<string, string> = {}): Built => ({ method: 'GET', url, headers });
  it.each<[string, Built, string]>([
    ['path array (simple)', get('/items/1,2,3'), 'listItems'],
    ['path array, bad item', get('/items/1,x'), 'listItems'],
    ['form array, explode=false', get('/items/1?tags=a,b,c'), 'listItems'],
    ['form array, explode=false, one item too long', get('/items/1?tags=a,bbbbbbbbbbbb'), 'listItems'],
    ['pipeDelimited array', get('/items/1?colours=red|blue'), 'listItems'],
    ['pipeDelimited array, bad item', get('/items/1?colours=red|pink'), 'listItems'],
    ['form array, exploded, repeated', get('/items/1?sizes=1&sizes=2'), 'listItems'],
    ['form array, exploded, single', get('/items/1?sizes=3'), 'listItems'],
    ['form array, exploded, not integers', get('/items/1?sizes=x'), 'listItems'],
    ['deepObject', get('/items/1?filter[status]=open&filter[min]=3'), 'listItems'],
    ['deepObject, encoded brackets', get('/items/1?filter%5Bstatus%5D=closed'), 'listItems'],
    ['deepObject, unknown property', get('/items/1?filter[colour]=red&filter[status]=open'), 'listItems'],
    ['form object, explode=false', get('/items/1?point=x,1,y,2&filter[min]=1'), 'listItems'],
    ['form object, odd items', get('/items/1?point=x,1,y&filter[min]=1'), 'listItems'],
    ['JSON content', get(`/items/1?meta=${encodeURIComponent('{"a":1}')}&filter[min]=1`), 'listItems'],
    ['JSON content, not JSON', get('/items/1?meta=nope&filter[min]=1'), 'listItems'],
    ['JSON content, missing property', get(`/items/1?meta=${encodeURIComponent('{"b":1}')}&filter[min]=1`), 'listItems'],
    ['allowEmptyValue', get('/items/1?note=&filter[min]=1'), 'listItems'],
    ['empty value', get('/items/1?tags=&filter[min]=1'), 'listItems'],
    ['allowReserved', get('/items/1?path=a/b:c&filter[min]=1'), 'listItems'],
    ['reserved characters', get('/items/1?sizes=a/b&filter[min]=1'), 'listItems'],
    ['commas in a non-exploded value', get('/items/1?colours=red,blue&filter[min]=1'), 'listItems'],
    ['unknown parameter', get('/items/1?colour=red&filter[min]=1'), 'listItems'],
    ['value-less key, exploded', get('/items/1?sizes&filter[min]=1'), 'listItems'],
    ['value-less key, allowEmptyValue', get('/items/1?note&filter[min]=1'), 'listItems'],
    ['value-less key, non-exploded', get('/items/1?tags&filter[min]=1'), 'listItems'],
    ['bracket key on a form array', get('/items/1?sizes[0]=1&filter[min]=1'), 'listItems'],
    ['header array (simple)', get('/traces', { 'X-Trace-Ids': 'abc,def' }), 'listTraces'],
    ['header array, bad item', get('/traces', { 'X-Trace-Ids': 'abc,D3F' }), 'listTraces'],
    [
      'optional body, sent',
      { method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' },
      'createNote',
    ],
    [
      'optional body, invalid',
      { method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{"text":1}' },
      'createNote',
    ],
    ['optional body, not sent', { method: 'POST', url: '/notes', headers: {} }, 'createNote'],
    [
      'optional body, other media type',
      { method: 'POST', url: '/notes', headers: { 'content-type': 'text/plain' }, body: 'hi' },
      'createNote',
    ],
  ])('%s', async (_name, r, id) => {
    await differential('params', r, route(id));
  });

  it('observes every documented difference (the list is not stale)', () => {
    expect([...observed].sort()).toEqual(DIFFERENCES.map((d) => d.id).sort());
  });
});

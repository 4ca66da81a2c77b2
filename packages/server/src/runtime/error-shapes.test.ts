import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { reportNeutrallyFilled, reportUnfillable, SpecErrorShapes, type RuntimeError } from './error-shapes.js';
import type { ApiDocument } from './types.js';

/** A one-operation document (`GET /things`, `listThings`) with these responses besides its 200. */
function documentWithResponses(responses: Record<string, unknown>): ApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' }, ...responses } } } },
    components: {
      schemas: {
        Detail: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  };
}

/** A one-operation document whose 400 declares `schema` as `mediaType` (plus `extra` responses). */
function documentWith(schema: unknown, mediaType = 'application/json', extra: Record<string, unknown> = {}): ApiDocument {
  return documentWithResponses({ '400': { description: 'bad', content: { [mediaType]: { schema } } }, ...extra });
}

const operation = { operationId: 'listThings', path: '/things', method: 'get' as const };
const NOW = new Date('2026-01-02T03:04:05.000Z');
/** A validation failure of two fields, as the request validator reports it. */
const validation: RuntimeError = {
  status: 400,
  code: 'ERR_VALIDATION_400',
  message: 'Request validation failed',
  details: { limit: 'must be <= 100', name: "must have required property 'name'" },
  problems: [
    { in: 'query', field: 'limit', path: ['limit'], reason: 'must be <= 100' },
    { in: 'body', field: 'name', path: ['name'], reason: "must have required property 'name'" },
  ],
  headers: {},
  internal: false,
  kind: 'validation',
};
const FIRST_FIELD = 'query.limit: must be <= 100 (and 1 more)';

const errMessage = { type: 'object', required: ['status', 'err'], properties: { status: { type: 'number' }, err: { type: 'string' } } };

/** Validates a filled body against the schema it was filled from (in the document, for its `$ref`s). */
function validates(document: ApiDocument, body: unknown): string | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(document as object, 'doc');
  const validate = ajv.compile({ $ref: 'doc#/paths/~1things/get/responses/400/content/application~1json/schema' });
  return validate(body) ? undefined : ajv.errorsText(validate.errors);
}

describe('SpecErrorShapes: whatever the declared schema has room for, filled (D119, D215, D216)', () => {
  it.each([
    {
      name: 'flat {code, message}: the first failing field in the message',
      schema: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
      body: { code: 'invalid_request', message: FIRST_FIELD },
    },
    { name: "Figma's {status, err}", schema: errMessage, body: { status: 400, err: FIRST_FIELD } },
    {
      name: "Figma's allOf pinning the status to 400",
      schema: { allOf: [errMessage, { type: 'object', required: ['status'], properties: { status: { type: 'number', enum: [400] } } }] },
      body: { status: 400, err: FIRST_FIELD },
    },
    {
      name: "Figma's {error: true, status, message}",
      schema: {
        type: 'object',
        required: ['error', 'status', 'message'],
        properties: { error: { type: 'boolean', enum: [true] }, status: { type: 'number' }, message: { type: 'string' } },
      },
      body: { error: true, status: 400, message: FIRST_FIELD },
    },
    {
      name: 'a boolean error flag without a constant',
      schema: { type: 'object', required: ['error', 'msg'], properties: { error: { type: 'boolean' }, msg: { type: 'string' } } },
      body: { error: true, msg: FIRST_FIELD },
    },
    {
      name: 'nested {error: {message, code, status}} (Stripe/OpenAI style)',
      schema: {
        type: 'object',
        required: ['error'],
        properties: {
          error: { type: 'object', properties: { message: { type: 'string' }, code: { type: 'string' }, status: { type: 'integer' } } },
        },
      },
      body: { error: { message: FIRST_FIELD, code: 'invalid_request', status: 400 } },
    },
    {
      name: 'details as an object map: every field there, the message left as it is',
      schema: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      body: { code: 'invalid_request', message: 'Request validation failed', details: validation.details },
    },
    {
      name: 'errors as an array of {field, message} ($ref items)',
      schema: {
        type: 'object',
        properties: { message: { type: 'string' }, errors: { type: 'array', items: { $ref: '#/components/schemas/Detail' } } },
      },
      body: {
        message: 'Request validation failed',
        errors: [
          { field: 'query.limit', message: 'must be <= 100' },
          { field: 'body.name', message: "must have required property 'name'" },
        ],
      },
    },
    {
      name: "FastAPI's {detail: [{loc, msg, type}]}",
      schema: {
        type: 'object',
        properties: {
          detail: {
            type: 'array',
            items: {
              type: 'object',
              required: ['loc', 'msg', 'type'],
              properties: {
                loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
                msg: { type: 'string' },
                type: { type: 'string' },
              },
            },
          },
        },
      },
      body: {
        detail: [
          { loc: ['query', 'limit'], msg: 'must be <= 100', type: 'invalid_request' },
          { loc: ['body', 'name'], msg: "must have required property 'name'", type: 'invalid_request' },
        ],
      },
    },
    {
      name: 'a list of {in, name, reason} beside problem-style members',
      schema: {
        type: 'object',
        required: ['type', 'title', 'status'],
        properties: {
          type: { type: 'string', format: 'uri-reference' },
          title: { type: 'string' },
          status: { type: 'integer' },
          detail: { type: 'string' },
          invalid_params: {
            type: 'array',
            items: { type: 'object', properties: { in: { type: 'string' }, name: { type: 'string' }, reason: { type: 'string' } } },
          },
        },
      },
      body: {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'Request validation failed',
        invalid_params: [
          { in: 'query', name: 'limit', reason: 'must be <= 100' },
          { in: 'body', name: 'name', reason: "must have required property 'name'" },
        ],
      },
    },
    {
      name: 'OAuth style {error, error_description}',
      schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
      body: { error: 'invalid_request', error_description: FIRST_FIELD },
    },
    {
      name: 'a required const and an allOf',
      schema: {
        allOf: [
          { type: 'object', required: ['ok'], properties: { ok: { const: false } } },
          { type: 'object', properties: { message: { type: 'string' } } },
        ],
      },
      body: { ok: false, message: FIRST_FIELD },
    },
    {
      name: "x-paygate-error pointers and codes (Paygate's envelope)",
      schema: {
        type: 'object',
        required: ['success', 'error'],
        'x-paygate-error': {
          code: '/error/code',
          message: '/error/message',
          details: '/error/details',
          codes: { validation: 'ERR_VALIDATION_400' },
        },
        properties: { success: { type: 'boolean', const: false }, message: { type: 'string' }, error: { type: 'object' } },
      },
      body: { success: false, error: { code: 'ERR_VALIDATION_400', message: 'Request validation failed', details: validation.details } },
    },
    { name: 'a plain string', schema: { type: 'string' }, body: FIRST_FIELD },
    {
      name: 'an empty schema: the generic {code, message, details}',
      schema: {},
      body: { code: 'invalid_request', message: 'Request validation failed', details: validation.details },
    },
    {
      name: 'an open object without a place for the message gets code and message',
      schema: { type: 'object', properties: { hint: { type: 'integer' } } },
      body: { code: 'invalid_request', message: 'Request validation failed', details: validation.details },
    },
    {
      name: "Spring Boot's {timestamp, status, error, message, path}",
      schema: {
        type: 'object',
        required: ['timestamp', 'status', 'error', 'message', 'path'],
        properties: {
          timestamp: { type: 'string', format: 'date-time' },
          status: { type: 'integer' },
          error: { type: 'string' },
          message: { type: 'string' },
          path: { type: 'string' },
        },
      },
      body: { timestamp: NOW.toISOString(), status: 400, error: 'invalid_request', message: FIRST_FIELD, path: '/things' },
    },
    {
      name: "GitHub's {message, documentation_url}: a required string of unknown meaning is empty",
      schema: {
        type: 'object',
        required: ['message', 'documentation_url'],
        properties: { message: { type: 'string' }, documentation_url: { type: 'string' } },
      },
      body: { message: FIRST_FIELD, documentation_url: '' },
    },
    {
      name: 'a code enum: the value that says the same',
      schema: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: ['UNAUTHENTICATED', 'INVALID_ARGUMENT', 'NOT_FOUND'] }, message: { type: 'string' } },
      },
      body: { code: 'INVALID_ARGUMENT', message: FIRST_FIELD },
    },
    {
      name: "JSend's {status: 'fail' | 'error', message}",
      schema: {
        type: 'object',
        required: ['status', 'message'],
        properties: { status: { type: 'string', enum: ['fail', 'error'] }, message: { type: 'string' } },
      },
      body: { status: 'fail', message: FIRST_FIELD },
    },
    {
      name: "Cloudflare's {success: false, errors: [{code, message}], messages: [], result: null}",
      schema: {
        type: 'object',
        required: ['success', 'errors', 'messages', 'result'],
        properties: {
          success: { type: 'boolean', enum: [false] },
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'integer' }, message: { type: 'string' } },
            },
          },
          messages: { type: 'array', items: { type: 'string' } },
          result: { type: 'null' },
        },
      },
      body: {
        success: false,
        // no place in the item for the field: the message names it (D422 each list item of errors names its field)
        errors: [
          { code: 400, message: 'query.limit: must be <= 100' },
          { code: 400, message: "body.name: must have required property 'name'" },
        ],
        messages: [],
        result: null,
      },
    },
    {
      name: 'a list of errors as the whole body',
      schema: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } },
      body: [
        { code: 'invalid_request', message: 'query.limit: must be <= 100' },
        { code: 'invalid_request', message: "body.name: must have required property 'name'" },
      ],
    },
    {
      name: 'oneOf: the first alternative that says what went wrong (one that only fits is the last resort)',
      schema: {
        oneOf: [
          { type: 'object', required: ['retry_in'], properties: { retry_in: { type: 'integer' } }, additionalProperties: false },
          errMessage,
        ],
      },
      body: { status: 400, err: FIRST_FIELD },
    },
  ])('$name', ({ schema, body }) => {
    const document = documentWith(schema);
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(validation, operation, { path: '/things' });
    expect(response).toEqual({ status: 400, contentType: 'application/json', body, headers: {} });
    expect(validates(document, response.body)).toBeUndefined();
  });

  const stripeError = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type'],
        properties: {
          type: { type: 'string', enum: ['api_error', 'card_error', 'idempotency_error', 'invalid_request_error'] },
          code: { type: 'string', maxLength: 5000 },
          message: { type: 'string', maxLength: 40000 },
        },
      },
    },
  };
  const answer = (kind: RuntimeError['kind'], status: number, message: string, headers: Record<string, string> = {}): RuntimeError => ({
    status,
    code: 'x',
    message,
    headers,
    internal: status >= 500,
    kind,
  });
  it.each([
    {
      name: "Stripe's type enum: a server error is api_error",
      schema: stripeError,
      error: answer('internal', 500, 'Internal server error'),
      body: { error: { type: 'api_error', code: 'internal_error', message: 'Internal server error' } },
    },
    {
      name: "Stripe's type enum: a credential refusal is a client error (invalid_request_error)",
      schema: stripeError,
      error: answer('auth', 401, 'Missing credentials'),
      body: { error: { type: 'invalid_request_error', code: 'unauthorized', message: 'Missing credentials' } },
    },
    {
      name: "OpenAI's nullable code written as anyOf",
      schema: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { anyOf: [{ type: 'string' }, { type: 'null' }] }, message: { type: 'string' } },
      },
      error: answer('notImplemented', 501, 'createThing is not implemented yet'),
      body: { code: 'not_implemented', message: 'createThing is not implemented yet' },
    },
    {
      name: "Discord's retry_after from the answer's Retry-After",
      schema: {
        type: 'object',
        required: ['message', 'retry_after'],
        properties: { message: { type: 'string' }, retry_after: { type: 'number' } },
      },
      error: answer('rateLimited', 429, 'Too many requests', { 'Retry-After': '2' }),
      body: { message: 'Too many requests', retry_after: 2 },
    },
    {
      name: 'a request id: a fresh UUID of this answer',
      schema: {
        type: 'object',
        required: ['message', 'request_id'],
        properties: { message: { type: 'string' }, request_id: { type: 'string', format: 'uuid' } },
      },
      error: answer('notFound', 404, 'No such route'),
      body: {
        message: 'No such route',
        request_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      },
    },
  ])('$name', ({ schema, error, body }) => {
    const document = documentWith(schema, 'application/json', {
      default: { description: 'e', content: { 'application/json': { schema } } },
    });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(error, operation);
    expect(response).toEqual({ status: error.status, contentType: 'application/json', body, headers: error.headers });
    expect(validates(document, response.body)).toBeUndefined();
  });

  it("a handler's own HttpError code is kept; only the runtime's own answers are renamed", () => {
    const shapes = new SpecErrorShapes(
      documentWith({ type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }),
    );
    const own: RuntimeError = { status: 400, code: 'shelf_full', message: 'No room', headers: {}, internal: false };
    expect(shapes.respond(own, operation).body).toEqual({ code: 'shelf_full', message: 'No room' });
  });

  it('an answer that is not a validation failure keeps its message and names the first field in parentheses', () => {
    const shapes = new SpecErrorShapes(documentWith(errMessage, 'application/json', { '415': { $ref: '#/components/responses/E' } }));
    const unsupported: RuntimeError = {
      status: 400,
      code: 'ERR_REQUEST_415',
      message: 'Unsupported content type',
      details: { 'content-type': 'must be one of: application/json' },
      problems: [{ in: 'header', field: 'content-type', path: ['content-type'], reason: 'must be one of: application/json' }],
      headers: {},
      internal: false,
      kind: 'unsupportedMediaType',
    };
    expect(shapes.respond(unsupported, operation).body).toEqual({
      status: 400,
      err: 'Unsupported content type (header.content-type: must be one of: application/json)',
    });
  });

  it('uses the NXX range, then default, then the schema the document declares most often (unknown routes)', () => {
    const error = { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } };
    const shapes = new SpecErrorShapes(
      documentWith({ type: 'string' }, 'application/json', {
        '4XX': { description: 'range', content: { 'application/json': { schema: error } } },
      }),
    );
    const notFound: RuntimeError = { status: 404, code: 'x', message: 'No such route', headers: {}, internal: false, kind: 'notFound' };
    expect(shapes.respond(notFound, operation).body).toEqual({ code: 'not_found', message: 'No such route' });
    expect(shapes.respond(notFound).body).toEqual({ code: 'not_found', message: 'No such route' });
    const internal: RuntimeError = {
      status: 500,
      code: 'x',
      message: 'Internal server error',
      headers: {},
      internal: true,
      kind: 'internal',
    };
    // no 5XX / default declared: the error schema declared most often (the 400's string and the 4XX object tie: the first seen wins)
    expect(shapes.respond(internal)).toEqual({ status: 500, contentType: 'application/json', body: 'Internal server error', headers: {} });
  });

  it("fills a status the schema pins to another one with the answer's own status (a shared schema)", () => {
    const pinned = { allOf: [errMessage, { type: 'object', properties: { status: { type: 'number', enum: [403] } } }] };
    const shapes = new SpecErrorShapes(documentWith(pinned));
    const tooLarge: RuntimeError = {
      status: 413,
      code: 'x',
      message: 'Request body too large',
      headers: {},
      internal: false,
      kind: 'tooLarge',
    };
    expect(shapes.respond(tooLarge, operation).body).toEqual({ status: 413, err: 'Request body too large' });
  });

  it.each([
    ['no error response at all', documentWithResponses({})],
    ['a declared problem+json', documentWith({ type: 'object' }, 'application/problem+json')],
    [
      // a required number of unknown meaning is given a neutral value now (D466 neutral values for required error
      // properties of unknown meaning): only a value nothing can be made for refuses
      'a schema with a required string whose pattern no value the runtime makes fits',
      documentWith({ type: 'object', required: ['ref'], properties: { ref: { type: 'string', pattern: '^TR-[A-Z]{3}$' } } }),
    ],
  ])('answers RFC 9457 application/problem+json for %s', (_name, document) => {
    const shapes = new SpecErrorShapes(document);
    const response = shapes.respond(validation, operation);
    expect(response.contentType).toBe('application/problem+json');
    expect(response.body).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'Request validation failed',
      code: 'invalid_request',
      errors: [
        { field: 'limit', detail: 'must be <= 100' },
        { field: 'name', detail: "must have required property 'name'" },
      ],
    });
  });
});

describe('what cannot be filled, per operation and status (D215)', () => {
  const at = '#/paths/~1things/get/responses/400/content/application~1json/schema';
  it.each([
    {
      name: 'a required string with a pattern no value the runtime makes fits, and no value of its own',
      schema: {
        type: 'object',
        required: ['checksum', 'message'],
        properties: { checksum: { type: 'string', pattern: '^[G-Z]{32}$' }, message: { type: 'string' } },
      },
      reason: "required property 'checksum' has no meaning the runtime knows",
    },
    {
      name: 'a required number whose bounds leave no value',
      schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 5, maximum: 4 } } },
      reason: "required property 'n' has no meaning the runtime knows",
    },
    {
      name: 'a required id whose pattern no opaque id fits',
      schema: {
        type: 'object',
        required: ['traceId', 'message'],
        properties: { traceId: { type: 'string', pattern: '^TR-[A-Z]{3}$' }, message: { type: 'string' } },
      },
      reason: "required property 'traceId' has no meaning the runtime knows",
    },
    {
      name: 'an error item with a required string no value the runtime makes fits',
      schema: {
        type: 'object',
        required: ['errors'],
        properties: {
          errors: {
            type: 'array',
            minItems: 1,
            items: { type: 'object', required: ['line'], properties: { line: { type: 'string', pattern: '^L[A-Z]$' } } },
          },
        },
        additionalProperties: false,
      },
      reason: "property 'errors': an error item's required property 'line' has no meaning the runtime knows",
    },
  ])('$name: named with its operation, status and schema', ({ schema, reason }) => {
    const shapes = new SpecErrorShapes(documentWith(schema));
    expect(shapes.check()).toEqual([
      { operationId: 'listThings', status: '400', schema: at, mediaType: 'application/json', reason, runtime: true },
    ]);
    expect(shapes.respond(validation, operation).contentType).toBe('application/problem+json');
  });

  it('a $ref schema is named by its $ref; a status the runtime never answers by itself is not fatal', () => {
    const document = documentWith({ $ref: '#/components/schemas/Odd' }, 'application/json', {
      '409': { description: 'conflict', content: { 'application/json': { schema: { $ref: '#/components/schemas/Odd' } } } },
    });
    (document.components as { schemas: Record<string, unknown> }).schemas.Odd = {
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'string', pattern: '^[A-Z]{2}-[0-9]$' } },
    };
    const problems = new SpecErrorShapes(document).check();
    expect(problems.map((p) => [p.status, p.schema, p.runtime])).toEqual([
      ['400', '#/components/schemas/Odd', true],
      ['409', '#/components/schemas/Odd', false],
    ]);
  });

  it('refuses to start naming each operation and status in one block, or warns once with an errorMapper', () => {
    const found = new SpecErrorShapes(
      documentWith({ type: 'object', required: ['n'], properties: { n: { type: 'string', pattern: '^[A-Z]{2}-[0-9]$' } } }),
    ).check();
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_o: object, m?: string) => void warnings.push(m ?? ''), error: () => undefined };
    expect(() => reportUnfillable(found, false, logger)).toThrow(
      /cannot fill 1 declared error schema\(s\), 1 of them for answers it gives on its own.*\n {2}#\/paths\/~1things\/get\/responses\/400\/content\/application~1json\/schema \(application\/json\): required property 'n' has no meaning the runtime knows; declared by listThings 400\nPass `errorMapper`/,
    );
    reportUnfillable(found, true, logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/your errorMapper answers them.*\n.*declared by listThings 400$/);
  });
});

describe('required properties of unknown meaning given neutral values: one start-up warning (D466)', () => {
  it('names the schema, the properties and every operation and status, and points to errorMapper', () => {
    const document = documentWith({ $ref: '#/components/schemas/Counted' }, 'application/json', {
      '409': { description: 'conflict', content: { 'application/json': { schema: { $ref: '#/components/schemas/Counted' } } } },
    });
    (document.components as { schemas: Record<string, unknown> }).schemas.Counted = {
      type: 'object',
      required: ['message', 'count', 'meta'],
      properties: {
        message: { type: 'string' },
        count: { type: 'integer' },
        meta: { type: 'object', required: ['level'], properties: { level: { type: 'number', minimum: 1 } } },
      },
    };
    const shapes = new SpecErrorShapes(document);
    expect(shapes.check()).toEqual([]);
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_o: object, m?: string) => void warnings.push(m ?? ''), error: () => undefined };
    reportNeutrallyFilled(shapes.neutrallyFilled(), logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      "#/components/schemas/Counted (application/json): 'count', 'meta.level'; declared by listThings 400, listThings 409",
    );
    expect(warnings[0]).toMatch(/Pass `errorMapper` to createApiApp to give them their meaning\.$/);
    expect(shapes.respond(validation, operation).body).toMatchObject({ count: 0, meta: { level: 1 } });
  });

  it('says nothing when every property has a meaning', () => {
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_o: object, m?: string) => void warnings.push(m ?? ''), error: () => undefined };
    reportNeutrallyFilled(new SpecErrorShapes(documentWith(errMessage)).neutrallyFilled(), logger);
    expect(warnings).toEqual([]);
  });
});

describe("the document's error shape for an answer outside any operation is a structured one (D458)", () => {
  const message = { type: 'object', properties: { message: { type: 'string' } } };
  const notFound: RuntimeError = { status: 404, code: 'not_found', message: 'No route', headers: {}, internal: false, kind: 'notFound' };
  it.each([
    { name: 'an image declaration is not the API error shape', mediaType: 'image/png', contentType: 'application/problem+json' },
    { name: 'an octet-stream one neither', mediaType: 'application/octet-stream', contentType: 'application/problem+json' },
    { name: 'an XML one is', mediaType: 'application/xml', contentType: 'application/xml' },
    { name: 'a JSON one is', mediaType: 'application/json', contentType: 'application/json' },
  ])('$name', ({ mediaType, contentType }) => {
    const document = documentWithResponses({ '404': { description: 'e', content: { [mediaType]: { schema: message } } } });
    expect(new SpecErrorShapes(document).respond(notFound).contentType).toBe(contentType);
  });
});

describe('what D458 and D459 report at start-up: warnings, never a refusal', () => {
  // a required string whose pattern no neutral value fits (D466 fills any other required property of unknown meaning)
  const odd = { type: 'object', required: ['n'], properties: { n: { type: 'string', pattern: '^[A-Z]{2}-[0-9]$' } } };
  const same = { type: 'object', required: ['title'], properties: { title: { type: 'string' } } };
  it.each([
    {
      name: 'D458 an unfillable schema under image/png: named, answered with problem+json as before',
      document: documentWith(odd, 'image/png'),
      warning: /cannot be filled by the scaffold.*\n.*\(image\/png\): .*'n'.*; declared by listThings 400$/,
    },
    {
      name: 'D459 a oneOf whose alternatives accept the same bodies: one warning naming the operations',
      document: documentWith({ oneOf: [same, same] }),
      warning:
        /1 declared error schema\(s\) whose oneOf no honest answer matches exactly once.*\n.*alternatives 0, 1 accept the same bodies\); declared by listThings 400$/,
    },
  ])('$name', ({ document, warning }) => {
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (_o: object, m?: string) => void warnings.push(m ?? ''), error: () => undefined };
    const found = new SpecErrorShapes(document).check();
    expect(found.every((p) => !p.runtime)).toBe(true);
    reportUnfillable(found, false, logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(warning);
  });
});

describe('the status of the runtime answers where the operation declares only another one of the same meaning (D217)', () => {
  const error = { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } };
  const only = (status: string): ApiDocument =>
    documentWithResponses({ [status]: { description: 'e', content: { 'application/json': { schema: error } } } });
  const auth: RuntimeError = { status: 401, code: 'x', message: 'Missing credentials', headers: {}, internal: false, kind: 'auth' };
  it.each([
    { name: 'validation where only 422 is declared', declared: '422', error: validation, status: 422 },
    { name: 'validation where 400 is declared', declared: '400', error: validation, status: 400 },
    { name: 'validation where a 4XX range is declared', declared: '4XX', error: validation, status: 400 },
    { name: 'a credential refusal where only 403 is declared', declared: '403', error: auth, status: 403 },
    { name: 'a credential refusal where 401 is declared', declared: '401', error: auth, status: 401 },
    { name: "a handler's own 401 is left as it is", declared: '403', error: { ...auth, kind: undefined }, status: 401 },
  ])('$name: $status', ({ declared, error: e, status }) => {
    const response = new SpecErrorShapes(only(declared)).respond(e, operation);
    expect(response.status).toBe(status);
    expect(response.contentType).toBe('application/json');
  });
});

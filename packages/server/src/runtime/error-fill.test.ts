/**
 * The error fill on small specs of other vendors' styles (D420-D424), one table per mechanism: each answer's exact
 * body, and that it validates against the schema the operation declares (Ajv, formats on).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { errorHandler } from './lifecycle/error.js';
import { SpecErrorShapes, type RuntimeError } from './error-shapes.js';
import { HttpError, RUNTIME_ERROR_CODES, VALIDATION_MESSAGE } from './errors.js';
import type { ApiDocument, Logger, OperationRoute } from './types.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const NOW = new Date('2026-01-02T03:04:05.000Z');
const operation = { operationId: 'listThings', path: '/things', method: 'get' as const };

/** One operation, `GET /things`, with these error responses. */
function documentOf(responses: Record<string, unknown>, schemas: Record<string, unknown> = {}): ApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' }, ...responses } } } },
    components: { schemas },
  };
}
const json = (schema: unknown, mediaType = 'application/json') => ({ description: 'e', content: { [mediaType]: { schema } } });

/** Errors of the body the declared schema finds (undefined when it validates). */
function invalidity(document: ApiDocument, status: string, mediaType: string, body: unknown): string | undefined {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema(document as object, 'doc');
  const pointer = `doc#/paths/~1things/get/responses/${status}/content/${mediaType.replace(/\//g, '~1')}/schema`;
  const validate = ajv.compile({ $ref: pointer });
  return validate(body) ? undefined : ajv.errorsText(validate.errors);
}

const problems = [
  { in: 'query', field: 'limit', path: ['limit'], reason: 'must be <= 100' },
  { in: 'body', field: 'items[0].name', path: ['items', 0, 'name'], reason: 'must NOT have more than 3 characters' },
] as const;
const validation: RuntimeError = {
  status: 400,
  code: RUNTIME_ERROR_CODES.validation,
  message: VALIDATION_MESSAGE,
  details: { limit: 'must be <= 100', 'items[0].name': 'must NOT have more than 3 characters' },
  problems,
  headers: {},
  internal: false,
  kind: 'validation',
};
const oneProblem: RuntimeError = { ...validation, details: { limit: 'must be <= 100' }, problems: [problems[0]] };
const wholeBody: RuntimeError = {
  ...validation,
  details: { body: 'must be object' },
  problems: [{ in: 'body', field: 'body', path: [], reason: 'must be object' }],
};
const auth: RuntimeError = {
  status: 401,
  code: RUNTIME_ERROR_CODES.auth,
  message: 'Missing credentials',
  headers: {},
  internal: false,
  kind: 'auth',
};
const notFound: RuntimeError = { ...auth, status: 404, code: RUNTIME_ERROR_CODES.notFound, message: 'No such route', kind: 'notFound' };
const notImplemented: RuntimeError = {
  ...auth,
  status: 501,
  code: RUNTIME_ERROR_CODES.notImplemented,
  message: 'listThings is not implemented yet',
  kind: 'notImplemented',
};

describe('an enum property is filled from its values (D420)', () => {
  const apisetu = {
    type: 'object',
    properties: {
      error: { type: 'string', enum: ['invalid parameter', 'missing parameter', 'invalid_authentication', 'record_not_found'] },
      errorDescription: { type: 'string', enum: ['Bad request', 'Please provide all mandatory parameters.'] },
    },
  };
  const oauth = {
    type: 'object',
    required: ['error'],
    properties: {
      error: { type: 'string', enum: ['invalid_request', 'unauthorized', 'not_found'] },
      error_description: { type: 'string' },
    },
  };
  it.each([
    {
      name: "API Setu's two enums: the values that say the answer (`error` is its code), the message beside them (the schema is open)",
      schema: apisetu,
      error: validation,
      body: {
        error: 'invalid parameter',
        errorDescription: 'Bad request',
        message: VALIDATION_MESSAGE,
        details: validation.details,
      },
    },
    {
      name: "API Setu's 401: the authentication value; an enum with no value for it is left out (optional)",
      schema: apisetu,
      error: auth,
      body: { error: 'invalid_authentication', message: 'Missing credentials' },
    },
    {
      name: "API Setu's 404",
      schema: apisetu,
      error: notFound,
      body: { error: 'record_not_found', message: 'No such route' },
    },
    {
      name: 'OAuth style {error: enum, error_description}: the code for the answer, the field and reason in the text',
      schema: oauth,
      error: oneProblem,
      body: { error: 'invalid_request', error_description: 'query.limit: must be <= 100' },
    },
    { name: 'OAuth style, 401', schema: oauth, error: auth, body: { error: 'unauthorized', error_description: 'Missing credentials' } },
    {
      name: 'OAuth style, a required enum without a value for the answer: its first value',
      schema: oauth,
      error: notImplemented,
      body: { error: 'invalid_request', error_description: 'listThings is not implemented yet' },
    },
    {
      name: 'a required code enum of business codes: the first value, the message where the schema has a free string',
      schema: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: { code: { type: 'string', enum: ['card_declined', 'expired_card'] }, message: { type: 'string' } },
      },
      error: oneProblem,
      body: { code: 'card_declined', message: 'query.limit: must be <= 100' },
    },
    {
      name: 'a numeric code enum: the status, else a value of its class',
      schema: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'integer', enum: [400, 401, 500] }, message: { type: 'string' } },
      },
      error: notImplemented,
      body: { code: 500, message: 'listThings is not implemented yet' },
    },
    {
      name: "a message enum of fixed texts (Xero's problem+json `type` enum and a `title`)",
      schema: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['https://errors.example.com/unauthorised', 'https://errors.example.com/invalid-request'] },
          title: { type: 'string', maxLength: 255 },
          status: { type: 'integer' },
          detail: { type: 'string', maxLength: 255 },
        },
      },
      mediaType: 'application/problem+json',
      error: auth,
      body: { type: 'https://errors.example.com/unauthorised', title: 'Unauthorized', status: 401, detail: 'Missing credentials' },
    },
    {
      name: 'a JSend string status enum without an error value: the one that says the status',
      schema: {
        type: 'object',
        required: ['status', 'message'],
        properties: { status: { type: 'string', enum: ['ok', 'unauthorized'] }, message: { type: 'string' } },
      },
      error: auth,
      body: { status: 'unauthorized', message: 'Missing credentials' },
    },
  ])('$name', ({ schema, error, body, mediaType = 'application/json' }) => {
    const status = String(error.status);
    const document = documentOf({ [status]: json(schema, mediaType) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(error, operation);
    expect(response).toEqual({ status: error.status, contentType: mediaType, body, headers: {} });
    expect(invalidity(document, status, mediaType, response.body)).toBeUndefined();
  });
});

describe('a status declared without content is answered without a body (D423)', () => {
  const errorSchema = {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { type: 'string' }, message: { type: 'string' } },
  };
  it.each([
    { name: '400 declared with a description only', responses: { '400': { description: 'Bad request' } }, error: validation },
    { name: '401 declared with an empty content map', responses: { '401': { description: 'No', content: {} } }, error: auth },
    { name: 'a 4XX range without content', responses: { '4XX': { description: 'Client error' } }, error: validation },
    {
      name: 'default without content, for a 501 the operation does not list',
      responses: { default: { description: 'Error' } },
      error: notImplemented,
    },
    {
      name: 'a $ref to a response without content',
      responses: { '401': { $ref: '#/components/responses/Unauthorized' } },
      error: auth,
    },
  ])('$name', ({ responses, error }) => {
    const document = documentOf({ ...responses, '409': json(errorSchema) });
    (document.components as Record<string, unknown>).responses = { Unauthorized: { description: 'Unauthorized' } };
    const response = new SpecErrorShapes(document, () => NOW).respond(error, operation);
    expect(response).toEqual({ status: error.status, contentType: null, body: undefined, headers: {} });
  });

  it('a status the operation does not declare keeps the error schema the document declares', () => {
    const document = documentOf({ '400': { description: 'Bad request' }, '409': json(errorSchema) });
    const response = new SpecErrorShapes(document, () => NOW).respond(auth, operation);
    expect(response).toEqual({
      status: 401,
      contentType: 'application/json',
      body: { code: 'unauthorized', message: 'Missing credentials' },
      headers: {},
    });
  });
});

describe('each item of a list of errors names its field (D422)', () => {
  const amadeus = {
    type: 'object',
    required: ['errors'],
    properties: {
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            status: { type: 'integer' },
            code: { type: 'integer', format: 'int64' },
            title: { type: 'string' },
            detail: { type: 'string' },
            source: {
              type: 'object',
              maxProperties: 1,
              properties: { parameter: { type: 'string' }, pointer: { type: 'string' } },
            },
          },
        },
      },
    },
  };
  const azure = {
    type: 'object',
    properties: {
      error: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: {
            type: 'array',
            items: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, target: { type: 'string' } } },
          },
        },
      },
    },
  };
  const ebay = {
    type: 'object',
    properties: {
      errors: {
        type: 'array',
        items: {
          type: 'object',
          properties: { errorId: { type: 'integer' }, category: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  };
  it.each([
    {
      name: 'Amadeus: a query parameter in `source.parameter`, a body field as a JSON Pointer in `source.pointer`',
      schema: amadeus,
      error: validation,
      body: {
        errors: [
          { status: 400, code: 400, title: 'must be <= 100', detail: 'must be <= 100', source: { parameter: 'limit' } },
          {
            status: 400,
            code: 400,
            title: 'must NOT have more than 3 characters',
            detail: 'must NOT have more than 3 characters',
            source: { pointer: '/items/0/name' },
          },
        ],
      },
    },
    {
      name: 'Amadeus, the whole body: no pointer to give, the message names it',
      schema: amadeus,
      error: wholeBody,
      body: { errors: [{ status: 400, code: 400, title: 'body: must be object', detail: 'body: must be object' }] },
    },
    {
      name: 'Azure: `error.details[].target`',
      schema: azure,
      error: validation,
      body: {
        error: {
          code: 'invalid_request',
          message: VALIDATION_MESSAGE,
          details: [
            { code: 'invalid_request', message: 'must be <= 100', target: 'query.limit' },
            { code: 'invalid_request', message: 'must NOT have more than 3 characters', target: 'body.items[0].name' },
          ],
        },
      },
    },
    {
      name: 'eBay: no place for the field in the item, so its message says it',
      schema: ebay,
      error: validation,
      body: {
        errors: [{ message: 'query.limit: must be <= 100' }, { message: 'body.items[0].name: must NOT have more than 3 characters' }],
      },
    },
  ])('$name', ({ schema, error, body }) => {
    const document = documentOf({ '400': json(schema) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(error, operation);
    expect(response).toEqual({ status: 400, contentType: 'application/json', body, headers: {} });
    expect(invalidity(document, '400', 'application/json', response.body)).toBeUndefined();
  });
});

describe('a required property of no meaning the runtime knows (D421)', () => {
  const vtex = {
    type: 'object',
    additionalProperties: true,
    required: ['type', 'title', 'status', 'traceId'],
    properties: {
      type: { type: 'string', enum: ['https://tools.ietf.org/html/rfc7235#section-3.1'] },
      title: { type: 'string', enum: ['Unauthorized'] },
      status: { type: 'integer', enum: [401] },
      traceId: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-00$' },
    },
  };
  it.each([
    {
      name: "VTEX's traceId with a W3C traceparent pattern: a fresh traceparent",
      schema: vtex,
      error: auth,
      body: {
        type: 'https://tools.ietf.org/html/rfc7235#section-3.1',
        title: 'Unauthorized',
        status: 401,
        traceId: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/),
        code: 'unauthorized',
        message: 'Missing credentials',
      },
    },
    {
      name: 'requestId (uuid), correlation-id (24 hex), a date-time, a date',
      schema: {
        type: 'object',
        required: ['message', 'requestId', 'correlation-id', 'occurred', 'day'],
        properties: {
          message: { type: 'string' },
          requestId: { type: 'string', format: 'uuid' },
          'correlation-id': { type: 'string', pattern: '^[0-9a-f]{24}$' },
          occurred: { type: 'string', format: 'date-time' },
          day: { type: 'string', format: 'date' },
        },
      },
      error: auth,
      body: {
        message: 'Missing credentials',
        requestId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        'correlation-id': expect.stringMatching(/^[0-9a-f]{24}$/),
        occurred: '2026-01-02T03:04:05.000Z',
        day: '2026-01-02',
      },
    },
    {
      name: 'an integer errorId within its bounds',
      schema: {
        type: 'object',
        required: ['message', 'errorId'],
        properties: { message: { type: 'string' }, errorId: { type: 'integer', minimum: 1000, maximum: 9999 } },
      },
      error: auth,
      body: { message: 'Missing credentials', errorId: expect.any(Number) },
    },
    {
      name: "the schema's own values: const, default, example, enum (the first that validates)",
      schema: {
        type: 'object',
        required: ['message', 'version', 'retryable', 'severity', 'api'],
        properties: {
          message: { type: 'string' },
          version: { type: 'string', pattern: '^v\\d+$', example: 'v2' },
          retryable: { type: 'boolean', default: false },
          severity: { type: 'integer', enum: [3, 5] },
          api: { type: 'string', minLength: 3, examples: ['x', 'things'] },
        },
      },
      error: auth,
      body: { message: 'Missing credentials', version: 'v2', retryable: false, severity: 3, api: 'things' },
    },
  ])('$name', ({ schema, error, body }) => {
    const status = String(error.status);
    const document = documentOf({ [status]: json(schema) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(error, operation);
    expect(response).toEqual({ status: error.status, contentType: 'application/json', body, headers: {} });
    expect(invalidity(document, status, 'application/json', response.body)).toBeUndefined();
  });

  it('an id is fresh for every answer', () => {
    const shapes = new SpecErrorShapes(documentOf({ '401': json(vtex) }), () => NOW);
    const ids = new Set(Array.from({ length: 5 }, () => (shapes.respond(auth, operation).body as { traceId: string }).traceId));
    expect(ids.size).toBe(5);
  });

  it('still refused when nothing can be given a value that validates, naming operation, status and schema', () => {
    const document = documentOf(
      {
        '401': json({ $ref: '#/components/schemas/Odd' }),
      },
      // a number of no known meaning gets its smallest value; a string held to a pattern has none the runtime can give
      {
        Odd: {
          type: 'object',
          required: ['traceId', 'weight'],
          properties: { traceId: { type: 'string' }, weight: { type: 'string', pattern: '^[A-Z]{3}$' } },
        },
      },
    );
    expect(new SpecErrorShapes(document, () => NOW).check()).toEqual([
      {
        operationId: 'listThings',
        status: '401',
        schema: '#/components/schemas/Odd',
        mediaType: 'application/json',
        reason: "required property 'weight' has no meaning the runtime knows",
        runtime: true,
      },
    ]);
  });
});

describe('a validation answer names the field and why in the best string the schema offers (D467)', () => {
  it.each([
    {
      name: 'a closed object whose error is a code enum: its free text (`callstack`) says it',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['ok', 'error'],
        properties: {
          ok: { type: 'boolean', enum: [false] },
          error: { type: 'string', enum: ['invalid_arg_name', 'invalid_auth'] },
          callstack: { type: 'string' },
        },
      },
      body: { ok: false, error: 'invalid_arg_name', callstack: 'query.limit: must be <= 100' },
    },
    {
      name: 'items of `{error_code, error_text}`: the text names the field',
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          validation_errors: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              properties: { error_code: { type: 'string' }, error_text: { type: 'string' } },
            },
          },
        },
      },
      body: { validation_errors: [{ error_code: 'invalid_request', error_text: 'query.limit: must be <= 100' }] },
    },
    {
      name: 'items of `{source, details}` strings: the field in source, the reason in details',
      schema: { type: 'array', items: { type: 'object', properties: { details: { type: 'string' }, source: { type: 'string' } } } },
      body: [{ source: 'query.limit', details: 'must be <= 100' }],
    },
    {
      name: 'items of `{error: {code, message}, success}`: the item error names its field',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          required: ['error', 'success'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: { code: { type: 'integer' }, message: { type: 'string' } },
            },
            success: { type: 'boolean' },
          },
        },
      },
      body: [{ error: { code: 400, message: 'query.limit: must be <= 100' }, success: false }],
    },
    {
      name: "items with their own list of `{errorMessage: {code, message}}`: each names the item's field",
      schema: {
        type: 'array',
        items: {
          type: 'object',
          required: ['errorType', 'count', 'errors'],
          properties: {
            count: { type: 'integer' },
            errorType: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  errorMessage: {
                    type: 'object',
                    required: ['code', 'message'],
                    properties: { code: { type: 'string' }, message: { type: 'string' } },
                  },
                  request: { type: 'object', properties: { id: { type: 'string' } } },
                },
              },
            },
          },
        },
      },
      body: [
        {
          count: 0,
          errorType: 'invalid_request',
          errors: [{ errorMessage: { code: 'invalid_request', message: 'query.limit: must be <= 100' } }],
        },
      ],
    },
  ])('$name', ({ schema, body }) => {
    const document = documentOf({ '400': json(schema) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(oneProblem, operation);
    expect(response).toEqual({ status: 400, contentType: 'application/json', body, headers: {} });
    expect(invalidity(document, '400', 'application/json', response.body)).toBeUndefined();
  });

  it('a schema of fixed values another operation declares for another status is not borrowed: problem+json names the field', () => {
    const document = documentOf({});
    (document.paths!['/register'] as unknown) = {
      post: {
        operationId: 'register',
        responses: { '409': json({ type: 'string', enum: ['EMAIL', 'USERNAME'] }) },
      },
    };
    const response = new SpecErrorShapes(document, () => NOW).respond(oneProblem, operation);
    expect(response.contentType).toBe('application/problem+json');
    expect(response.body).toMatchObject({ status: 400, errors: [{ field: 'limit', detail: 'must be <= 100' }] });
  });
});

describe('a required property of unknown meaning no earlier rule fills: a neutral value that validates, named at start-up (D466)', () => {
  it.each([
    {
      name: 'a count beside the message: 0',
      schema: {
        type: 'object',
        required: ['message', 'count'],
        properties: { message: { type: 'string' }, count: { type: 'integer' } },
      },
      error: oneProblem,
      body: { message: 'query.limit: must be <= 100', count: 0 },
      neutral: ['count'],
    },
    {
      name: 'a status-like number (`api-error`): the status; other numbers: the smallest value their bounds allow',
      schema: {
        type: 'object',
        required: ['api-error', 'api-error-msg', 'amount', 'ratio', 'level', 'retryable'],
        properties: {
          'api-error': { type: 'integer', format: 'int32' },
          'api-error-msg': { type: 'string' },
          amount: { type: 'integer', minimum: 3, multipleOf: 2 },
          ratio: { type: 'number', exclusiveMinimum: 0 },
          level: { type: 'integer', maximum: -2 },
          retryable: { type: 'boolean' },
        },
      },
      error: oneProblem,
      body: {
        'api-error': 400,
        'api-error-msg': '',
        amount: 4,
        ratio: 1,
        level: -2,
        retryable: false,
        code: 'invalid_request',
        message: 'Request validation failed',
        details: { limit: 'must be <= 100' },
      },
      neutral: ['api-error', 'amount', 'ratio', 'level', 'retryable'],
    },
    {
      name: 'a nested error object with a required level, beside the status',
      schema: {
        type: 'object',
        required: ['error', 'statusCode'],
        properties: {
          error: {
            type: 'object',
            required: ['level', 'message'],
            properties: { level: { type: 'integer', enum: [2, 1] }, message: { type: 'string' } },
          },
          statusCode: { type: 'integer' },
        },
      },
      error: oneProblem,
      body: { error: { level: 2, message: 'query.limit: must be <= 100' }, statusCode: 400 },
      neutral: [],
    },
    {
      name: 'a meta object of a request id and a status number (id and status, the message beside it)',
      schema: {
        type: 'object',
        required: ['meta', 'message'],
        properties: {
          meta: {
            type: 'object',
            required: ['requestId', 'status'],
            properties: { requestId: { type: 'string' }, status: { type: 'number' } },
          },
          message: { type: 'string' },
        },
      },
      error: oneProblem,
      body: { meta: { requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 400 }, message: 'query.limit: must be <= 100' },
      neutral: ['meta.status'],
    },
    {
      name: 'a required errors object with required members (no map of fields): its neutral members',
      schema: {
        type: 'object',
        required: ['Errors'],
        properties: {
          Errors: {
            type: 'object',
            required: ['Error'],
            properties: { Error: { type: 'array', items: { type: 'object', properties: { Source: { type: 'string' } } } } },
          },
        },
      },
      error: oneProblem,
      body: { Errors: { Error: [] }, code: 'invalid_request', message: 'Request validation failed', details: { limit: 'must be <= 100' } },
      neutral: ['Errors'],
    },
    {
      name: 'a list of error items with a required count: 0 in each, the field named',
      schema: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'message', 'count'],
          properties: { field: { type: 'string' }, message: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
        },
      },
      error: oneProblem,
      body: [{ field: 'query.limit', message: 'must be <= 100', count: 1 }],
      neutral: ['[].count'],
    },
    {
      name: 'strings held to a pattern or format: the first fixed placeholder that fits (a version, a lower-case name, a URI)',
      schema: {
        type: 'object',
        required: ['message', 'api_version', 'prefix', 'homepage'],
        properties: {
          message: { type: 'string' },
          api_version: { type: 'string', pattern: '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$' },
          prefix: { type: 'string', pattern: '^[a-z]([a-z]|[0-9]|_)*$' },
          homepage: { type: 'string', format: 'uri', minLength: 1 },
        },
      },
      error: oneProblem,
      body: { message: 'query.limit: must be <= 100', api_version: '0.0.0', prefix: 'unknown', homepage: 'about:blank' },
      neutral: ['api_version', 'prefix', 'homepage'],
    },
    {
      name: 'a list of numbers as the whole body: the empty list',
      schema: { type: 'array', items: { type: 'integer', format: 'int32' } },
      error: oneProblem,
      body: [],
      neutral: ['(body)'],
    },
    {
      name: 'a required list of numbers beside the message: the empty list',
      schema: {
        type: 'object',
        required: ['message', 'details'],
        properties: { message: { type: 'string' }, details: { type: 'array', items: { type: 'integer' } } },
      },
      error: oneProblem,
      body: { message: 'query.limit: must be <= 100', details: [] },
      neutral: ['details'],
    },
  ])('$name', ({ schema, error, body, neutral }) => {
    const status = String(error.status);
    const document = documentOf({ [status]: json(schema) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    expect(shapes.neutrallyFilled().flatMap((f) => f.properties)).toEqual(neutral);
    const response = shapes.respond(error, operation);
    expect(response).toEqual({ status: error.status, contentType: 'application/json', body, headers: {} });
    expect(invalidity(document, status, 'application/json', response.body)).toBeUndefined();
  });
});

describe('the media types an error answer takes (D424)', () => {
  it.each([
    {
      name: 'application/json declared without a schema: {code, message, details} as application/json (not problem+json)',
      response: { description: 'No', content: { 'application/json': {} } },
      error: oneProblem,
      contentType: 'application/json',
      body: { code: 'invalid_request', message: VALIDATION_MESSAGE, details: { limit: 'must be <= 100' } },
    },
    {
      name: 'a media range */*: answered as application/json',
      response: { description: 'No', content: { '*/*': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } },
      error: oneProblem,
      contentType: 'application/json',
      body: { message: 'query.limit: must be <= 100' },
    },
    {
      name: 'text/plain only: the message, naming the field, as text',
      response: { description: 'No', content: { 'text/plain': { schema: { type: 'string' } } } },
      error: validation,
      contentType: 'text/plain',
      body: 'query.limit: must be <= 100 (and 1 more)',
    },
    {
      name: "paypi's boolean `message`: the text goes under a name the schema leaves free",
      response: json({
        type: 'object',
        properties: { message: { type: 'boolean', default: false }, success: { type: 'boolean', default: false } },
      }),
      error: oneProblem,
      contentType: 'application/json',
      body: { success: false, code: 'invalid_request', error_message: VALIDATION_MESSAGE, details: { limit: 'must be <= 100' } },
    },
    {
      name: "text/plain with an object schema (Land Registry's, a Swagger 2 `produces`): the filled object as JSON text in it",
      response: {
        description: 'No',
        content: { 'text/plain': { schema: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } } } },
      },
      error: oneProblem,
      contentType: 'text/plain',
      body: { code: 400, message: 'query.limit: must be <= 100' },
    },
    {
      name: "ShipEngine's list items: an enum behind a one-member allOf that annotates it is filled from its values",
      response: json({
        type: 'object',
        additionalProperties: false,
        properties: {
          errors: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['error_code', 'message'],
              properties: {
                error_code: { allOf: [{ type: 'string', enum: ['unspecified', 'invalid_field_value'] }], description: 'the code' },
                message: { type: 'string', minLength: 1 },
              },
            },
          },
        },
      }),
      error: oneProblem,
      contentType: 'application/json',
      body: { errors: [{ error_code: 'invalid_field_value', message: 'query.limit: must be <= 100' }] },
    },
    {
      name: "BBC's error items: a time written as an integer, the answer's time in Unix seconds",
      response: json({
        type: 'object',
        required: ['errors'],
        properties: {
          errors: {
            type: 'array',
            items: {
              type: 'object',
              required: ['message', 'replied_at'],
              properties: { message: { type: 'string' }, replied_at: { type: 'integer' } },
            },
          },
        },
      }),
      error: oneProblem,
      contentType: 'application/json',
      body: { errors: [{ message: 'query.limit: must be <= 100', replied_at: Math.floor(NOW.getTime() / 1000) }] },
    },
    {
      name: "LUIS's undeclared properties must be objects: the message in an `error` object (Azure's convention), not beside its own fields",
      response: json({ type: 'object', properties: { errorType: { type: 'string' } }, additionalProperties: { type: 'object' } }),
      error: oneProblem,
      contentType: 'application/json',
      body: {
        errorType: 'invalid_request',
        error: { code: 'invalid_request', message: VALIDATION_MESSAGE, details: { limit: 'must be <= 100' } },
      },
    },
    {
      name: 'D458 application/octet-stream with `format: binary`: any bytes fit, the message as its UTF-8 bytes',
      response: { description: 'No', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      error: oneProblem,
      contentType: 'application/octet-stream',
      body: 'query.limit: must be <= 100',
    },
    {
      name: "D458 a nonstandard `application/text` with a string schema (searchly's): the message as text in it",
      response: { description: 'No', content: { 'application/text': { schema: { type: 'string' } } } },
      error: oneProblem,
      contentType: 'application/text',
      body: 'query.limit: must be <= 100',
    },
    {
      name: 'D458 images declared without a schema: the message in the first of them',
      response: { description: 'No', content: { 'image/png': {}, 'image/jpeg': {} } },
      error: oneProblem,
      contentType: 'image/png',
      body: 'query.limit: must be <= 100',
    },
    {
      name: 'D458 a string schema with a maxLength is not any bytes: the message cut to fit it',
      response: { description: 'No', content: { 'application/octet-stream': { schema: { type: 'string', maxLength: 10 } } } },
      error: oneProblem,
      contentType: 'application/octet-stream',
      body: 'query.lim…',
    },
    {
      name: "D458 an object schema under image/png (DocuSign's, Swagger 2's `produces` applied to errors): the filled object, written as JSON in image/png",
      response: {
        description: 'No',
        content: {
          'image/png': { schema: { type: 'object', properties: { errorCode: { type: 'string' }, message: { type: 'string' } } } },
        },
      },
      error: oneProblem,
      contentType: 'image/png',
      body: { errorCode: 'invalid_request', message: 'query.limit: must be <= 100' },
    },
    {
      name: 'D458 a binary declaration beside an object one: the one any bytes fit wins',
      response: {
        description: 'No',
        content: {
          'application/pdf': { schema: { type: 'object', properties: { message: { type: 'string' } } } },
          'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        },
      },
      error: oneProblem,
      contentType: 'application/octet-stream',
      body: 'query.limit: must be <= 100',
    },
    {
      name: 'D458 a `+json` suffix type (a vendor type) is JSON',
      response: json({ type: 'object', properties: { error: { type: 'string' } } }, 'application/vnd.waterlinked.operation_response+json'),
      error: oneProblem,
      contentType: 'application/vnd.waterlinked.operation_response+json',
      body: { error: 'query.limit: must be <= 100' },
    },
    {
      name: "D458 application/xml with an object schema (Azure's `$metadata`): the filled object as an XML document",
      response: {
        description: 'No',
        content: {
          'application/xml': {
            schema: {
              type: 'object',
              properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } } },
            },
          },
        },
      },
      error: oneProblem,
      contentType: 'application/xml',
      body: '<?xml version="1.0" encoding="UTF-8"?>\n<error><error><code>invalid_request</code><message>query.limit: must be &lt;= 100</message></error></error>',
    },
    {
      name: "D458 text/xml with an `xml` object (NPR's VAST errors): an attribute, unwrapped items, the root's own name",
      response: {
        description: 'No',
        content: {
          'text/xml': {
            schema: {
              type: 'object',
              xml: { name: 'VAST' },
              required: ['version'],
              properties: {
                version: { type: 'string', default: '1.0', xml: { attribute: true } },
                error: { type: 'array', xml: { wrapped: false }, items: { type: 'string', xml: { name: 'Error' } } },
              },
            },
          },
        },
      },
      error: validation,
      contentType: 'text/xml',
      body: '<?xml version="1.0" encoding="UTF-8"?>\n<VAST version=""><Error>query.limit: must be &lt;= 100</Error><Error>body.items[0].name: must NOT have more than 3 characters</Error></VAST>',
    },
  ])('$name', ({ response: declared, error, contentType, body }) => {
    const document = documentOf({ '400': declared });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    expect(shapes.respond(error, operation)).toEqual({ status: 400, contentType, body, headers: {} });
  });
});

describe('the error handler sends what the shapes say (D423, D424)', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });
  const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

  async function answer(document: ApiDocument, thrown: unknown): Promise<{ status: number; type: string | null; text: string }> {
    const app = express();
    app.get('/things', (_req, res, next) => {
      res.locals.operation = { ...operation, expressPath: '/things' } as unknown as OperationRoute;
      next(thrown);
    });
    app.use(errorHandler(quiet, new SpecErrorShapes(document, () => NOW)));
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/things`);
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  }

  it.each([
    {
      name: 'a 401 declared without content: no body, no content type',
      responses: { '401': { description: 'Unauthorized' } },
      thrown: new HttpError(401, RUNTIME_ERROR_CODES.auth, 'Missing credentials'),
      expected: { status: 401, type: null, text: '' },
    },
    {
      name: 'a 400 declared as text/plain: the text itself',
      responses: { '400': { description: 'Bad', content: { 'text/plain': {} } } },
      thrown: new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { limit: 'must be <= 100' }),
      expected: { status: 400, type: 'text/plain; charset=utf-8', text: 'limit: must be <= 100' },
    },
    {
      name: 'a 400 declared as application/json without a schema',
      responses: { '400': { description: 'Bad', content: { 'application/json': {} } } },
      thrown: new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { limit: 'must be <= 100' }),
      expected: {
        status: 400,
        type: 'application/json; charset=utf-8',
        text: '{"code":"invalid_request","message":"Request validation failed","details":{"limit":"must be <= 100"}}',
      },
    },
    {
      name: "Snyk's media type key with a comma for a semicolon: sent as its type, not Express's HTML 500 page",
      responses: { '400': { description: 'Bad', content: { 'application/json, charset=utf-8': {} } } },
      thrown: new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { limit: 'must be <= 100' }),
      expected: {
        status: 400,
        type: 'application/json; charset=utf-8',
        text: '{"code":"invalid_request","message":"Request validation failed","details":{"limit":"must be <= 100"}}',
      },
    },
    {
      name: 'D458 a 400 declared as application/octet-stream with `format: binary`: the message as bytes of that type',
      responses: {
        '400': { description: 'Bad', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      },
      thrown: new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { limit: 'must be <= 100' }),
      expected: { status: 400, type: 'application/octet-stream; charset=utf-8', text: 'limit: must be <= 100' },
    },
    {
      name: 'D458 a 400 declared as image/png with an object schema: the filled object as JSON text, sent as image/png',
      responses: {
        '400': {
          description: 'Bad',
          content: { 'image/png': { schema: { type: 'object', properties: { message: { type: 'string' } } } } },
        },
      },
      thrown: new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { limit: 'must be <= 100' }),
      expected: { status: 400, type: 'image/png; charset=utf-8', text: '{"message":"limit: must be <= 100"}' },
    },
    {
      name: 'D458 a 400 declared as application/xml: the XML document',
      responses: {
        '400': {
          description: 'Bad',
          content: { 'application/xml': { schema: { type: 'object', properties: { message: { type: 'string' } } } } },
        },
      },
      thrown: new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, { limit: 'must be <= 100' }),
      expected: {
        status: 400,
        type: 'application/xml; charset=utf-8',
        text: '<?xml version="1.0" encoding="UTF-8"?>\n<error><message>limit: must be &lt;= 100</message></error>',
      },
    },
  ])('$name', async ({ responses, thrown, expected }) => {
    expect(await answer(documentOf(responses), thrown)).toEqual(expected);
  });
});

describe('what a list or a Problem Details type cannot say is said elsewhere (D422, D420)', () => {
  it.each([
    {
      name: "Docker Hub's `details: [{}]`: items with no place for a field or a reason, so the message names them",
      schema: {
        type: 'object',
        properties: {
          code: { type: 'integer' },
          message: { type: 'string' },
          details: { type: 'array', items: { type: 'object', properties: { '@type': { type: 'string' } } } },
        },
      },
      error: oneProblem,
      body: { code: 400, message: 'query.limit: must be <= 100' },
    },
    {
      name: "pdfblocks' Problem Details `type` of format url: about:blank is no URL, so it is left out",
      schema: {
        type: 'object',
        properties: { status: { type: 'integer' }, title: { type: 'string' }, type: { type: 'string', format: 'url' } },
      },
      error: auth,
      body: { status: 401, title: 'Missing credentials' },
    },
  ])('$name', ({ schema, error, body }) => {
    const status = String(error.status);
    const document = documentOf({ [status]: json(schema) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check()).toEqual([]);
    const response = shapes.respond(error, operation);
    expect(response).toEqual({ status: error.status, contentType: 'application/json', body, headers: {} });
    expect(invalidity(document, status, 'application/json', response.body)).toBeUndefined();
  });
});

describe('a oneOf error schema is filled so that exactly one alternative accepts the answer (D459)', () => {
  const closedMessage = { type: 'object', additionalProperties: false, properties: { message: { type: 'string' } } };
  const openCodeMessage = { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } };
  const vonage = (example: string) => ({
    type: 'object',
    required: ['type', 'title', 'details', 'instance'],
    properties: {
      type: { type: 'string', example },
      title: { type: 'string' },
      detail: { type: 'string' },
      instance: { type: 'string' },
    },
  });
  it.each([
    {
      name: 'the first alternative that says the error and that no other accepts',
      schema: { oneOf: [closedMessage, openCodeMessage] },
      body: { code: 'invalid_request', message: 'query.limit: must be <= 100' },
      clash: [],
    },
    {
      name: 'its first alternative when it is the only one to accept its answer',
      schema: { oneOf: [openCodeMessage, { type: 'object', required: ['errors'], properties: { errors: { type: 'array' } } }] },
      body: { code: 'invalid_request', message: 'query.limit: must be <= 100' },
      clash: [],
    },
    {
      name: "Dracoon's 400: an open alternative told apart from one that adds a list, by that list set to null (the value that claims nothing)",
      schema: {
        oneOf: [
          {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'integer' }, message: { type: 'string' } },
          },
          {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'integer' }, message: { type: 'string' }, violatedPasswordPolicies: { type: 'array' } },
          },
        ],
      },
      body: { code: 400, message: 'query.limit: must be <= 100', violatedPasswordPolicies: null },
      clash: [],
    },
    {
      name: "Vonage's 401: two alternatives that accept the same bodies, the first's answer and one start-up warning",
      schema: { oneOf: [vonage('#missing'), vonage('#unprovisioned')] },
      body: { type: 'about:blank', title: 'Bad Request', detail: 'query.limit: must be <= 100', details: null, instance: '' },
      clash: ['no answer matches exactly one alternative of its oneOf (alternatives 0, 1 accept the same bodies)'],
    },
  ])('$name', ({ schema, body, clash }) => {
    const document = documentOf({ '400': json(schema) });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.check().map((p) => p.reason)).toEqual(clash);
    expect(shapes.check().every((p) => p.runtime === false)).toBe(true);
    expect(shapes.respond(oneProblem, operation)).toEqual({ status: 400, contentType: 'application/json', body, headers: {} });
    const invalid = invalidity(document, '400', 'application/json', body);
    if (clash.length === 0) expect(invalid).toBeUndefined();
    else expect(invalid).toMatch(/must match exactly one schema in oneOf/);
  });
});

describe("an anyOf or oneOf of error objects is written in the alternative that holds the answer's status (D483)", () => {
  /** Increase's style: each alternative pins its `status` and its `type` code. */
  const alternative = (status: number, type: string, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    required: ['type', 'title', 'detail', 'status', ...Object.keys(extra)],
    properties: {
      detail: { type: 'string', nullable: true },
      status: { type: 'integer', enum: [status] },
      title: { type: 'string' },
      type: { type: 'string', enum: [type] },
      ...extra,
    },
  });
  const branches = [
    alternative(404, 'api_method_not_found_error'),
    alternative(500, 'internal_server_error'),
    alternative(401, 'invalid_api_key_error'),
    alternative(400, 'malformed_request_error'),
    alternative(400, 'invalid_parameters_error', { errors: { type: 'array', items: { type: 'object', properties: {} } } }),
  ];
  it.each([
    {
      name: 'a 400 validation answer: the 400 alternative whose code says invalid parameters',
      error: oneProblem,
      body: {
        detail: 'query.limit: must be <= 100',
        status: 400,
        title: 'Bad Request',
        type: 'invalid_parameters_error',
        errors: [{}],
      },
    },
    {
      name: 'a 401: the alternative that pins 401',
      error: auth,
      body: { detail: 'Missing credentials', status: 401, title: 'Unauthorized', type: 'invalid_api_key_error' },
    },
    {
      name: 'a 404: the alternative that pins 404',
      error: notFound,
      body: { detail: 'No such route', status: 404, title: 'Not Found', type: 'api_method_not_found_error' },
    },
    {
      name: 'a 501 no alternative pins: the nearest (500), whose body says 500 so that it validates',
      error: notImplemented,
      body: { detail: 'listThings is not implemented yet', status: 500, title: 'Not Implemented', type: 'internal_server_error' },
    },
  ])('$name', ({ error, body }) => {
    for (const key of ['anyOf', 'oneOf'] as const) {
      const document = documentOf({ default: json({ [key]: branches }) });
      const shapes = new SpecErrorShapes(document, () => NOW);
      expect(shapes.check()).toEqual([]);
      expect(shapes.respond(error, operation)).toEqual({ status: error.status, contentType: 'application/json', body, headers: {} });
      expect(invalidity(document, 'default', 'application/json', body)).toBeUndefined();
    }
  });

  it('alternatives that pin no status are written as before: the first that says what went wrong', () => {
    const document = documentOf({
      '400': json({
        anyOf: [
          { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { type: 'boolean', enum: [false] } } },
          { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
        ],
      }),
    });
    const shapes = new SpecErrorShapes(document, () => NOW);
    expect(shapes.respond(oneProblem, operation).body).toEqual({ message: 'query.limit: must be <= 100' });
  });
});

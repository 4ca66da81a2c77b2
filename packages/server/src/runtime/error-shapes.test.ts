import { describe, expect, it } from 'vitest';
import { SpecErrorShapes, type RuntimeError } from './error-shapes.js';
import type { ApiDocument } from './types.js';

/** A one-operation document whose 400 (and `default`) declare `schema` as `mediaType`. */
function documentWith(schema: unknown, mediaType = 'application/json', extra: Record<string, unknown> = {}): ApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          responses: { '200': { description: 'ok' }, '400': { description: 'bad', content: { [mediaType]: { schema } } }, ...extra },
        },
      },
    },
    components: {
      schemas: {
        Detail: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  };
}

const operation = { operationId: 'listThings', path: '/things', method: 'get' as const };
const validation: RuntimeError = {
  status: 400,
  code: 'ERR_VALIDATION_400',
  message: 'Request validation failed',
  details: { limit: 'must be <= 100' },
  headers: {},
  internal: false,
  kind: 'validation',
};

describe('SpecErrorShapes: the declared schema of each status, filled (D119)', () => {
  it.each([
    {
      name: 'flat {code, message}',
      schema: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
      body: { code: 'invalid_request', message: 'Request validation failed' },
    },
    {
      name: 'nested {error: {type, message, param}} with an integer status (Stripe/OpenAI style)',
      schema: {
        type: 'object',
        required: ['error'],
        properties: {
          error: { type: 'object', properties: { message: { type: 'string' }, code: { type: 'string' }, status: { type: 'integer' } } },
        },
      },
      body: { error: { message: 'Request validation failed', code: 'invalid_request', status: 400 } },
    },
    {
      name: 'details as an object map',
      schema: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          details: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
      body: { code: 'invalid_request', message: 'Request validation failed', details: { limit: 'must be <= 100' } },
    },
    {
      name: 'errors as an array of {field, message} ($ref items)',
      schema: {
        type: 'object',
        properties: { message: { type: 'string' }, errors: { type: 'array', items: { $ref: '#/components/schemas/Detail' } } },
      },
      body: { message: 'Request validation failed', errors: [{ field: 'limit', message: 'must be <= 100' }] },
    },
    {
      name: 'OAuth style {error, error_description}',
      schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
      body: { error: 'invalid_request', error_description: 'Request validation failed' },
    },
    {
      name: 'a required const and an allOf',
      schema: {
        allOf: [
          { type: 'object', required: ['ok'], properties: { ok: { const: false } } },
          { type: 'object', properties: { message: { type: 'string' } } },
        ],
      },
      body: { ok: false, message: 'Request validation failed' },
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
      body: {
        success: false,
        error: { code: 'ERR_VALIDATION_400', message: 'Request validation failed', details: { limit: 'must be <= 100' } },
      },
    },
    { name: 'a plain string', schema: { type: 'string' }, body: 'Request validation failed' },
  ])('$name', ({ schema, body }) => {
    const shapes = new SpecErrorShapes(documentWith(schema));
    expect(shapes.check()).toEqual([]);
    expect(shapes.respond(validation, operation)).toEqual({ status: 400, contentType: 'application/json', body, headers: {} });
  });

  it("a handler's own HttpError code is kept; only the runtime's own answers are renamed", () => {
    const shapes = new SpecErrorShapes(
      documentWith({ type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }),
    );
    const own: RuntimeError = { status: 400, code: 'shelf_full', message: 'No room', headers: {}, internal: false };
    expect(shapes.respond(own, operation).body).toEqual({ code: 'shelf_full', message: 'No room' });
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

  it.each([
    ['no error schema at all', documentWith(undefined)],
    ['a declared problem+json', documentWith({ type: 'object' }, 'application/problem+json')],
    [
      'a schema with a required property of unknown meaning',
      documentWith({ type: 'object', required: ['trace'], properties: { trace: { type: 'array' } } }),
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
      errors: [{ field: 'limit', detail: 'must be <= 100' }],
    });
  });

  it('reports a schema it cannot fill at start-up, naming it and why', () => {
    const shapes = new SpecErrorShapes(documentWith({ type: 'object', required: ['trace'], properties: { trace: { type: 'array' } } }));
    expect(shapes.check()).toEqual(["inline schema (application/json): required property 'trace' has no meaning the runtime knows"]);
  });
});

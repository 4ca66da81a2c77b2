/**
 * The probe's requests (scaffold-probe.ts): credentials a declared header parameter names are sent once; no
 * "undeclared query parameter" where an exploded object parameter takes any key.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../packages/contract-tests/src/spec-check/samples.js';
import { SpecProbe } from './scaffold-probe.js';

// VTEX's Giftcard API: API keys in headers its operations also declare as required header parameters
const document = {
  openapi: '3.1.0',
  info: { title: 'Keys', version: '1' },
  security: [{ appKey: [] }],
  paths: {
    '/cards': {
      get: {
        operationId: 'listCards',
        parameters: [
          { name: 'X-App-Key', in: 'header', required: true, schema: { type: 'string', example: '{{appKey}}' } },
          { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string', example: 't1' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
    // API Gateway's GetExport: `parameters`, a string map sent as query keys of its own
    '/exports': {
      get: {
        operationId: 'getExport',
        parameters: [{ name: 'parameters', in: 'query', schema: { type: 'object', additionalProperties: { type: 'string' } } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/closed': {
      get: {
        operationId: 'getClosed',
        parameters: [
          { name: 'filter', in: 'query', schema: { type: 'object', additionalProperties: { type: 'string' } }, style: 'deepObject' },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: { securitySchemes: { appKey: { type: 'apiKey', in: 'header', name: 'X-App-Key' } } },
} as unknown as JsonObject;

describe('SpecProbe.request', () => {
  const probe = new SpecProbe(document);
  const operation = probe.operations.find((o) => o.operationId === 'listCards')!;

  it.each(['valid', 'invalid'] as const)('%s: the credential is the header, the sample is not sent beside it', (kind) => {
    const request = probe.request(operation, kind, 'http://127.0.0.1', { 'x-app-key': 'token' }, {})!;
    const keys = Object.keys(request.headers).filter((name) => name.toLowerCase() === 'x-app-key');
    expect(keys.map((name) => request.headers[name])).toEqual(['token']);
    expect(request.headers['X-Trace']).toBe('t1');
  });

  it('without credentials: the declared header is sampled', () => {
    const request = probe.request(operation, 'unauthenticated', 'http://127.0.0.1', { 'x-app-key': 'token' }, {})!;
    expect(request.headers['X-App-Key']).toBeDefined();
    expect(request.headers['x-app-key']).toBeUndefined();
  });
});

describe('SpecProbe.request: an undeclared query parameter', () => {
  const probe = new SpecProbe(document);
  const op = (id: string) => probe.operations.find((o) => o.operationId === id)!;

  it('is not sent where an exploded object parameter takes any key (no invalid request to make)', () => {
    expect(probe.request(op('getExport'), 'invalid', 'http://127.0.0.1', {}, {})).toBeUndefined();
  });

  it('is sent where the object is a deepObject (its keys are `filter[x]`)', () => {
    expect(probe.request(op('getClosed'), 'invalid', 'http://127.0.0.1', {}, {})?.field).toBe('paygate_probe_unknown');
  });
});

describe('SpecProbe.request: ndjson bodies, one JSON text per line (D484, "JSON bodies by media type name, ndjson line by line")', () => {
  const item = { type: 'object', required: ['op'], properties: { op: { type: 'string', example: 'add' } } };
  const bulk = (schema: unknown) =>
    ({
      openapi: '3.1.0',
      info: { title: 'Bulk', version: '1' },
      paths: {
        '/bulk': {
          post: {
            operationId: 'bulk',
            requestBody: { required: true, content: { 'application/x-ndjson': { schema } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    }) as unknown as JsonObject;
  it.each([
    { name: 'an array schema: each item on its line', schema: { type: 'array', items: item }, valid: '{"op":"add"}\n', invalid: '[]\n' },
    { name: "one line's schema: the sample on one line", schema: item, valid: '{"op":"add"}\n', invalid: '[]\n' },
  ])('$name', ({ schema, valid, invalid }) => {
    const probe = new SpecProbe(bulk(schema));
    const operation = probe.operations[0]!;
    expect(probe.request(operation, 'valid', 'http://127.0.0.1', {}, {})?.body).toBe(valid);
    expect(probe.request(operation, 'invalid', 'http://127.0.0.1', {}, {})?.body).toBe(invalid);
  });
});

describe('SpecProbe.readAgainst: an XML answer read as XML against a schema the operation does not declare', () => {
  // SimpleDB's shape: every operation declares its own XML 400s; the probe reads an undeclared 400 against them all
  const xmlDocument = {
    openapi: '3.0.0',
    info: { title: 'x', version: '1' },
    paths: {
      '/': {
        get: {
          operationId: 'getDomain',
          responses: {
            '200': { description: 'ok' },
            '400': { description: 'NoSuchDomain', content: { 'text/xml': { schema: { $ref: '#/components/schemas/NoSuchDomain' } } } },
          },
        },
      },
    },
    components: { schemas: { NoSuchDomain: { type: 'object', properties: { BoxUsage: { type: 'number' } } } } },
  } as unknown as JsonObject;
  const probe = new SpecProbe(xmlDocument);
  const [schema] = probe.documentSchemas(400);
  const text = '<?xml version="1.0" encoding="UTF-8"?>\n<NoSuchDomain><code>invalid_request</code><message>m</message></NoSuchDomain>';

  it('fits as XML, not as the text it arrived as', () => {
    expect(probe.validate(schema!, text)).not.toEqual([]);
    expect(probe.readAgainst(schema!, 'text/xml', text, text).violations).toEqual([]);
  });

  it('a JSON media type is not read as XML', () => {
    expect(probe.readAgainst(schema!, 'application/json', text, text).violations).not.toEqual([]);
  });
});

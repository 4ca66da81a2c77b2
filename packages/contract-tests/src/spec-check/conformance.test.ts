/**
 * Response conformance of bodies in media types that are not JSON (D458 error answers in binary, image and XML media types): a structured schema under one is read
 * as JSON text, or as XML under an XML type; a declared key's parameters are not part of its type.
 */
import { describe, expect, it } from 'vitest';
import { SpecValidators } from './conformance.js';
import { makeResolver, readOperations } from './document.js';
import type { JsonObject } from './samples.js';

const error = { type: 'object', required: ['message'], properties: { message: { type: 'string' }, code: { type: 'integer' } } };

function checked(mediaType: string, schema: unknown, contentType: string, text: string): string[] {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: {
      '/things': { get: { operationId: 'listThings', responses: { '400': { description: 'bad', content: { [mediaType]: { schema } } } } } },
    },
  } as unknown as JsonObject;
  const [op] = readOperations(doc, makeResolver(doc));
  const response = new Response(text, { status: 400, headers: { 'content-type': contentType } });
  return new SpecValidators(doc).check(op!, 'GET /things', response, text).failures.map((f) => `${f.check}: ${f.message}`);
}

describe('SpecValidators.check on bodies that are not JSON', () => {
  it.each([
    {
      name: 'an object under image/png, as JSON text',
      mediaType: 'image/png',
      schema: error,
      text: '{"message":"m","code":1}',
      failures: 0,
    },
    {
      name: 'an object under image/png that is not JSON: the violations as a text',
      mediaType: 'image/png',
      schema: error,
      text: 'PNG',
      failures: 1,
    },
    {
      name: 'a binary string: any bytes',
      mediaType: 'application/octet-stream',
      schema: { type: 'string', format: 'binary' },
      text: 'm',
      failures: 0,
    },
    {
      name: 'XML under a key with parameters, read by its schema',
      mediaType: 'application/xml;charset=utf-8',
      schema: error,
      contentType: 'application/xml; charset=utf-8',
      text: '<?xml version="1.0"?><error><message>m</message><code>1</code></error>',
      failures: 0,
    },
    {
      name: 'XML whose typed element is not of its type',
      mediaType: 'application/xml',
      schema: error,
      text: '<error><code>one</code></error>',
      failures: 1,
    },
  ])('$name', ({ mediaType, schema, contentType, text, failures }) => {
    expect(checked(mediaType, schema, contentType ?? mediaType, text)).toHaveLength(failures);
  });
});

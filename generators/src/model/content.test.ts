import { describe, expect, it } from 'vitest';
import { buildContent, buildRequestBody } from './content.js';
import { RefResolver } from './ref-resolver.js';

const document = {
  components: {
    schemas: {
      Upload: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } } },
    },
    requestBodies: { Upload: { required: true, content: { 'multipart/form-data': { schema: { $ref: '#/components/schemas/Upload' } } } } },
  },
};
const resolver = new RefResolver(document);

describe('content', () => {
  it.each([
    ['a binary string', { type: 'string', format: 'binary' }, 'file'],
    ['a list of binaries', { type: 'array', items: { type: 'string', contentMediaType: 'image/png' } }, 'files'],
    ['a list of strings', { type: 'array', items: { type: 'string' } }, 'strings'],
    ['a string', { type: 'integer' }, 'string'],
  ])('types a form field: %s', (_, field, kind) => {
    const [media] = buildContent(resolver, { 'multipart/form-data': { schema: { type: 'object', properties: { f: field } } } }, '#/c');
    expect(media!.fields).toEqual([{ name: 'f', required: false, kind }]);
  });

  it('has no form fields for JSON, and sorts media types', () => {
    const content = buildContent(
      resolver,
      { 'text/plain': {}, 'application/json': { schema: { type: 'object', properties: { a: {} } } } },
      '#/c',
    );
    expect(content.map((c) => [c.mediaType, c.fields])).toEqual([
      ['application/json', undefined],
      ['text/plain', undefined],
    ]);
  });

  it('follows a shared request body; the node of its schema is a ref node at the shared pointer', () => {
    const body = buildRequestBody(resolver, { $ref: '#/components/requestBodies/Upload' }, '#/paths/~1u/post/requestBody')!;
    expect(body.required).toBe(true);
    expect(body.content[0]!.fields).toEqual([
      { name: 'file', required: true, kind: 'file' },
      { name: 'note', required: false, kind: 'string' },
    ]);
    expect(body.content[0]!.node).toMatchObject({
      kind: 'ref',
      name: 'Upload',
      pointer: '#/components/requestBodies/Upload/content/multipart~1form-data/schema',
    });
  });
});

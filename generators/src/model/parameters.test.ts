import { describe, expect, it } from 'vitest';
import { buildModel } from './build.js';

describe('model: parameters carry their serialisation', () => {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'P', version: '1' },
    paths: {
      '/p/{id}': {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
        ],
        get: {
          parameters: [
            {
              name: 'tags',
              in: 'query',
              style: 'pipeDelimited',
              explode: false,
              allowReserved: true,
              schema: { type: 'array', items: { type: 'string' } },
            },
            { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
            { name: 'meta', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
            { name: 'empty', in: 'query', allowEmptyValue: true, schema: { type: 'string' } },
            { name: 'x-trace', in: 'header', required: true, schema: { type: 'integer' } },
            { name: 'ids', in: 'header', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'sid', in: 'cookie', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };
  const op = buildModel(doc, { source: 't' }).operations[0]!;
  const byName = (name: string) => op.parameterList.find((p) => p.name === name)!;

  it('lists the operation parameters in declaration order, then the inherited ones it does not override', () => {
    expect(op.parameterList.map((p) => `${p.level}:${p.in}:${p.name}`)).toEqual([
      'operation:query:tags',
      'operation:query:filter',
      'operation:query:meta',
      'operation:query:empty',
      'operation:header:x-trace',
      'operation:header:ids',
      'operation:cookie:sid',
      'path:path:id',
      'path:query:q',
    ]);
    expect(op.parameters.header.map((p) => p.name)).toEqual(['ids', 'x-trace']);
  });

  it.each([
    [
      'tags',
      {
        style: 'pipeDelimited',
        styleDeclared: true,
        explode: false,
        explodeDeclared: true,
        allowReserved: true,
        allowEmptyValue: false,
        content: undefined,
      },
    ],
    ['filter', { style: 'deepObject', styleDeclared: true, explode: false, explodeDeclared: false, allowReserved: false }],
    [
      'meta',
      {
        style: 'form',
        styleDeclared: false,
        explode: true,
        content: { mediaType: 'application/json', schema: { type: 'object' } },
        schema: { type: 'object' },
      },
    ],
    ['empty', { allowEmptyValue: true, style: 'form', explode: true }],
    ['ids', { style: 'simple', styleDeclared: false, explode: false }],
    ['sid', { style: 'form', explode: true }],
    ['id', { style: 'simple', explode: false, required: true, level: 'path' }],
  ] as const)('%s: style, explode, allowReserved, allowEmptyValue and content', (name, expected) => {
    expect(byName(name)).toMatchObject(expected);
  });
});

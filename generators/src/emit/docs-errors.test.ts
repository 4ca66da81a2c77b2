import { describe, expect, it } from 'vitest';
import { buildModel } from '../model/build.js';
import { specErrorsView } from './docs-errors.js';

const failure = { description: 'Failed', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } };

function model(paths: object, schemas: object = {}) {
  return buildModel({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths, components: { schemas } }, { source: 'spec.yaml' });
}

describe('specErrorsView: the errors page from the spec, without a catalogue (D203)', () => {
  it('groups error responses by status, description and body; exact statuses, then ranges, then default', () => {
    const ops = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `/r${i}`,
        {
          get: {
            operationId: `get${i}`,
            responses: { '200': { description: 'ok' }, default: failure, '4XX': failure, ...(i === 0 ? { '404': failure } : {}) },
          },
        },
      ]),
    );
    const view = specErrorsView(
      model(ops, {
        Failure: {
          type: 'object',
          description: 'Every failure',
          required: ['code'],
          properties: { code: { type: 'string', enum: ['gone', 'bad'] }, detail: { type: 'array', items: { type: 'string' } } },
        },
      }),
    );
    expect(view.responses.map((r) => [r.status, r.description, r.body])).toEqual([
      ['404', 'Failed', '`application/json`: Failure'],
      ['4XX', 'Failed', '`application/json`: Failure'],
      ['default', 'Failed', '`application/json`: Failure'],
    ]);
    expect(view.responses[1]!.operations).toBe('`get0`, `get1`, `get2`, `get3`, `get4`, `get5` and 2 more');
    expect(view.schemas).toEqual([
      {
        name: 'Failure',
        description: 'Every failure',
        fields: [
          { name: 'code', type: 'string', required: true, description: 'One of `gone`, `bad`.' },
          { name: 'detail', type: 'array of string', required: false, description: '' },
        ],
      },
    ]);
  });

  it('a body that $refs into paths (valid, openSUSE does it) is labelled, never a failed build', () => {
    const view = specErrorsView(
      model({
        '/a': { get: { responses: { '401': { description: 'Who?', content: { 'application/xml': { schema: { type: 'object' } } } } } } },
        '/b': {
          get: {
            responses: {
              '404': {
                description: 'Gone',
                content: { 'application/xml': { schema: { $ref: '#/paths/~1a/get/responses/401/content/application~1xml/schema' } } },
              },
            },
          },
        },
      }),
    );
    expect(view.responses.map((r) => [r.status, r.body])).toEqual([
      ['401', '`application/xml`: object'],
      // the typed node follows the $ref into paths to its target (D479; read from the component schemas alone, it was `any`)
      ['404', '`application/xml`: object'],
    ]);
  });

  it('lists the codes the spec enumerates, with x-error-catalogue status and condition where given', () => {
    const view = specErrorsView({
      operations: [],
      schemas: [],
      errorCodes: ['bad', 'gone'],
      errorCatalogue: [{ code: 'gone', status: 410, when: 'It was deleted' }],
    });
    expect(view.codes).toEqual([
      { code: 'bad', status: '', when: '' },
      { code: 'gone', status: '410', when: 'It was deleted' },
    ]);
  });
});

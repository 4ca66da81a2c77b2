/** Paygate's parameter rules as the request-validators emitter derives them from the model (docs/request-validation.md, section 5). */
import { describe, expect, it } from 'vitest';
import { buildModel } from '../model/build.js';
import { compileRequestValidators, unsupportedServerOperations } from './request-validators.js';

function rulesFor(parameters: object[]): unknown {
  const document = {
    openapi: '3.1.0',
    info: { title: 'R', version: '1' },
    paths: { '/r/{p}': { get: { operationId: 'r', parameters, responses: { '200': { description: 'ok' } } } } },
  };
  const { operations } = compileRequestValidators({ model: buildModel(document, { source: 'r' }) });
  const field = operations[0]!.fields.find((f) => f.name === 'parameters')!;
  return JSON.parse(field.value);
}

const pathParameter = { name: 'p', in: 'path', required: true, schema: { type: 'string' } };
/** The operation's parameters: the path template needs `p`, unless the case is about `p` itself. */
const withPath = (parameter: { in: string; [key: string]: unknown }) =>
  parameter.in === 'path' ? [parameter] : [pathParameter, parameter];
const array = { type: 'array', items: { type: 'string' } };
const object = { type: 'object', properties: { x: { type: 'integer' }, ys: array } };

describe('request-validators emitter: parameter rules', () => {
  it.each([
    ['query primitive', { name: 'q', in: 'query', schema: { type: 'integer' } }, { parse: 'none', reserved: 'whole' }],
    ['query primitive, allowReserved', { name: 'q', in: 'query', allowReserved: true, schema: { type: 'string' } }, { parse: 'none' }],
    ['query array, form explode (default)', { name: 'q', in: 'query', schema: array }, { parse: 'wrap', reserved: 'whole' }],
    ['query array, form', { name: 'q', in: 'query', explode: false, schema: array }, { parse: 'split', delimiter: ',', reserved: 'comma' }],
    [
      'query array, spaceDelimited',
      { name: 'q', in: 'query', style: 'spaceDelimited', explode: false, schema: array },
      { parse: 'split', delimiter: ' ', reserved: 'comma' },
    ],
    [
      'query array, pipeDelimited',
      { name: 'q', in: 'query', style: 'pipeDelimited', explode: false, schema: array },
      { parse: 'split', delimiter: '|', reserved: 'comma' },
    ],
    [
      'query object, form explode',
      { name: 'q', in: 'query', schema: object },
      { parse: 'formExplode', properties: ['x', 'ys'], arrayProperties: ['ys'] },
    ],
    ['query object, form', { name: 'q', in: 'query', explode: false, schema: object }, { parse: 'formObject', reserved: 'comma' }],
    ['query object, deepObject', { name: 'q', in: 'query', style: 'deepObject', schema: object }, { parse: 'deepObject' }],
    [
      "query array, deepObject (Stripe's expand[], D117)",
      { name: 'q', in: 'query', style: 'deepObject', explode: true, schema: array },
      { parse: 'deepArray', reserved: 'whole' },
    ],
    ['query JSON content', { name: 'q', in: 'query', content: { 'application/json': { schema: object } } }, { parse: 'json' }],
    ['header array (simple by default)', { name: 'X-Ids', in: 'header', schema: array }, { name: 'x-ids', parse: 'split', delimiter: ',' }],
    ['path array, explode', { name: 'p', in: 'path', required: true, explode: true, schema: array }, { parse: 'split', delimiter: ',' }],
  ])('%s', (_name, parameter, expected) => {
    const rules = rulesFor(withPath(parameter)) as { name: string }[];
    expect(rules[rules.length - 1]).toMatchObject(expected);
  });

  it('leaves cookies out (they are not read)', () => {
    expect(rulesFor(withPath({ name: 'sid', in: 'cookie', schema: { type: 'string' } }))).toEqual([
      { name: 'p', in: 'path', parse: 'none' },
    ]);
  });

  it.each([
    [
      'matrix path parameter',
      { name: 'p', in: 'path', required: true, style: 'matrix', schema: { type: 'string' } },
      /operation r: path parameter 'p': style 'matrix' is not parsed/,
    ],
    ['object path parameter', { name: 'p', in: 'path', required: true, schema: object }, /objects are only parsed in query parameters/],
    [
      'label header parameter',
      { name: 'X-P', in: 'header', style: 'label', schema: { type: 'string' } },
      /header parameter 'X-P': style 'label' is not parsed/,
    ],
  ])('skips the operation on the server side for an unsupported %s, and names it with the fix', (_name, parameter, message) => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'R', version: '1' },
      paths: { '/r/{p}': { get: { operationId: 'r', parameters: withPath(parameter), responses: { '200': { description: 'ok' } } } } },
    };
    const model = buildModel(document, { source: 'r' });
    const { operations } = compileRequestValidators({ model });
    expect(operations[0]!.fields.find((f) => f.name === 'unsupported')?.value).toMatch(message);
    expect(unsupportedServerOperations(model)).toEqual([
      {
        operationId: 'r',
        pointer: expect.stringMatching(/^r#\/paths\/~1r~1\{p\}(\/get)?\/parameters$/),
        problem: expect.stringMatching(message),
        fix: expect.stringContaining('deepObject (name[]=a&name[]=b)'),
      },
    ]);
  });
});

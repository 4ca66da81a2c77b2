/**
 * The generated client writes a styled path parameter the way the scaffold reads it (D413, "Object path parameters
 * read by their style"): the client meta the generator emits (generators/src/emit/client.ts `clientPathStyles`), the
 * client runtime's template marking (packages/client/src/runtime/path-styles.ts) and openapi-fetch's serializer on one
 * side, the server runtime's reading (packages/server/src/runtime/path-styles.ts) on the other, over the OpenAPI 3.1
 * style table's path rows.
 */
import { defaultPathSerializer } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { clientPathStyles } from '../../generators/src/emit/client.js';
import { buildModel } from '../../generators/src/model/build.js';
import { markedTemplate } from '../../packages/client/src/runtime/path-styles.js';
import { readPathStyle, type PathForm } from '../../packages/server/src/runtime/path-styles.js';

const VALUES = { primitive: 'blue', array: ['blue', 'black', 'brown'], object: { R: '100', G: '200', B: '150' } } as const;
const SCHEMAS = {
  primitive: { type: 'string' },
  array: { type: 'array', items: { type: 'string' } },
  object: { type: 'object', properties: { R: { type: 'string' }, G: { type: 'string' }, B: { type: 'string' } } },
};
const ROWS = (['simple', 'label', 'matrix'] as const).flatMap((style) =>
  [false, true].flatMap((explode) => (['primitive', 'array', 'object'] as const).map((shape) => [style, explode, shape] as const)),
);

describe('path styles: the generated client writes what the scaffold reads', () => {
  it.each(ROWS)('%s, explode %s, %s', (style, explode, shape) => {
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/c/{color}': {
          get: {
            operationId: 'getColor',
            parameters: [{ name: 'color', in: 'path', required: true, style, explode, schema: SCHEMAS[shape] }],
            responses: { '204': { description: 'ok' } },
          },
        },
      },
    };
    const model = buildModel(document, { source: 'openapi.json' });
    const styles = clientPathStyles(model.operations[0]!) ?? {};
    const url = defaultPathSerializer(markedTemplate('/c/{color}', styles), { color: VALUES[shape] });
    const segment = decodeURIComponent(url.slice('/c/'.length));
    const form: PathForm = { name: 'color', style, explode, shape };
    expect(readPathStyle(form, segment), url).toEqual(VALUES[shape]);
  });

  it("names no parameter of a simple, unexploded path (Paygate's own meta unchanged)", () => {
    const model = buildModel(
      {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/o/{id}': {
            get: {
              operationId: 'o',
              parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
              responses: { '204': { description: 'ok' } },
            },
          },
        },
      },
      { source: 'openapi.json' },
    );
    expect(clientPathStyles(model.operations[0]!)).toBeUndefined();
  });
});

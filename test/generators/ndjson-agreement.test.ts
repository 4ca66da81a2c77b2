/**
 * The generated handler type of an ndjson body and the scaffold's runtime agree on what the handler receives (D484,
 * "JSON bodies by media type name, ndjson line by line"): generators/src/model/ndjson.ts (the `Array<line>` type) and
 * packages/server/src/runtime/json-media.ts + ndjson-lines.ts (the array of line values), on one table of documents.
 */
import { describe, expect, it } from 'vitest';
import { handlerOperationViews } from '../../generators/src/emit/server.js';
import { buildModel } from '../../generators/src/model/build.js';
import { bodyIsLineArray, isLineDelimitedJson } from '../../generators/src/model/ndjson.js';
import { isNdjsonMediaType } from '../../packages/server/src/runtime/json-media.js';
import { linewiseMediaTypes } from '../../packages/server/src/runtime/ndjson-lines.js';
import type { ApiDocument } from '../../packages/server/src/runtime/types.js';

const MEDIA_TYPES = [
  'application/x-ndjson',
  'application/ndjson',
  'Application/X-NDJSON; charset=utf-8',
  'application/jsonl',
  'application/jsonlines',
  'application/x-jsonlines',
  'text/x-jsonl',
  'application/json',
  'application/json-seq',
  'text/plain',
  'application/x-ndjson-stream',
];

const Line = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const SCHEMAS: [string, unknown][] = [
  ['an object (one line)', Line],
  ['a reference to an object', { $ref: '#/components/schemas/Line' }],
  ['an array (the sequence)', { type: 'array', items: Line }],
  ['a reference to an array', { $ref: '#/components/schemas/Lines' }],
  ['items without a type', { items: Line }],
  ['an object or an array', { oneOf: [Line, { type: 'array', items: Line }] }],
  ['an allOf of a reference to an array', { allOf: [{ $ref: '#/components/schemas/Lines' }] }],
  ['a nullable array (3.1)', { type: ['array', 'null'], items: Line }],
  ['a string', { type: 'string' }],
];

function documentWith(mediaType: string, schema: unknown): ApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/bulk': {
        post: { operationId: 'bulk', requestBody: { content: { [mediaType]: { schema } } }, responses: { '204': { description: 'ok' } } },
      },
    },
    components: { schemas: { Line, Lines: { type: 'array', items: { $ref: '#/components/schemas/Line' } } } },
  } as unknown as ApiDocument;
}

describe('ndjson: the generated handler type and the runtime agree', () => {
  it.each(MEDIA_TYPES)('%s is line-delimited JSON to both or to neither', (mediaType) => {
    expect(isLineDelimitedJson(mediaType)).toBe(isNdjsonMediaType(mediaType));
  });

  it.each(SCHEMAS)('application/x-ndjson with %s: the handler gets an array of lines in both or in neither', (_, schema) => {
    const document = documentWith('application/x-ndjson', schema);
    const runtime = linewiseMediaTypes(document, { path: '/bulk', method: 'post' }).has('application/x-ndjson');
    const model = buildModel(document as unknown as Record<string, unknown>, { source: 'openapi.json' });
    const media = model.operations[0]!.requestBody!.content[0]!;
    expect(bodyIsLineArray(media, model.schemas)).toBe(runtime);
    // and the handler's body type says it
    const [view] = handlerOperationViews(model.operations, model.schemas);
    expect(view!.body.startsWith('Array<')).toBe(runtime);
  });

  it('a JSON body is never an array of lines', () => {
    const model = buildModel(documentWith('application/json', Line) as unknown as Record<string, unknown>, { source: 'openapi.json' });
    expect(bodyIsLineArray(model.operations[0]!.requestBody!.content[0]!, model.schemas)).toBe(false);
  });
});

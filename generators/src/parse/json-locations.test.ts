import { getLineColLocation, Source } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { jsonLineCols } from './json-locations.js';

/** Redocly's answer for the same text and pointer (it parses the text with yaml-ast-parser). */
function redocly(text: string, pointer: string, reportOnKey: boolean): { line: number; col: number } {
  return getLineColLocation({ source: new Source('x.json', text), pointer, reportOnKey }).start;
}

const doc = {
  openapi: '3.0.3',
  paths: {
    '/a/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path' },
          { name: 'q~x', in: 'query' },
        ],
        responses: {},
      },
    },
    '/b': { post: { requestBody: { content: { 'application/json': { schema: { type: 'string', enum: ['x', 'y'] } } } } } },
  },
  components: {
    schemas: { 'a"quoted\\key': { type: 'object', nullable: true }, é: { minimum: 1.5e3, x: null, y: true }, 'ends\\': { type: 'string' } },
  },
  empty: { o: {}, a: [] },
};
const texts: [string, string][] = [
  ['pretty', JSON.stringify(doc, null, 2)],
  ['minified', JSON.stringify(doc)],
  ['tabs and a duplicate key', `{\n\t"a": {"k": 1},\n\t"a": {"k": [2, 3]},\n\t"b" : [ {"c":"d"} , 4 ]\n}\n`],
];
const pointers = [
  '#/',
  '#/paths',
  '#/paths/~1a~1{id}/get/parameters/1',
  '#/paths/~1a~1{id}/get/parameters/1/name',
  '#/paths/~1a~1{id}/get/parameters/7',
  '#/paths/~1b/post/requestBody/content/application~1json/schema/enum/1',
  '#/paths/~1missing/get',
  '#/components/schemas/a%22quoted%5Ckey/nullable',
  '#/components/schemas/%C3%A9/minimum',
  '#/components/schemas/ends%5C/type',
  '#/components/schemas/é/x/deeper',
  '#/empty/o/none',
  '#/empty/a/0',
  '#/a/k',
  '#/a/k/1',
  '#/b/0/c',
  '#/b/1',
  '#//openapi',
];

describe('jsonLineCols (D191): the line and column Redocly reports, from one scan of the text', () => {
  it.each(texts)('%s', (_name, text) => {
    const locations = pointers.flatMap((pointer) => [
      { pointer, reportOnKey: false },
      { pointer, reportOnKey: true },
    ]);
    expect(jsonLineCols(text, locations)).toEqual(locations.map((l) => redocly(text, l.pointer, l.reportOnKey)));
  });
});

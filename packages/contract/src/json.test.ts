/** The shared JSON vocabulary (json.ts): the value a JSON Pointer names. */
import { describe, expect, it } from 'vitest';
import { valueAtPointer } from './json.js';

const document = {
  paths: { '/a/{id}': { get: { parameters: [{ name: 'id' }, { name: 'q' }] } } },
  'x~y': { 'with space': 1 },
};

describe('valueAtPointer', () => {
  it.each<[string, string, unknown]>([
    ['the whole document (URI fragment)', '#', document],
    ['the whole document (bare)', '', document],
    ['an escaped slash', '#/paths/~1a~1{id}/get/parameters/1/name', 'q'],
    ['percent-encoding of a URI fragment decoded', '#/paths/~1a~1%7Bid%7D/get/parameters/0/name', 'id'],
    ['an escaped tilde and an encoded space', '#/x~0y/with%20space', 1],
    ['an array item by its index', '/paths/~1a~1{id}/get/parameters/0', { name: 'id' }],
    ['a name the document lacks', '#/paths/~1b', undefined],
    ['below a scalar', '#/x~0y/with space/deeper', undefined],
    ['a lone % kept as written', '#/paths/100%', undefined],
  ])('%s', (_name, pointer, expected) => {
    expect(valueAtPointer(document, pointer)).toEqual(expected);
  });
});

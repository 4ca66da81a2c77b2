/**
 * Path parameters read by their style (D413, "Object path parameters read by their style"): the OpenAPI 3.1 style
 * table's path rows (`color` = blue, [blue, black, brown], {R: 100, G: 200, B: 150}), each read back as text.
 */
import { describe, expect, it } from 'vitest';
import { type PathForm, pathFormExample, readPathStyle } from './path-styles.js';

type Shape = PathForm['shape'];
const form = (style: PathForm['style'], explode: boolean, shape: Shape, json?: PathForm['json']): PathForm => ({
  name: 'color',
  style,
  explode,
  shape,
  ...(json === undefined ? {} : { json }),
});

const colour = { R: '100', G: '200', B: '150' };
const colours = ['blue', 'black', 'brown'];

describe('readPathStyle: the OpenAPI 3.1 style table', () => {
  it.each<[PathForm['style'], boolean, Shape, string, unknown]>([
    ['simple', false, 'object', 'R,100,G,200,B,150', colour],
    ['simple', true, 'object', 'R=100,G=200,B=150', colour],
    ['simple', false, 'array', 'blue,black,brown', colours],
    ['simple', true, 'array', 'blue,black,brown', colours],
    ['label', false, 'primitive', '.blue', 'blue'],
    ['label', true, 'primitive', '.blue', 'blue'],
    ['label', false, 'array', '.blue.black.brown', colours],
    ['label', true, 'array', '.blue.black.brown', colours],
    ['label', false, 'object', '.R.100.G.200.B.150', colour],
    ['label', true, 'object', '.R=100.G=200.B=150', colour],
    ['matrix', false, 'primitive', ';color=blue', 'blue'],
    ['matrix', true, 'primitive', ';color=blue', 'blue'],
    ['matrix', false, 'array', ';color=blue,black,brown', colours],
    ['matrix', true, 'array', ';color=blue;color=black;color=brown', colours],
    ['matrix', false, 'object', ';color=R,100,G,200,B,150', colour],
    ['matrix', true, 'object', ';R=100;G=200;B=150', colour],
  ])('%s, explode %s, %s: %s', (style, explode, shape, raw, expected) => {
    expect(readPathStyle(form(style, explode, shape), raw)).toEqual(expected);
  });
});

describe('readPathStyle: beyond the table', () => {
  it.each<[string, PathForm, string, unknown]>([
    // RFC 6570 (and openapi-fetch, the generated client's transport) write an unexploded label list with commas
    ['label object, RFC 6570 commas', form('label', false, 'object'), '.R,100,G,200,B,150', colour],
    ['label array, RFC 6570 commas', form('label', false, 'array'), '.blue,black,brown', colours],
    // the empty value of each style (`.`, `;color`): an empty object or array
    ['label, empty object', form('label', false, 'object'), '.', {}],
    ['matrix, empty array', form('matrix', false, 'array'), ';color', []],
    ['matrix, empty primitive', form('matrix', false, 'primitive'), ';color', ''],
    ['matrix exploded, empty object', form('matrix', true, 'object'), ';', {}],
    // Jellyfin's `version` (a .NET Version): the properties stay text, the validator coerces them
    ['a one-property object', form('simple', false, 'object'), 'Major,10', { Major: '10' }],
    ['a value holding `=` (not exploded)', form('simple', false, 'object'), 'q,a=b', { q: 'a=b' }],
    [
      'an object property as its JSON text (D456)',
      form('simple', false, 'object', ['tag']),
      'tag,{"Key":"a,b","Value":"1"},n,2',
      { tag: { Key: 'a,b', Value: '1' }, n: '2' },
    ],
    ['array items as their JSON texts (D456)', form('label', true, 'array', true), '.{"k":"x.y"}.{"k":2}', [{ k: 'x.y' }, { k: 2 }]],
  ])('%s', (_label, f, raw, expected) => {
    expect(readPathStyle(f, raw)).toEqual(expected);
  });
});

describe('readPathStyle: not written in the style', () => {
  it.each<[string, PathForm, string]>([
    ['an odd number of items', form('simple', false, 'object'), 'R,100,G'],
    ['an exploded item without `=`', form('simple', true, 'object'), 'R=100,G'],
    ['an empty key', form('simple', true, 'object'), '=100'],
    ['JSON text where a simple object is declared', form('simple', false, 'object'), '{}'],
    ['a label value without its dot', form('label', false, 'primitive'), 'blue'],
    ['a matrix value without its semicolon', form('matrix', false, 'object'), 'color=R,100'],
    ['a matrix value of another name', form('matrix', false, 'primitive'), ';colour=blue'],
    ['an exploded matrix item of another name', form('matrix', true, 'array'), ';color=blue;colour=black'],
  ])('%s: undefined', (_label, f, raw) => {
    expect(readPathStyle(f, raw)).toBeUndefined();
  });

  it.each<[PathForm, string]>([
    [form('simple', false, 'object'), 'R,100,G,200'],
    [form('label', true, 'object'), '.R=100.G=200'],
    [form('matrix', false, 'object'), ';color=R,100,G,200'],
    [form('matrix', true, 'array'), ';color=3;color=4;color=5'],
  ])('the refusal shows the form: %o', (f, example) => {
    expect(pathFormExample(f)).toBe(example);
  });
});

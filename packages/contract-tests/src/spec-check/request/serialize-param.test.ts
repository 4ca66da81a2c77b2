/** Query values on the wire per style and explode, and D456 for objects inside arrays and properties. */
import { describe, expect, it } from 'vitest';
import type { Json } from '../samples.js';
import { type SerializedParam, serializeParam, serializePathParam } from './serialize-param.js';

const tag = { Key: 'a', Value: '1' };
const tagText = '{"Key":"a","Value":"1"}';

describe('serializeParam', () => {
  it.each<[string, Omit<SerializedParam, 'name'>, Json, [string, string][]]>([
    ['primitive', {}, 5, [['q', '5']]],
    [
      'array, form explode (the default)',
      {},
      [1, 2],
      [
        ['q', '1'],
        ['q', '2'],
      ],
    ],
    ['array, form', { explode: false }, [1, 2], [['q', '1,2']]],
    ['array, spaceDelimited', { style: 'spaceDelimited', explode: false }, [1, 2], [['q', '1 2']]],
    ['array, pipeDelimited', { style: 'pipeDelimited', explode: false }, [1, 2], [['q', '1|2']]],
    [
      'array, deepObject',
      { style: 'deepObject' },
      [1, 2],
      [
        ['q[]', '1'],
        ['q[]', '2'],
      ],
    ],
    [
      'array of objects, form explode: each item its JSON text',
      {},
      [tag, tag],
      [
        ['q', tagText],
        ['q', tagText],
      ],
    ],
    ['array of objects, form', { explode: false }, [tag], [['q', tagText]]],
    [
      'object, form explode: its properties as keys',
      {},
      { x: 1, y: 'b' },
      [
        ['x', '1'],
        ['y', 'b'],
      ],
    ],
    [
      'object, form explode: an array property one key per item',
      {},
      { ids: [1, 2] },
      [
        ['ids', '1'],
        ['ids', '2'],
      ],
    ],
    [
      'object, form explode: object properties and items as JSON text',
      {},
      { tag, tags: [tag] },
      [
        ['tag', tagText],
        ['tags', tagText],
      ],
    ],
    ['object, form explode: the empty object is no key', {}, {}, []],
    ['object, form', { explode: false }, { x: 1, y: 'b' }, [['q', 'x,1,y,b']]],
    [
      'object, deepObject',
      { style: 'deepObject' },
      { x: 1, tag },
      [
        ['q[x]', '1'],
        ['q[tag]', tagText],
      ],
    ],
    ['content: the value as one JSON text', { contentType: 'application/json' }, { x: [1] }, [['q', '{"x":[1]}']]],
  ])('%s', (_name, p, value, expected) => {
    expect(serializeParam({ name: 'q', ...p }, value)).toEqual(expected);
  });
});

describe('serializePathParam (D413, "Object path parameters read by their style")', () => {
  const colour = { R: 100, G: 200, B: 150 };
  const colours = ['blue', 'black', 'brown'];
  it.each<[string | undefined, boolean | undefined, Json, string]>([
    [undefined, undefined, 'blue', 'blue'],
    [undefined, undefined, colours, 'blue,black,brown'],
    [undefined, undefined, colour, 'R,100,G,200,B,150'],
    ['simple', true, colour, 'R=100,G=200,B=150'],
    ['label', false, 'blue', '.blue'],
    ['label', false, colours, '.blue.black.brown'],
    ['label', true, colours, '.blue.black.brown'],
    ['label', false, colour, '.R.100.G.200.B.150'],
    ['label', true, colour, '.R=100.G=200.B=150'],
    ['matrix', false, 'blue', ';color=blue'],
    ['matrix', false, colours, ';color=blue,black,brown'],
    ['matrix', true, colours, ';color=blue;color=black;color=brown'],
    ['matrix', false, colour, ';color=R,100,G,200,B,150'],
    ['matrix', true, colour, ';R=100;G=200;B=150'],
    // percent-encoded values; an object inside as its JSON text (D456 query objects and arrays of objects serialised)
    [undefined, undefined, { q: 'a b/c', tag: { k: 1 } }, 'q,a%20b%2Fc,tag,%7B%22k%22%3A1%7D'],
  ])('style %s, explode %s: %j', (style, explode, value, expected) => {
    expect(serializePathParam({ name: 'color', style, explode }, value)).toBe(expected);
  });

  it('a content parameter: its one text', () => {
    expect(serializePathParam({ name: 'f', contentType: 'application/json' }, { a: 1 })).toBe('%7B%22a%22%3A1%7D');
  });
});

/** Query parameters as the generated client writes them where the spec's style is not openapi-fetch's default (D456 query objects and arrays of objects serialised). */
import { createQuerySerializer } from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { type QueryStyle, styledQuery } from './query-styles.js';

const fallback = createQuerySerializer();
const tag = { Key: 'a', Value: '1' };
const tagText = encodeURIComponent(JSON.stringify(tag));

describe('styledQuery', () => {
  it.each<[string, QueryStyle, unknown, string]>([
    ['object, form explode (the spec default): its properties as keys', {}, { x: 1, y: 'b c' }, 'x=1&y=b%20c'],
    [
      'object, form explode: an array property one key per item, objects as JSON text',
      {},
      { ids: [1, 2], tag },
      `ids=1&ids=2&tag=${tagText}`,
    ],
    ['object, form', { explode: false }, { x: 1, y: 'b' }, 'q=x%2C1%2Cy%2Cb'],
    ['object, deepObject with an object property', { style: 'deepObject' }, { n: 1, tag }, `q%5Bn%5D=1&q%5Btag%5D=${tagText}`],
    ['array of objects, form explode', {}, [tag, tag], `q=${tagText}&q=${tagText}`],
    ['array, form', { style: 'form', explode: false }, [1, 2], 'q=1%2C2'],
    ['array, pipeDelimited', { style: 'pipeDelimited', explode: false }, [1, 2], 'q=1%7C2'],
    ['content: one JSON text', { content: true }, { a: [1] }, `q=${encodeURIComponent('{"a":[1]}')}`],
    ['the empty object: no key', {}, {}, ''],
  ])('%s', (_name, style, value, expected) => {
    expect(styledQuery({ q: style }, { q: value }, fallback)).toBe(expected);
  });

  it('writes the other parameters with the fallback, in the order given, skipping absent ones', () => {
    expect(styledQuery({ filter: {} }, { limit: 5, filter: { a: 1 }, ids: [1, 2], none: undefined }, fallback)).toBe(
      'limit=5&a=1&ids=1&ids=2',
    );
  });
});

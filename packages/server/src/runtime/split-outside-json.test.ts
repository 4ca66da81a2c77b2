/** splitOutsideJson: delimited items that may be JSON texts (D456 query objects and arrays of objects serialised). */
import { describe, expect, it } from 'vitest';
import { splitOutsideJson } from './split-outside-json.js';

describe('splitOutsideJson', () => {
  it.each<[string, string, string, string[]]>([
    ['plain values', 'a,b,c', ',', ['a', 'b', 'c']],
    ['commas inside objects, arrays and strings', '{"a":"x,y"},[1,2],"p,q"', ',', ['{"a":"x,y"}', '[1,2]', '"p,q"']],
    ['an escaped quote inside a string', '{"a":"x\\",y"},{"b":1}', ',', ['{"a":"x\\",y"}', '{"b":1}']],
    ['a longer delimiter', '{"a":1} {"b":2}', ' ', ['{"a":1}', '{"b":2}']],
    ['empty', '', ',', ['']],
  ])('%s', (_name, value, delimiter, expected) => {
    expect(splitOutsideJson(value, delimiter)).toEqual(expected);
  });
});

/** reachableDigest (D442 request validators reused by the schemas their requests reach): the roots and the schemas they reach, never less. */
import { describe, expect, it } from 'vitest';
import { reachableDigest } from './reads.js';

const schemas = (entries: Record<string, unknown>) => ({ schemas: Object.entries(entries).map(([name, schema]) => ({ name, schema })) });

const base = {
  Book: { type: 'object', properties: { author: { $ref: '#/components/schemas/Author' } } },
  Author: { type: 'object', properties: { name: { type: 'string' } } },
  Receipt: { type: 'object', properties: { id: { type: 'string' } } },
  'a/b~c': { type: 'string' },
};
const roots = [{ body: { $ref: '#/components/schemas/Book' } }];

describe('reachableDigest', () => {
  const before = reachableDigest(schemas(base), roots);

  it.each([
    ['a schema no root reaches', { ...base, Receipt: { type: 'object', properties: { note: { type: 'string' } } } }, false],
    ['a schema a root reaches through another', { ...base, Author: { type: 'object', properties: { born: { type: 'integer' } } } }, true],
    ['the schema a root names', { ...base, Book: { type: 'object' } }, true],
    ['a new schema (the list of names)', { ...base, Shelf: { type: 'array' } }, true],
  ])('%s: changes the digest: %s', (_label, edited, changes) => {
    expect(reachableDigest(schemas(edited), roots) !== before).toBe(changes);
  });

  it('follows escaped and percent-encoded names', () => {
    const escaped = [{ body: { $ref: '#/components/schemas/a~1b~0c' } }];
    const digest = reachableDigest(schemas(base), escaped);
    expect(reachableDigest(schemas({ ...base, Receipt: {} }), escaped)).toBe(digest);
    expect(reachableDigest(schemas({ ...base, 'a/b~c': { type: 'integer' } }), escaped)).not.toBe(digest);
  });

  it('a ref it cannot follow covers every schema', () => {
    const foreign = [{ body: { $ref: '#/components/requestBodies/Thing' } }];
    const digest = reachableDigest(schemas(base), foreign);
    expect(reachableDigest(schemas({ ...base, Receipt: {} }), foreign)).not.toBe(digest);
    const unknown = [{ body: { $ref: '#/components/schemas/Nope' } }];
    expect(reachableDigest(schemas({ ...base, Receipt: {} }), unknown)).not.toBe(reachableDigest(schemas(base), unknown));
  });
});

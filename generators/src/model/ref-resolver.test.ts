import { describe, expect, it } from 'vitest';
import { RefResolver } from './ref-resolver.js';

describe('RefResolver', () => {
  it('follows ref chains and merges allOf object shapes', () => {
    const doc = {
      components: {
        schemas: {
          A: { $ref: '#/components/schemas/B' },
          B: {
            allOf: [{ type: 'object', required: ['x'], properties: { x: { type: 'string' } } }, { properties: { y: { type: 'integer' } } }],
          },
          'a/b': { type: 'string' },
        },
      },
    };
    const r = new RefResolver(doc);
    expect(r.deref({ $ref: '#/components/schemas/A' })).toBe(doc.components.schemas.B);
    expect(r.get('#/components/schemas/a~1b')).toEqual({ type: 'string' });
    const shape = r.objectShape({ $ref: '#/components/schemas/A' });
    expect(Object.keys(shape.properties)).toEqual(['x', 'y']);
    expect([...shape.required]).toEqual(['x']);
    expect(() => r.get('#/components/schemas/Nope')).toThrow(/Unresolvable/);
  });
});

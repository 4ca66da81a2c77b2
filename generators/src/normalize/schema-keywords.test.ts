import { describe, expect, it } from 'vitest';
import { dropMistypedKeywords, isSchemaPosition } from './schema-keywords.js';

describe('dropMistypedKeywords (D430)', () => {
  it("leaves out api.video's `pattern: 0` and other wrongly typed value keywords, naming each pointer", () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/a/{id}': {
          get: {
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: '2', maxLength: 9 } }],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
      components: {
        schemas: {
          Pick: { type: 'object', properties: { timecode: { type: 'string', pattern: 0 } }, examples: { one: { timecode: '1' } } },
          List: { type: 'array', items: { type: 'integer', uniqueItems: 'yes', minimum: 1 } },
        },
      },
    };
    const { document: out, dropped } = dropMistypedKeywords(document);
    expect(dropped.map((d) => d.pointer).sort()).toEqual([
      '#/components/schemas/List/items/uniqueItems',
      '#/components/schemas/Pick/examples',
      '#/components/schemas/Pick/properties/timecode/pattern',
      '#/paths/~1a~1{id}/get/parameters/0/schema/minLength',
    ]);
    expect(dropped.find((d) => d.keyword === 'pattern')).toMatchObject({
      problem: expect.stringContaining('`pattern` is the number 0, where JSON Schema asks for a string'),
      fix: 'write `pattern` as a string, or remove it.',
    });
    expect(out.components.schemas.Pick.properties.timecode).toEqual({ type: 'string' });
    expect(out.components.schemas.List.items).toEqual({ type: 'integer', minimum: 1 });
    expect(out.paths['/a/{id}'].get.parameters[0]!.schema).toEqual({ type: 'string', maxLength: 9 });
    // the input is not modified
    expect(document.components.schemas.Pick.properties.timecode.pattern).toBe(0);
  });

  it('leaves out a default its own type refuses (a request leaving the value out is not given it), keeps one that fits', () => {
    const document = {
      components: {
        schemas: {
          Flag: { type: 'number', default: 'false' },
          Keys: { type: 'array', items: { type: 'string' }, default: '' },
          Page: { type: 'integer', default: 1 },
          Maybe: { type: 'string', nullable: true, default: null },
          Ratio: { type: 'integer', default: 0.5 },
          Order: { type: 'string', enum: ['published_date', 'views'], default: 'created_date' },
          Sort: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
        },
      },
    };
    const { document: out, dropped } = dropMistypedKeywords(document);
    expect(dropped.map((d) => d.pointer)).toEqual([
      '#/components/schemas/Flag/default',
      '#/components/schemas/Keys/default',
      '#/components/schemas/Ratio/default',
      '#/components/schemas/Order/default',
    ]);
    expect(dropped[0]!.problem).toContain('`default` is the string "false", which its schema refuses (`type` number)');
    expect(out.components.schemas.Sort).toEqual({ type: 'string', enum: ['asc', 'desc'], default: 'asc' });
    expect(out.components.schemas.Page).toEqual({ type: 'integer', default: 1 });
    expect(out.components.schemas.Maybe).toEqual({ type: 'string', nullable: true, default: null });
  });

  it('returns the document itself when nothing is wrong, and reads no field outside a schema, no example data, no extension', () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 'T', version: '1', description: 'd' },
      paths: {},
      components: {
        schemas: {
          // a property named like a keyword is a schema, not a keyword; example data is not read
          Named: { type: 'object', properties: { pattern: { type: 'integer' }, title: { type: 'string' } }, example: { pattern: 3 } },
          Extended: { type: 'string', 'x-meta': { pattern: 1 } },
        },
        examples: { e: { value: { minLength: 'x' } } },
      },
    };
    const { document: out, dropped } = dropMistypedKeywords(document);
    expect(dropped).toEqual([]);
    expect(out).toBe(document);
  });

  it('recognises schemas by where they sit', () => {
    expect(isSchemaPosition(['components', 'schemas', 'A'])).toBe(true);
    expect(isSchemaPosition(['components', 'schemas', 'A', 'properties', 'items'])).toBe(true);
    expect(isSchemaPosition(['components', 'schemas', 'A', 'items'])).toBe(true);
    expect(isSchemaPosition(['components', 'schemas', 'A', 'allOf', '0'])).toBe(true);
    expect(isSchemaPosition(['paths', '/a', 'get', 'parameters', '0'])).toBe(false);
    expect(isSchemaPosition(['info'])).toBe(false);
  });
});

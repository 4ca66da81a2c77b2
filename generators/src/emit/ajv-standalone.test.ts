import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { _ } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import {
  addFormats,
  compactStandaloneCode,
  createStandaloneAjv,
  numericExclusiveBounds,
  standaloneModule,
  toAjvSchema,
} from './ajv-standalone.js';

describe('numericExclusiveBounds (OpenAPI 3.0 boolean exclusive bounds)', () => {
  it.each([
    ['3.0 exclusive minimum', { minimum: 0, exclusiveMinimum: true }, { exclusiveMinimum: 0 }],
    ['3.0 exclusive maximum', { maximum: 10, exclusiveMaximum: true }, { exclusiveMaximum: 10 }],
    ['3.0 inclusive (false)', { minimum: 1, exclusiveMinimum: false, maximum: 5, exclusiveMaximum: false }, { minimum: 1, maximum: 5 }],
    ['true without a bound says nothing', { exclusiveMinimum: true }, {}],
    ['3.1 numbers pass unchanged', { exclusiveMinimum: 0, maximum: 3 }, { exclusiveMinimum: 0, maximum: 3 }],
  ])('%s', (_label, schema, expected) => {
    expect(numericExclusiveBounds(schema)).toEqual(expected);
  });

  it.each([
    ['3.0.3', 0, false],
    ['3.0.3', 1, true],
    ['3.1.0', 0, false],
  ])('an OpenAPI %s validator refuses %i for "greater than 0": valid %s', (version, value, valid) => {
    const schema = version.startsWith('3.1')
      ? { type: 'integer', exclusiveMinimum: 0 }
      : { type: 'integer', minimum: 0, exclusiveMinimum: true };
    const ajv = createStandaloneAjv(version, { strict: false });
    expect(ajv.validate(toAjvSchema(schema, 'root') as object, value)).toBe(valid);
  });
});

describe('compactStandaloneCode (D190): the same validation, shorter code', () => {
  const schemas: Record<string, object> = {
    types: {
      type: 'object',
      required: ['id', 'n'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
        n: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 2, uniqueItems: true },
        kind: { type: 'string', enum: ['a', 'b'], default: 'a' },
        when: { type: 'string', format: 'date' },
      },
    },
    composition: {
      anyOf: [{ type: 'string' }, { type: 'object', properties: { x: { $ref: 'compact.json#/$defs/leaf' } }, required: ['x'] }],
    },
    oneOf: { oneOf: [{ type: 'integer' }, { type: 'number', multipleOf: 0.5 }] },
    nested: { type: 'object', additionalProperties: { $ref: 'compact.json#/$defs/types' } },
    leaf: { type: 'object', properties: { v: { type: 'boolean' }, 'a,schemaPath:"b': { const: 'x,schemaPath:"y' } } },
  };
  const inputs: unknown[] = [
    { id: 'abc', n: 2 },
    { id: 'ABCDEFG', n: 0, extra: 1, tags: ['', '', 'z'], kind: 'c', when: '2026-02-30' },
    { n: '3', tags: 'x' },
    'text',
    { x: { v: 'yes', 'a,schemaPath:"b': 'no' } },
    { x: 1 },
    3,
    2.5,
    2.25,
    null,
    { k: { id: 'ok', n: 1 }, m: { id: 1 } },
    [],
  ];

  it.each([true, false])('reports, coerces and defaults exactly as Ajv (coerceTypes %s)', async (coerceTypes) => {
    const options = { strict: false, allErrors: true, useDefaults: true, coerceTypes, code: { formats: _`formats` } } as const;
    const formats = { date: fullFormats.date };
    const make = () => {
      const ajv = createStandaloneAjv('3.1.0', options);
      addFormats(ajv, formats, 'runtime');
      ajv.addSchema({ $id: 'compact.json', $defs: schemas });
      return ajv;
    };
    const exportsByName = Object.fromEntries(Object.keys(schemas).map((k) => [k, `compact.json#/$defs/${k}`]));
    const ajv = make();
    const full = standaloneModule(ajv, exportsByName, ['const formats = globalThis.__compactFormats;']);
    const compact = compactStandaloneCode(full, { dropSchemaPath: true });
    expect(compact.length).toBeLessThan(full.length * 0.85);
    expect(compact).not.toMatch(/if\(vErrors === null\)|schemaPath:"#/);
    expect(compact).toMatch(/vErrors = \$t\(vErrors, instancePath\+"\/n", "integer"\);/);
    expect(compact).toMatch(/vErrors = \$e\(vErrors, instancePath\+"\/n", "minimum", /);
    expect(compact).toContain('x,schemaPath:\\"y'); // a string that looks like the key is data, left alone
    (globalThis as Record<string, unknown>)['__compactFormats'] = formats;
    const dir = path.join(process.cwd(), 'node_modules/.cache/paygate-ajv-compact-test');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `compact-${coerceTypes}-${process.pid}.mjs`);
    await writeFile(file, compact);
    type Validate = ((data: unknown) => boolean) & { errors?: Record<string, unknown>[] | null };
    const mod = (await import(pathToFileURL(file).href)) as Record<string, Validate>;
    await rm(file, { force: true });
    const reference = make();
    for (const name of Object.keys(schemas)) {
      const expected = reference.getSchema(`compact.json#/$defs/${name}`)!;
      for (const input of inputs) {
        const a = structuredClone(input);
        const b = structuredClone(input);
        const valid = expected(a);
        expect(mod[name]!(b), `${name} ${JSON.stringify(input)}`).toBe(valid);
        expect(b).toEqual(a);
        const withoutSchemaPath = (expected.errors ?? []).map(({ schemaPath: _schemaPath, ...rest }) => rest);
        expect(mod[name]!.errors ?? []).toEqual(withoutSchemaPath);
      }
    }
  });

  it('keeps schemaPath unless told to drop it, and a schema constant the code reads', () => {
    const ajv = createStandaloneAjv('3.0.3', { strict: false, allErrors: true });
    ajv.addSchema({ $id: 'k.json', $defs: { e: { type: 'object', properties: { a: { enum: ['x', 'y'] } } } } });
    const full = standaloneModule(ajv, { e: 'k.json#/$defs/e' });
    const kept = compactStandaloneCode(full, { dropSchemaPath: false });
    expect(kept).toContain('schemaPath:"#/properties/a/enum"');
    expect(kept).toMatch(/allowedValues: schema\d+\.properties\.a\.enum/);
    expect(kept).toMatch(/^const schema\d+ = /m);
  });
});

describe('compactStandaloneCode (D190): a module that already says $e or $t', () => {
  it('keeps its pushes inline (no helper that could collide), still without schemaPath', async () => {
    const ajv = createStandaloneAjv('3.1.0', { strict: false, allErrors: true });
    ajv.addSchema({ $id: 'c.json', $defs: { s: { type: 'object', properties: { $t: { type: 'string' } } } } });
    const compact = compactStandaloneCode(standaloneModule(ajv, { s: 'c.json#/$defs/s' }), { dropSchemaPath: true });
    expect(compact).not.toMatch(/function \$[et]\b/);
    expect(compact).toContain('(vErrors ??= []).push({instancePath:instancePath+"/$t",keyword:"type"');
    const dir = path.join(process.cwd(), 'node_modules/.cache/paygate-ajv-compact-test');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `collision-${process.pid}.mjs`);
    await writeFile(file, compact);
    type Validate = ((data: unknown) => boolean) & { errors?: Record<string, unknown>[] | null };
    const { s } = (await import(pathToFileURL(file).href)) as Record<string, Validate>;
    await rm(file, { force: true });
    expect(s!({ $t: 1 })).toBe(false);
    expect(s!.errors).toEqual([{ instancePath: '/$t', keyword: 'type', params: { type: 'string' }, message: 'must be string' }]);
  });
});

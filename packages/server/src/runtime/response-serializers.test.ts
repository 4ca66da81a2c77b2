/**
 * Responses compiled from the spec (D142 compiled response serializers in production): undeclared properties never leave the server, and for every response
 * example of Paygate's spec and for random bodies generated from the schemas (fast-check, fixed seed) the compiled
 * serializer writes JSON that parses equal to JSON.stringify's of the value without its undeclared properties, in a
 * stable property order. Also on Shelf and on a small OpenAPI 3.0 document with nullable, a $ref cycle, dates and
 * integers (non-Paygate specs).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { apiDocument as paygateDocument, operations as paygateOperations } from '@paygate/contract';
import { apiDocument as shelfDocument } from '../../../../test/fixtures/shelf/generated/contract/api-document.gen.js';
import { operations as shelfOperations } from '../../../../test/fixtures/shelf/generated/contract/operations.gen.js';
import { readFileSync } from 'node:fs';
import { runtimeDocument } from '../../../../generators/src/emit/runtime-document.js';
import { ResponseContractError, ResponseSerializers } from './response-serializers.js';
import type { ApiDocument, OperationRoute } from './types.js';
import { isObj, unescapePointerToken } from '@paygate/contract/json';

type Obj = Record<string, unknown>;
const SEED = 20261127;

function resolve(document: ApiDocument, node: unknown): unknown {
  let current = node;
  while (isObj(current) && typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, t) => (isObj(at) ? at[unescapePointerToken(t)] : undefined), document);
  }
  return current;
}

interface Declared {
  operation: OperationRoute;
  status: string;
  contentType: string;
  schema: unknown;
  examples: unknown[];
}

/** Every JSON response of every operation, with its schema and examples. */
function declaredResponses(document: ApiDocument, operations: readonly OperationRoute[]): Declared[] {
  const out: Declared[] = [];
  for (const operation of operations) {
    const op = ((document.paths as Obj)[operation.path] as Obj)[operation.method] as Obj;
    for (const [status, ref] of Object.entries((op.responses ?? {}) as Obj)) {
      const response = resolve(document, ref) as Obj;
      for (const [contentType, media] of Object.entries((response.content ?? {}) as Record<string, Obj>)) {
        if (!/json/.test(contentType) || media.schema === undefined) continue;
        const examples = [
          ...(media.example !== undefined ? [media.example] : []),
          ...Object.values((media.examples ?? {}) as Record<string, Obj>)
            .map((e) => resolve(document, e) as Obj)
            .map((e) => e.value),
        ];
        out.push({ operation, status, contentType, schema: media.schema, examples: examples.filter((e) => e !== undefined) });
      }
    }
  }
  return out;
}

const statusOf = (key: string) => (key === 'default' ? 599 : /^\dXX$/.test(key) ? Number(key[0]) * 100 + 99 : Number(key));
/**
 * The value with the declared properties of every object in reverse order (maps, whose keys are data, keep the order
 * they were given in: the serializer writes them as given).
 */
function reversedDeclared(document: ApiDocument, node: unknown, value: unknown): unknown {
  const schema = resolve(document, node);
  if (Array.isArray(value))
    return isObj(schema) && schema.items !== undefined ? value.map((v) => reversedDeclared(document, schema.items, v)) : value;
  if (!isObj(value) || value instanceof Date || !isObj(schema) || !isObj(schema.properties)) return value;
  const properties = schema.properties;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, k in properties ? reversedDeclared(document, properties[k], v) : v]),
  );
}

/** Strings JSON must escape, lone surrogates included. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('\ud800', 'a\udc00b', '"quoted"\\', '\u0000\u001f\n\t', '</script>', '😀', ''),
);

/**
 * A generated body: `clean` holds only what the schema declares, `sent` the same value with an undeclared property in
 * every object that does not allow others (what a handler leaking a column returns).
 */
type Pair = { clean: unknown; sent: unknown };
function bodies(document: ApiDocument, node: unknown, depth = 0, strip = true): fc.Arbitrary<Pair> {
  const schema = resolve(document, node);
  const same = (a: fc.Arbitrary<unknown>) => a.map((v) => ({ clean: v, sent: v }));
  if (!isObj(schema) || depth > 4) return same(fc.constant(null));
  if (schema.const !== undefined) return same(fc.constant(schema.const));
  if (Array.isArray(schema.enum)) return same(fc.constantFrom(...(schema.enum as unknown[])));
  // a union: the branch is chosen by validating the value; values of one branch only, nothing undeclared added
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf))
    return fc.oneof(...((schema.oneOf ?? schema.anyOf) as unknown[]).map((b) => bodies(document, b, depth + 1, false)));
  if (Array.isArray(schema.allOf)) {
    const merged: Obj = { type: 'object', properties: {}, required: [] };
    for (const part of schema.allOf.map((p) => resolve(document, p) as Obj)) {
      Object.assign(merged.properties as Obj, part.properties ?? {});
      (merged.required as string[]).push(...((part.required ?? []) as string[]));
      if (part.additionalProperties !== undefined) merged.additionalProperties = part.additionalProperties;
    }
    return bodies(document, merged, depth, strip);
  }
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : schema.type !== undefined
      ? [schema.type as string]
      : schema.properties !== undefined
        ? ['object']
        : [];
  if (schema.nullable === true) types.push('null');
  if (types.length === 0) return same(fc.jsonValue({ maxDepth: 2 }));
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<Pair> => {
      switch (type) {
        case 'null':
          return same(fc.constant(null));
        case 'boolean':
          return same(fc.boolean());
        case 'integer':
          return same(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(-0, 2 ** 53, 1e21, -(2 ** 63))));
        case 'number':
          return same(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 0.1, 1e-7, 1e21)));
        case 'string':
          return same(schema.format === 'date-time' ? fc.oneof(fc.date({ noInvalidDate: true }), text) : text);
        case 'array':
          if (depth > 2) return same(fc.constant([]));
          return fc
            .array(bodies(document, schema.items ?? {}, depth + 1, strip), { maxLength: 3 })
            .map((items) => ({ clean: items.map((i) => i.clean), sent: items.map((i) => i.sent) }));
        default: {
          const properties = (schema.properties ?? {}) as Obj;
          const required = new Set((schema.required ?? []) as string[]);
          const names = Object.keys(properties);
          const freeForm = names.length === 0 && schema.additionalProperties === undefined;
          if (freeForm || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) {
            // extra properties declared: kept as sent
            const extra =
              schema.additionalProperties === true || freeForm
                ? fc.jsonValue({ maxDepth: 1 })
                : bodies(document, schema.additionalProperties, depth + 1, strip).map((p) => p.clean);
            return fc
              .tuple(
                fc.record(Object.fromEntries(names.map((n) => [n, bodies(document, properties[n], depth + 1, strip)])), {
                  requiredKeys: names.filter((n) => required.has(n)),
                }),
                fc.dictionary(
                  fc.string({ maxLength: 5 }).filter((k) => !names.includes(k) && k !== '__proto__'),
                  extra,
                  { maxKeys: 2 },
                ),
              )
              .map(([declared, extras]) => {
                const clean = { ...Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, v.clean])), ...extras };
                return { clean, sent: { ...Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, v.sent])), ...extras } };
              });
          }
          return fc
            .record(Object.fromEntries(names.map((n) => [n, bodies(document, properties[n], depth + 1, strip)])), {
              requiredKeys: names.filter((n) => required.has(n)),
            })
            .map((declared) => {
              const clean = Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, v.clean]));
              const sent: Obj = Object.fromEntries(Object.entries(declared).map(([k, v]) => [k, v.sent]));
              if (strip) sent['internal_column_not_in_the_spec'] = 'must never leave the server';
              return { clean, sent };
            });
        }
      }
    }),
  );
}

/** Whether a schema reaches a union (oneOf/anyOf) through its properties, items and references. */
function hasUnion(document: ApiDocument, node: unknown, seen = new Set<unknown>()): boolean {
  const schema = resolve(document, node);
  if (!isObj(schema) || seen.has(schema)) return false;
  seen.add(schema);
  if (schema.oneOf !== undefined || schema.anyOf !== undefined) return true;
  const children = [
    ...Object.values((schema.properties ?? {}) as Obj),
    schema.items,
    schema.additionalProperties,
    ...((schema.allOf ?? []) as unknown[]),
  ];
  return children.some((c) => hasUnion(document, c, seen));
}

const silent = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });
const reparsed = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('compiled response serializers (D142)', () => {
  it('strips a property the schema does not declare (Paygate GET order), keeps the rest as JSON.stringify writes it', () => {
    const logger = silent();
    const serializers = new ResponseSerializers(paygateDocument, logger);
    const getOrder = paygateOperations.find((op) => op.operationId === 'getOrder')!;
    const example = declaredResponses(paygateDocument, [getOrder]).find((d) => d.status === '200')!.examples[0] as Obj;
    const leaked = { ...example, internal_note: 'leak', data: { ...(example.data as Obj), password_hash: 'x' } };
    const out = JSON.parse(serializers.stringify(getOrder, 200, 'application/json', leaked)) as Obj;
    expect(out).toEqual(example);
    expect(out).not.toHaveProperty('internal_note');
    expect(out.data).not.toHaveProperty('password_hash');
    expect(logger.warn).not.toHaveBeenCalled();
    expect(logger.error).not.toHaveBeenCalled();
  });

  const paygate = declaredResponses(paygateDocument, paygateOperations);
  it('covers the spec: every JSON response of Paygate compiles', () => {
    const logger = silent();
    const serializers = new ResponseSerializers(paygateDocument, logger);
    expect(paygate.length).toBeGreaterThan(100);
    for (const d of paygate)
      expect(
        serializers.serializer(d.operation, statusOf(d.status), d.contentType),
        `${d.operation.operationId} ${d.status}`,
      ).not.toBeNull();
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it.each(paygate.filter((d) => d.examples.length > 0).map((d) => [`${d.operation.operationId} ${d.status} ${d.contentType}`, d] as const))(
    'example of %s: parses equal to JSON.stringify, same text whatever the key order',
    (_label, d) => {
      const serializers = new ResponseSerializers(paygateDocument, silent());
      for (const example of d.examples) {
        const out = serializers.stringify(d.operation, statusOf(d.status), d.contentType, example);
        expect(JSON.parse(out)).toEqual(reparsed(example));
        expect(
          serializers.stringify(d.operation, statusOf(d.status), d.contentType, reversedDeclared(paygateDocument, d.schema, example)),
        ).toBe(out);
        // an undeclared property added at the top: stripped, the rest unchanged
        if (isObj(example))
          expect(
            serializers.stringify(d.operation, statusOf(d.status), d.contentType, { ...example, internal_column_not_in_the_spec: 'x' }),
          ).toBe(out);
      }
    },
  );

  // Unions (oneOf/anyOf) choose their branch by validating the value, which random strings (patterns, formats) do not
  // satisfy: their responses are covered by the spec's examples above, with an undeclared property added.
  it.each(
    paygate
      .filter((d) => /^2/.test(d.status) && !hasUnion(paygateDocument, d.schema))
      .map((d) => [`${d.operation.operationId} ${d.status}`, d] as const),
  )('random bodies of %s (fast-check, fixed seed): undeclared stripped, the rest as JSON.stringify', (_label, d) => {
    const serializers = new ResponseSerializers(paygateDocument, silent());
    fc.assert(
      fc.property(bodies(paygateDocument, d.schema), ({ clean, sent }) => {
        const out = serializers.stringify(d.operation, statusOf(d.status), d.contentType, sent);
        expect(JSON.parse(out)).toEqual(reparsed(clean));
        expect(
          serializers.stringify(d.operation, statusOf(d.status), d.contentType, reversedDeclared(paygateDocument, d.schema, sent)),
        ).toBe(out);
      }),
      { seed: SEED, numRuns: 25 },
    );
  });
});

describe('the runtime document carries what the serializers read (D158)', () => {
  // A non-Paygate spec with prose, examples and vendor extensions everywhere: its runtime document (what
  // api-document.gen.ts embeds) must serialize every body exactly as the full bundled document does.
  const full = JSON.parse(readFileSync('test/fixtures/realworld/adyen-checkout/openapi.json', 'utf8')) as ApiDocument;
  const slim = runtimeDocument(full) as ApiDocument;
  const routes = Object.entries(full.paths as Record<string, Obj>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => isObj(op) && typeof op.operationId === 'string')
      .map(([method, op]) => ({ operationId: (op as Obj).operationId, path, method }) as unknown as OperationRoute),
  );
  const declared = declaredResponses(full, routes).filter((d) => !hasUnion(full, d.schema));

  it('drops what the serializers never read (at least half the bytes), and every JSON response still compiles', () => {
    expect(JSON.stringify(slim).length).toBeLessThan(JSON.stringify(full).length / 2);
    expect(declared.length).toBeGreaterThan(20);
    const serializers = new ResponseSerializers(slim, silent());
    for (const d of declaredResponses(full, routes))
      expect(serializers.serializer(d.operation, statusOf(d.status), d.contentType), d.operation.operationId).not.toBeNull();
  });

  it.each(declared.map((d) => [`${d.operation.operationId} ${d.status}`, d] as const))(
    'Adyen random bodies of %s: the same JSON from the runtime document as from the full one',
    (_label, d) => {
      const fromFull = new ResponseSerializers(full, silent());
      const fromSlim = new ResponseSerializers(slim, silent());
      fc.assert(
        fc.property(bodies(full, d.schema), ({ sent }) => {
          const status = statusOf(d.status);
          expect(fromSlim.stringify(d.operation, status, d.contentType, sent)).toBe(
            fromFull.stringify(d.operation, status, d.contentType, sent),
          );
        }),
        { seed: SEED, numRuns: 10 },
      );
    },
  );
});

describe('compiled response serializers on non-Paygate specs', () => {
  it('Shelf: free-form metadata kept, a union (oneOf) serialised by its branch, undeclared properties stripped', () => {
    const serializers = new ResponseSerializers(shelfDocument, silent());
    const getItem = shelfOperations.find((op) => op.operationId === 'getItem')!;
    const book = {
      kind: 'book',
      id: 'itm_1',
      title: 'Dune',
      author: { name: 'Herbert' },
      metadata: { shelf: 3, tags: ['sf'], nested: { a: null } },
    };
    const out = JSON.parse(serializers.stringify(getItem, 200, 'application/json', { ...book, secret: 'x' })) as Obj;
    expect(out).toEqual(book);
    const error = JSON.parse(
      serializers.stringify(getItem, 404, 'application/json', { code: 'item_not_found', message: 'No such item', stack: 'at x' }),
    );
    expect(error).toEqual({ code: 'item_not_found', message: 'No such item' });
  });

  it.each(
    declaredResponses(shelfDocument, shelfOperations)
      .filter((d) => !hasUnion(shelfDocument, d.schema))
      .map((d) => [`${d.operation.operationId} ${d.status}`, d] as const),
  )('Shelf random bodies of %s', (_label, d) => {
    const serializers = new ResponseSerializers(shelfDocument, silent());
    fc.assert(
      fc.property(bodies(shelfDocument, d.schema), ({ clean, sent }) => {
        expect(JSON.parse(serializers.stringify(d.operation, statusOf(d.status), d.contentType, sent))).toEqual(reparsed(clean));
      }),
      { seed: SEED, numRuns: 25 },
    );
  });

  // OpenAPI 3.0: nullable, a recursive schema through $ref, dates, integers vs numbers, additionalProperties as a schema
  const tree: ApiDocument = {
    openapi: '3.0.3',
    info: { title: 'Tree', version: '1' },
    paths: {
      '/nodes/{id}': {
        get: {
          operationId: 'getNode',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } },
        },
      },
    },
    components: {
      schemas: {
        Node: {
          type: 'object',
          required: ['id', 'children'],
          properties: {
            id: { type: 'integer' },
            weight: { type: 'number' },
            label: { type: 'string', nullable: true },
            at: { type: 'string', format: 'date-time' },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
            parent: { allOf: [{ $ref: '#/components/schemas/Leaf' }], nullable: true },
          },
        },
        Leaf: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      },
    },
  };
  const getNode = { operationId: 'getNode', method: 'get', path: '/nodes/{id}' } as unknown as OperationRoute;

  it('OpenAPI 3.0 document: recursion, nullable, Date objects, integers written as sent (never truncated)', () => {
    const logger = silent();
    const serializers = new ResponseSerializers(tree, logger);
    const at = new Date('2026-11-27T01:02:03.004Z');
    const node = {
      id: 10.5,
      weight: -0,
      label: null,
      at,
      labels: { a: 'x' },
      children: [{ id: 2 ** 53, children: [], secret: 1 }],
      parent: { id: 1 },
      secret: 'x',
    };
    const out = serializers.stringify(getNode, 200, 'application/json', node);
    expect(JSON.parse(out)).toEqual({
      id: 10.5,
      weight: 0,
      label: null,
      at: at.toISOString(),
      labels: { a: 'x' },
      children: [{ id: 2 ** 53, children: [] }],
      parent: { id: 1 },
    });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('OpenAPI 3.0 document: random bodies', () => {
    const serializers = new ResponseSerializers(tree, silent());
    fc.assert(
      fc.property(bodies(tree, { $ref: '#/components/schemas/Node' }), ({ clean, sent }) => {
        expect(JSON.parse(serializers.stringify(getNode, 200, 'application/json', sent))).toEqual(reparsed(clean));
      }),
      { seed: SEED, numRuns: 100 },
    );
  });

  it('a schema that cannot be compiled: JSON.stringify for that response, said once; a body that does not fit: JSON.stringify, logged once', () => {
    const broken: ApiDocument = {
      openapi: '3.1.0',
      info: { title: 'Broken', version: '1' },
      paths: {
        '/x': {
          get: {
            operationId: 'getX',
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Missing' } } } },
            },
          },
        },
      },
      components: { schemas: { Need: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } },
    };
    const getX = { operationId: 'getX', method: 'get', path: '/x' } as unknown as OperationRoute;
    const logger = silent();
    const serializers = new ResponseSerializers(broken, logger);
    expect(serializers.stringify(getX, 200, 'application/json', { a: 1 })).toBe('{"a":1}');
    expect(serializers.stringify(getX, 200, 'application/json', { a: 2 })).toBe('{"a":2}');
    expect(logger.warn).toHaveBeenCalledTimes(1);

    const needs: ApiDocument = {
      ...broken,
      paths: {
        '/x': {
          get: {
            operationId: 'getX',
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Need' } } } } },
          },
        },
      },
    };
    const strict = new ResponseSerializers(needs, logger);
    expect(strict.stringify(getX, 200, 'application/json', { other: 1 })).toBe('{"other":1}');
    strict.stringify(getX, 200, 'application/json', { other: 2 });
    expect(logger.error).toHaveBeenCalledTimes(1);
  });
});

describe('a value outside its enum or const is refused, never sent (D279)', () => {
  const doc: ApiDocument = {
    openapi: '3.1.0',
    info: { title: 'Enums', version: '1' },
    paths: {
      '/p': {
        get: {
          operationId: 'getP',
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        Status: { type: 'string', enum: ['CAPTURED', 'FAILED'] },
        Envelope: {
          type: 'object',
          properties: {
            success: { type: 'boolean', const: true },
            data: {
              allOf: [
                {
                  type: 'object',
                  properties: {
                    status: { $ref: '#/components/schemas/Status' },
                    lines: { type: 'array', items: { type: 'object', properties: { kind: { enum: ['capture', 'refund'] } } } },
                  },
                },
              ],
            },
          },
        },
      },
    },
  };
  const getP = { operationId: 'getP', method: 'get', path: '/p' } as unknown as OperationRoute;

  it.each([
    ['a listed value', { success: true, data: { status: 'CAPTURED', lines: [{ kind: 'refund' }] } }, undefined],
    ["null and absent values (the validator's to judge)", { success: true, data: { status: null } }, undefined],
    [
      'a status outside the enum (through $ref and allOf)',
      { success: true, data: { status: 'SUCCESS' } },
      /data\.status "SUCCESS" is not in #\/components\/schemas\/Status\/enum/,
    ],
    [
      'an item of an array outside the enum',
      { success: true, data: { lines: [{ kind: 'capture' }, { kind: 'chargeback' }] } },
      /data\.lines\[1\]\.kind "chargeback"/,
    ],
    ['a const broken', { success: false }, /success false is not in #\/components\/schemas\/Envelope\/properties\/success\/const/],
  ] as const)('%s', (_name, body, refused) => {
    const logger = silent();
    const serializers = new ResponseSerializers(doc, logger);
    if (refused === undefined) {
      expect(JSON.parse(serializers.stringify(getP, 200, 'application/json', body))).toEqual(body);
      expect(logger.error).not.toHaveBeenCalled();
    } else {
      expect(() => serializers.stringify(getP, 200, 'application/json', body)).toThrow(ResponseContractError);
      expect(() => serializers.stringify(getP, 200, 'application/json', body)).toThrow(refused);
      expect(logger.error).toHaveBeenCalled();
    }
  });
});

describe('nullable references (oneOf/anyOf of null and one typed schema) serialised without Ajv (D186)', () => {
  const nullable: ApiDocument = {
    openapi: '3.1.0',
    info: { title: 'Nullable', version: '1' },
    paths: {
      '/n': {
        get: {
          operationId: 'getN',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Holder' } } } } },
        },
      },
    },
    components: {
      schemas: {
        Holder: {
          type: 'object',
          properties: {
            ref_one_of: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Invoice' }] },
            ref_any_of_reversed: { anyOf: [{ $ref: '#/components/schemas/Invoice' }, { type: 'null', description: 'none yet' }] },
            inline: { oneOf: [{ type: 'null' }, { type: 'object', properties: { n: { type: 'integer' } } }] },
            // the referenced schema declares no type (a union itself): left a union, chosen by validation as before
            untyped: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Either' }] },
          },
        },
        Invoice: { type: 'object', required: ['number'], properties: { number: { type: 'string' }, date: { type: 'string' } } },
        Either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    },
  };
  const getN = { operationId: 'getN', method: 'get', path: '/n' } as unknown as OperationRoute;
  const invoice = { number: 'INV-1', date: '2026-11-27' };

  it.each([
    ['null', { ref_one_of: null, ref_any_of_reversed: null, inline: null, untyped: null }, undefined],
    [
      'a value: undeclared properties stripped',
      { ref_one_of: { ...invoice, secret: 1 }, ref_any_of_reversed: { ...invoice, secret: 2 } },
      { ref_one_of: invoice, ref_any_of_reversed: invoice },
    ],
    ['inline branch', { inline: { n: 3, secret: 'x' } }, { inline: { n: 3 } }],
    ['a branch left a union', { untyped: 7 }, undefined],
    ['escaping inside the referenced schema', { ref_one_of: { number: '"\u0000\ud800</script>' } }, undefined],
  ])('%s: written as JSON.stringify writes the declared value', (_label, body, expected) => {
    const logger = silent();
    const serializers = new ResponseSerializers(nullable, logger);
    expect(JSON.parse(serializers.stringify(getN, 200, 'application/json', body))).toEqual(reparsed(expected ?? body));
    expect(logger.error).not.toHaveBeenCalled();
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('the Paygate GET order (invoice and settlement_details are nullable references): no Ajv validation, on the first response or later', async () => {
    // the Ajv fast-json-stringify itself loads (its own dependency, resolved from its directory)
    const { createRequire } = await import('node:module');
    const fromFjs = createRequire(createRequire(import.meta.url).resolve('fast-json-stringify'));
    const Ajv = fromFjs('ajv') as { default: { prototype: { validate: (...args: unknown[]) => unknown } } };
    const validate = vi.spyOn(Ajv.default.prototype, 'validate');
    try {
      const serializers = new ResponseSerializers(paygateDocument, silent());
      const getOrder = paygateOperations.find((op) => op.operationId === 'getOrder')!;
      const example = declaredResponses(paygateDocument, [getOrder]).find((d) => d.status === '200')!.examples[0] as Obj;
      const data = example.data as Obj;
      for (const invoiceValue of [null, { number: 'INV-1', date: '2026-11-27', file: null }]) {
        const body = { ...example, data: { ...data, invoice: invoiceValue } };
        expect(JSON.parse(serializers.stringify(getOrder, 200, 'application/json', body))).toEqual(reparsed(body));
      }
      expect(validate).not.toHaveBeenCalled();
    } finally {
      validate.mockRestore();
    }
  });
});

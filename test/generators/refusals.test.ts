/**
 * What the generators do not support is refused before anything is written, naming the file, the JSON pointer and
 * the fix, never with a stack trace (decision D61); derived operationIds stay deterministic (D62 missing operationIds derived from method and path).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../generators/src/cli/generate.js';
import { UnsupportedSpecError } from '../../generators/src/parse/refusal.js';
import { generate } from '../../generators/src/pipeline.js';
import { ROOT } from './fixtures.js';

const ok = { '200': { description: 'ok' } };
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
const doc = (paths: object, components: object = {}, openapi = '3.0.3') => ({
  openapi,
  info: { title: 'T', version: '1' },
  paths,
  components,
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'paygate-refusals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function generateDocument(name: string, document: object, lint: 'skip' | 'strict' = 'skip') {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(document));
  return generate({
    rootDir: ROOT,
    openapi: file,
    asyncapi: null,
    lint,
    targets: ['contract', 'server', 'client', 'webhooks'],
    contractImport: 'relative',
  });
}

describe('unsupported constructs are refused with their location', () => {
  it.each([
    [
      'a patternProperties key invalid with and without u',
      doc({}, { schemas: { M: { type: 'object', patternProperties: { '(?i)^a$': { type: 'string' } } } } }),
      '#/components/schemas/M/patternProperties/(?i)^a$',
      /not an ECMA-262 regular expression/,
    ],
    ['Swagger 2.0', { swagger: '2.0', info: { title: 'T', version: '1' }, paths: {} }, '#/swagger', /Swagger 2\.0 documents are not read/],
    ['OpenAPI 3.2', doc({}, {}, '3.2.0'), '#/openapi', /not a version the generators read/],
    [
      'a $ref cycle',
      doc({}, { schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } } }),
      '#/components/schemas/A',
      /\$ref cycle \(A -> B -> A\)/,
    ],
    [
      'a duplicate operationId',
      doc({ '/a': { get: { operationId: 'x', responses: ok } }, '/b': { get: { operationId: 'x', responses: ok } } }),
      '#/paths/~1b/get/operationId',
      /already used by GET \/a/,
    ],
    [
      'a component named like an inherited member',
      doc({}, { schemas: { constructor: { type: 'string' } } }),
      '#/components/schemas/constructor',
      /every JavaScript object inherits/,
    ],
    [
      'a status range written twice, in two cases (D199)',
      doc({ '/a': { get: { responses: { ...ok, '4xx': { description: 'a' }, '4XX': { description: 'b' } } } } }),
      '#/paths/~1a/get/responses/4XX',
      /declare the status range 4XX twice \(4xx and 4XX\)/,
    ],
    [
      'an undeclared path template parameter, under strict lint (D201)',
      doc({ '/a/{id}': { get: { responses: ok } }, '/b/{b_id}/c': { get: { responses: ok } } }),
      '#/paths/~1a~1{id}',
      /the path template names \{id\}, which no parameter of GET \/a\/\{id\} declares; OpenAPI requires .* \(and 1 more: \/b\/\{b_id\}\/c \{b_id\}\)/,
      'strict',
    ],
  ] as [string, object, string, RegExp, ('skip' | 'strict')?][])('%s', async (name, document, pointer, problem, lint) => {
    const refusal = await generateDocument(name.replace(/\W+/g, '-'), document, lint).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(UnsupportedSpecError);
    const { file, pointer: at, message } = refusal as UnsupportedSpecError;
    expect(file).toMatch(/\.json$/);
    expect(at).toBe(pointer);
    expect(message).toContain(`${file}${pointer}`);
    expect(message).toMatch(problem);
    expect(message).toMatch(
      /\n {2}Fix: .+\n {2}Then generate again: `npx paygate generate` \(in the Paygate repository: `npm run generate`\)\.$/,
    );
  });

  it('a query string written into a path whose {x} is declared nowhere generates under strict lint: a string read from the query, with a warning naming it (D411)', async () => {
    const result = await generateDocument(
      'query-string-undeclared',
      doc({
        '/search?q={q}': { get: { operationId: 'search', responses: ok } },
        '/a/{id}': {
          get: { operationId: 'getA', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: ok },
        },
      }),
      'strict',
    );
    expect(result.warnings.map((w) => w.pointer.replace(/^.*#/, '#'))).toEqual(['#/paths/~1search?q={q}']);
    expect(result.warnings[0]!.problem).toMatch(
      /Its \{q\} is declared by no parameter: generated as a string read from the query, not validated \(D411\)\./,
    );
    // a path template expression declared nowhere is still refused (D201 undeclared path parameters refused under strict lint): the exemption is the query string's alone
    const refusal = await generateDocument(
      'path-undeclared-beside',
      doc({ '/search?q={q}': { get: { responses: ok } }, '/b/{id}': { get: { responses: ok } } }),
      'strict',
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(UnsupportedSpecError);
    expect((refusal as UnsupportedSpecError).pointer).toBe('#/paths/~1b~1{id}');
  });

  it('a query string written into a path whose {x} are declared query parameters generates under strict lint, with a warning naming it (D410)', async () => {
    const result = await generateDocument(
      'query-string-declared',
      doc({
        '/search?q={q}': {
          get: {
            operationId: 'search',
            parameters: [{ name: 'q', in: 'query', required: true, schema: { type: 'string' } }],
            responses: ok,
          },
        },
        '/items?kind=book': { get: { operationId: 'listBooks', responses: ok } },
      }),
      'strict',
    );
    expect(result.warnings.map((w) => w.pointer.replace(/^.*#/, '#'))).toEqual(['#/paths/~1items?kind=book', '#/paths/~1search?q={q}']);
    expect(result.warnings[0]!.problem).toMatch(
      /holds a query string; OpenAPI paths have no query part\. Generated as the path before `\?`/,
    );
    // `q` is the query parameter, not a path parameter: no positional client argument, no path validator property
    const validators = result.files.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents;
    expect(validators).toMatch(/"search": \{\n\s+query: /);
    expect(validators).not.toMatch(/"search": \{[^}]*params: /);
    const client = result.files.find((f) => f.path.endsWith('client.gen.ts'))!.contents;
    expect(client).toContain('operation(send, META_0, "GET", "/search?q={q}", [], false, true)');
  });

  it('a parameter the scaffold cannot parse skips the operation on the server side only, named with the fix (contract and client generate)', async () => {
    const result = await generateDocument(
      'object-header',
      doc({
        '/a': { get: { operationId: 'getA', parameters: [{ name: 'X-O', in: 'header', schema: { type: 'object' } }], responses: ok } },
      }),
    );
    expect(result.skippedServerOperations).toEqual([
      {
        operationId: 'getA',
        pointer: expect.stringMatching(/object-header\.json#\/paths\/~1a\/get\/parameters$/),
        problem: expect.stringMatching(/objects are only parsed in query and path parameters/),
        fix: expect.any(String),
      },
    ]);
    const validators = result.files.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents;
    expect(validators).toMatch(
      /"getA": \{\n\s+parameters: \[\],\n\s+queryNames: \[\],\n\s+unsupported: "operation getA: header parameter 'X-O': objects are only parsed in query and path parameters",/,
    );
    expect(result.files.map((f) => f.path)).toEqual(
      expect.arrayContaining([expect.stringMatching(/client\.gen\.ts$/), expect.stringMatching(/types\.gen\.ts$/)]),
    );
  });

  it('the CLI prints the refusal without a stack trace and exits 1', async () => {
    const file = path.join(dir, 'cli.json');
    await writeFile(file, JSON.stringify(doc({}, { schemas: { A: { type: 'object', patternProperties: { '[a-': {} } } } })));
    const lines: string[] = [];
    const code = await run(
      {
        rootDir: ROOT,
        openapi: file,
        asyncapi: null,
        lintConfig: undefined,
        lint: 'skip',
        targets: ['contract'],
        check: true,
        outRoot: dir,
      },
      (line) => lines.push(line),
    );
    const output = lines.join('\n');
    expect(code).toBe(1);
    expect(output).toContain('#/components/schemas/A/patternProperties/[a-');
    expect(output).toContain('Fix:');
    expect(output).not.toMatch(/\n\s+at /);
  });
});

describe('valid OpenAPI is never refused for what Ajv cannot compile (D198)', () => {
  const enumQuery = doc({
    '/a': { get: { operationId: 'getA', parameters: [{ name: 'q', in: 'query', schema: { type: 'string', enum: [] } }], responses: ok } },
  });

  it.each([
    ["the issue's minimal reproduction: a query parameter { type: string, enum: [] }", enumQuery],
    [
      "the same in 3.1, beside an allOf (Discord's shape)",
      doc(
        {
          '/a': {
            get: {
              parameters: [{ name: 'q', in: 'query', schema: { type: 'string', enum: [], allOf: [{ $ref: '#/components/schemas/S' }] } }],
              responses: ok,
            },
          },
        },
        { schemas: { S: { type: 'string', enum: ['SUBMITTED', 'APPROVED'] } } },
        '3.1.0',
      ),
    ],
    [
      'a body property with enum: [] and a tuple without minItems (3.1)',
      doc(
        {
          '/a': {
            post: {
              requestBody: json({
                type: 'object',
                properties: { s: { type: 'string', enum: [] }, pair: { type: 'array', prefixItems: [{ type: 'string' }] } },
              }),
              responses: ok,
            },
          },
        },
        {},
        '3.1.0',
      ),
    ],
    [
      'what strict mode would refuse: an unknown format, minContains without contains, a union type, an unknown keyword, items without type',
      doc(
        {
          '/a': {
            post: {
              parameters: [{ name: 'q', in: 'query', schema: { type: ['string', 'integer'], format: 'acme-id' } }],
              requestBody: json({
                type: 'object',
                properties: {
                  tags: { type: 'array', minContains: 2, items: { type: 'string' } },
                  loose: { items: { type: 'string' }, properties: { a: { type: 'string' } }, nullable: true, 'acme-hint': 'x' },
                },
              }),
              responses: ok,
            },
          },
        },
        {},
        '3.1.0',
      ),
    ],
    [
      'a component tuple (3.1)',
      doc(
        { '/a': { post: { requestBody: json({ $ref: '#/components/schemas/Pair' }), responses: ok } } },
        { schemas: { Pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } } },
        '3.1.0',
      ),
    ],
  ])('%s: generates under strict lint, every validator compiled', async (name, document) => {
    const result = await generateDocument(name.replace(/\W+/g, '-').slice(0, 40), document, 'strict');
    expect(result.warnings).toEqual([]);
    const validators = result.files.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents;
    expect(validators).not.toContain('notValidated');
  });

  it('the empty enum accepts no value (as openapi-typescript types it: never)', async () => {
    const result = await generateDocument('empty-enum-never', enumQuery);
    expect(result.files.find((f) => f.path.endsWith('types.gen.ts'))!.contents).toMatch(/q\?: never;/);
    const validators = result.files.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents;
    const source = /const source = `([\s\S]*?)`;\n/.exec(validators)![1]!.replace(/\\`/g, '`').replace(/\\\\/g, '\\');
    const { validateGetAQuery } = new Function('require', source)(createRequire(import.meta.url)) as Record<
      string,
      (v: unknown) => boolean
    >;
    expect(validateGetAQuery!({})).toBe(true);
    expect(validateGetAQuery!({ q: 'anything' })).toBe(false);
  });

  it("a pattern that is no regular expression (PayPal invoicing's (?i)) is left out with a warning naming it (D206)", async () => {
    const result = await generateDocument(
      'inline-flags',
      doc({
        '/a': {
          get: { parameters: [{ name: 'q', in: 'query', schema: { type: 'string', pattern: '(?i)^a$', maxLength: 3 } }], responses: ok },
        },
      }),
      'strict',
    );
    expect(result.warnings).toEqual([
      {
        pointer: expect.stringMatching(/inline-flags\.json#\/paths\/~1a\/get\/parameters\/0\/schema\/pattern$/),
        problem: expect.stringMatching(
          /^pattern "\(\?i\)\^a\$" is not an ECMA-262 regular expression.* It is left out: values are not checked against it \(D206\)\.$/,
        ),
        fix: expect.stringMatching(/inline flags such as \(\?i\)/),
      },
    ]);
    const validators = result.files.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents;
    expect(validators).not.toContain('(?i)');
    expect(validators).not.toContain('notValidated');
  });

  it('a schema Ajv truly cannot compile leaves that one validator out, with a warning naming where, never a refusal', async () => {
    const result = await generateDocument(
      'uncompilable',
      doc({
        '/a': {
          post: {
            operationId: 'postA',
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
            // a keyword Ajv's code generation cannot take (its value's type is not one D430 leaves out)
            requestBody: json({ type: 'string', enum: 'five' }),
            responses: ok,
          },
        },
        '/b': { get: { operationId: 'getB', parameters: [{ name: 'q', in: 'query', schema: { type: 'integer' } }], responses: ok } },
      }),
    );
    expect(result.warnings).toEqual([
      {
        pointer: expect.stringMatching(/uncompilable\.json#\/paths\/~1a\/post\/requestBody\/content\/application~1json\/schema$/),
        problem: expect.stringMatching(/^the request validator validatePostABody0 is not generated: Ajv cannot compile its schema \(.+\)/),
        fix: expect.any(String),
      },
    ]);
    const validators = result.files.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents;
    // the operation's query is still validated; its body is not, and the table says so for the start-up line
    expect(validators).toMatch(/"postA": \{\n\s+query: validatePostAQuery,/);
    expect(validators).toContain('content: [{ mediaType: "application/json", validate: () => true }]');
    expect(validators).toMatch(/notValidated: "body application\/json \(.+\)",/);
    expect(validators).toMatch(/"getB": \{\n\s+query: validateGetBQuery,/);
  });
});

describe('operationIds', () => {
  it('are derived from method and path when missing or blank, deterministically, colliding ones suffixed', async () => {
    const document = doc({
      '/accounts/{account_id}/sub-accounts': { get: { responses: ok } },
      '/accounts/{account_id}/sub_accounts': { get: { responses: ok } },
      '/files': { post: { operationId: '  ', responses: ok }, put: { operationId: 'import', responses: ok } },
    });
    const ids = async () =>
      (await generateDocument('ids', document)).model.operations.map((o) => [o.method, o.path, o.operationId, o.synthesizedId]);
    const first = await ids();
    expect(first).toEqual([
      ['get', '/accounts/{account_id}/sub-accounts', 'getAccountsByAccountIdSubAccounts', true],
      ['get', '/accounts/{account_id}/sub_accounts', 'getAccountsByAccountIdSubAccounts2', true],
      ['put', '/files', 'import', false],
      ['post', '/files', 'postFiles', true],
    ]);
    expect(await ids()).toEqual(first);
  });
});

describe('AsyncAPI payloads', () => {
  it('get the same pattern rewrite as the OpenAPI document, listed under the AsyncAPI file', async () => {
    const source = await readFile(path.join(ROOT, 'test/fixtures/mini/asyncapi.yaml'), 'utf8');
    const asyncapi = path.join(dir, 'asyncapi.yaml');
    await writeFile(
      asyncapi,
      source.replace('merchant_id: { type: string }', () => "merchant_id: { type: string, pattern: '^\\d+]?$' }"),
    );
    const result = await generate({
      rootDir: ROOT,
      openapi: 'test/fixtures/mini/openapi.yaml',
      asyncapi,
      lint: 'skip',
      targets: ['webhooks'],
    });
    expect(result.translatedPatterns).toEqual([
      {
        file: asyncapi,
        pointer: '#/components/messages/MERCHANT_APPROVED/payload/properties/data/properties/merchant_id/pattern',
        from: '^\\d+]?$',
        to: '^\\d+\\]?$',
      },
    ]);
  });
});

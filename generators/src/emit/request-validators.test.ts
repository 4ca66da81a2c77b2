/** Paygate's parameter rules as the request-validators emitter derives them from the model (docs/request-validation.md, section 5). */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../model/build.js';
import { createRequire } from 'node:module';
import {
  clientQueryStyles,
  compileRequestValidators,
  modelSchemaResolver,
  standaloneAsFunctionBody,
  templateLiteralText,
  unsupportedServerOperations,
} from './request-validators.js';

function rulesFor(parameters: object[]): unknown {
  const document = {
    openapi: '3.1.0',
    info: { title: 'R', version: '1' },
    paths: { '/r/{p}': { get: { operationId: 'r', parameters, responses: { '200': { description: 'ok' } } } } },
    components: {
      schemas: {
        Tag: { type: 'object', properties: { Key: { type: 'string' }, Value: { type: 'string' } } },
        Names: { type: 'array', items: { type: 'string' } },
      },
    },
  };
  const { operations } = compileRequestValidators({ model: buildModel(document, { source: 'r' }) });
  const field = operations[0]!.fields.find((f) => f.name === 'parameters')!;
  return JSON.parse(field.value);
}

const pathParameter = { name: 'p', in: 'path', required: true, schema: { type: 'string' } };
/** The operation's parameters: the path template needs `p`, unless the case is about `p` itself. */
const withPath = (parameter: { in: string; [key: string]: unknown }) =>
  parameter.in === 'path' ? [parameter] : [pathParameter, parameter];
const array = { type: 'array', items: { type: 'string' } };
const object = { type: 'object', properties: { x: { type: 'integer' }, ys: array } };

describe('request-validators emitter: parameter rules', () => {
  it.each([
    ['query primitive', { name: 'q', in: 'query', schema: { type: 'integer' } }, { parse: 'none', reserved: 'whole' }],
    ['query primitive, allowReserved', { name: 'q', in: 'query', allowReserved: true, schema: { type: 'string' } }, { parse: 'none' }],
    ['query array, form explode (default)', { name: 'q', in: 'query', schema: array }, { parse: 'wrap', reserved: 'whole' }],
    ['query array, form', { name: 'q', in: 'query', explode: false, schema: array }, { parse: 'split', delimiter: ',', reserved: 'comma' }],
    [
      'query array, spaceDelimited',
      { name: 'q', in: 'query', style: 'spaceDelimited', explode: false, schema: array },
      { parse: 'split', delimiter: ' ', reserved: 'comma' },
    ],
    [
      'query array, pipeDelimited',
      { name: 'q', in: 'query', style: 'pipeDelimited', explode: false, schema: array },
      { parse: 'split', delimiter: '|', reserved: 'comma' },
    ],
    [
      'query object, form explode',
      { name: 'q', in: 'query', schema: object },
      { parse: 'formExplode', properties: ['x', 'ys'], arrayProperties: ['ys'] },
    ],
    ['query object, form', { name: 'q', in: 'query', explode: false, schema: object }, { parse: 'formObject', reserved: 'comma' }],
    ['query object, deepObject', { name: 'q', in: 'query', style: 'deepObject', schema: object }, { parse: 'deepObject' }],
    [
      "query array, deepObject (Stripe's expand[], D117)",
      { name: 'q', in: 'query', style: 'deepObject', explode: true, schema: array },
      { parse: 'deepArray', reserved: 'whole' },
    ],
    ['query JSON content', { name: 'q', in: 'query', content: { 'application/json': { schema: object } } }, { parse: 'json' }],
    // D456 query objects and arrays of objects serialised: an object inside an array or a property is its JSON text
    [
      'query array of objects, form explode',
      { name: 'q', in: 'query', schema: { type: 'array', items: object } },
      { parse: 'wrap', jsonItems: true, reserved: 'whole' },
    ],
    [
      'query array of $ref objects, form',
      { name: 'q', in: 'query', explode: false, schema: { type: 'array', items: { $ref: '#/components/schemas/Tag' } } },
      { parse: 'split', delimiter: ',', jsonItems: true },
    ],
    [
      'query array of objects, deepObject',
      { name: 'q', in: 'query', style: 'deepObject', schema: { type: 'array', items: object } },
      { parse: 'deepArray', jsonItems: true },
    ],
    [
      'query object with object, array-of-object and allOf-wrapped array properties, form explode',
      {
        name: 'q',
        in: 'query',
        schema: {
          type: 'object',
          properties: {
            tag: { $ref: '#/components/schemas/Tag' },
            tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
            names: { allOf: [{ $ref: '#/components/schemas/Names' }, { description: 'converted specs wrap a $ref' }] },
            n: { type: 'integer' },
          },
        },
      },
      {
        parse: 'formExplode',
        properties: ['tag', 'tags', 'names', 'n'],
        arrayProperties: ['tags', 'names'],
        jsonProperties: ['tag', 'tags'],
      },
    ],
    [
      'query free-form object, form explode, required',
      { name: 'q', in: 'query', required: true, schema: { type: 'object', additionalProperties: { type: 'string' } } },
      { parse: 'formExplode', properties: [], additional: true, emptyObject: true },
    ],
    [
      'query object with an object property, deepObject',
      {
        name: 'q',
        in: 'query',
        style: 'deepObject',
        schema: { type: 'object', properties: { tag: { $ref: '#/components/schemas/Tag' } } },
      },
      { parse: 'deepObject', jsonProperties: ['tag'] },
    ],
    ['header array (simple by default)', { name: 'X-Ids', in: 'header', schema: array }, { name: 'x-ids', parse: 'split', delimiter: ',' }],
    ['path array, explode', { name: 'p', in: 'path', required: true, explode: true, schema: array }, { parse: 'split', delimiter: ',' }],
    // D413 object path parameters read by their style
    ['path primitive, simple (default)', pathParameter, { parse: 'none' }],
    ['path object, simple (default)', { name: 'p', in: 'path', required: true, schema: object }, { parse: 'pathStyle', shape: 'object' }],
    [
      'path object, simple, explode',
      { name: 'p', in: 'path', required: true, explode: true, schema: { $ref: '#/components/schemas/Tag' } },
      { parse: 'pathStyle', shape: 'object', explode: true },
    ],
    [
      'path object, label',
      { name: 'p', in: 'path', required: true, style: 'label', schema: object },
      { parse: 'pathStyle', style: 'label', shape: 'object' },
    ],
    [
      'path object with an object property, matrix, explode',
      {
        name: 'p',
        in: 'path',
        required: true,
        style: 'matrix',
        explode: true,
        schema: { type: 'object', properties: { tag: { $ref: '#/components/schemas/Tag' } } },
      },
      { parse: 'pathStyle', style: 'matrix', explode: true, shape: 'object', jsonProperties: ['tag'] },
    ],
    [
      'path array, label, explode',
      { name: 'p', in: 'path', required: true, style: 'label', explode: true, schema: array },
      { parse: 'pathStyle', style: 'label', explode: true, shape: 'array' },
    ],
    [
      'path array of objects, matrix',
      { name: 'p', in: 'path', required: true, style: 'matrix', schema: { type: 'array', items: object } },
      { parse: 'pathStyle', style: 'matrix', shape: 'array', jsonItems: true },
    ],
    [
      // Microsoft Graph's OData function parameters
      'path string enum or object, simple',
      {
        name: 'p',
        in: 'path',
        required: true,
        schema: {
          anyOf: [
            { type: 'string', enum: ['all'] },
            { type: 'object', nullable: true },
          ],
        },
      },
      { parse: 'pathStyle', shape: 'object', orPrimitive: true },
    ],
    [
      'path primitive, matrix',
      { name: 'p', in: 'path', required: true, style: 'matrix', schema: { type: 'integer' } },
      { parse: 'pathStyle', style: 'matrix' },
    ],
  ])('%s', (_name, parameter, expected) => {
    const rules = rulesFor(withPath(parameter)) as { name: string }[];
    expect(rules[rules.length - 1]).toMatchObject(expected);
  });

  it('leaves cookies out (they are not read)', () => {
    expect(rulesFor(withPath({ name: 'sid', in: 'cookie', schema: { type: 'string' } }))).toEqual([
      { name: 'p', in: 'path', parse: 'none' },
    ]);
  });

  it.each([
    [
      'form path parameter',
      { name: 'p', in: 'path', required: true, style: 'form', schema: { type: 'string' } },
      /operation r: path parameter 'p': style 'form' is not defined for path parameters/,
    ],
    [
      'object header parameter',
      { name: 'X-O', in: 'header', schema: object },
      /header parameter 'X-O': objects are only parsed in query and path parameters/,
    ],
    [
      'label header parameter',
      { name: 'X-P', in: 'header', style: 'label', schema: { type: 'string' } },
      /header parameter 'X-P': style 'label' is not parsed/,
    ],
  ])('skips the operation on the server side for an unsupported %s, and names it with the fix', (_name, parameter, message) => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'R', version: '1' },
      paths: { '/r/{p}': { get: { operationId: 'r', parameters: withPath(parameter), responses: { '200': { description: 'ok' } } } } },
    };
    const model = buildModel(document, { source: 'r' });
    const { operations } = compileRequestValidators({ model });
    expect(operations[0]!.fields.find((f) => f.name === 'unsupported')?.value).toMatch(message);
    expect(unsupportedServerOperations(model)).toEqual([
      {
        operationId: 'r',
        pointer: expect.stringMatching(/^r#\/paths\/~1r~1\{p\}(\/get)?\/parameters$/),
        problem: expect.stringMatching(message),
        fix: expect.stringContaining('deepObject (name[]=a&name[]=b)'),
      },
    ]);
  });
});

describe('request-validators emitter: inline subschemas repeated across bodies (D161)', () => {
  // The same inline object (with a defaulted property and a nested enum) in two operations' bodies and twice in one.
  const address = {
    type: 'object',
    required: ['city'],
    additionalProperties: false,
    properties: {
      city: { type: 'string', maxLength: 20 },
      country: { type: 'string', enum: ['IN', 'GB', 'US', 'DE', 'FR', 'JP'], default: 'IN' },
      lines: { type: 'array', items: { type: 'string', maxLength: 40 }, maxItems: 3 },
    },
  };
  const body = (properties: object) => ({
    required: true,
    content: { 'application/json': { schema: { type: 'object', properties } } },
  });
  const document = {
    openapi: '3.1.0',
    info: { title: 'R', version: '1' },
    paths: {
      '/a': {
        post: { operationId: 'a', requestBody: body({ billing: address, shipping: address }), responses: { '200': { description: 'ok' } } },
      },
      '/b': {
        post: {
          operationId: 'b',
          requestBody: body({ home: address, note: { type: 'string' } }),
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  };

  it('compiles the shape once, and each copy validates, reports and defaults as inline', async () => {
    const { code } = compileRequestValidators({ model: buildModel(document, { source: 'r' }) });
    // one function checks `city` (the shared def's), whichever body and property it is reached from
    expect(code.match(/instancePath\+"\/city"/g)).toHaveLength(2); // its type and maxLength errors
    // run the module where its Ajv runtime imports resolve (node_modules/.cache is a tool cache)
    const dir = path.join(process.cwd(), 'node_modules/.cache/paygate-request-validators-test');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `shared-${process.pid}.mjs`);
    await writeFile(file, code);
    type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string; keyword: string }[] | null };
    const mod = (await import(pathToFileURL(file).href)) as Record<string, Validate>;
    await rm(file, { force: true });
    const validateA = mod.validateABody0!;
    const validateB = mod.validateBBody0!;

    const ok = { body: { billing: { city: 'Pune' }, shipping: { city: 'Leeds', country: 'GB' } } };
    expect(validateA(ok)).toBe(true);
    expect(ok.body.billing).toEqual({ city: 'Pune', country: 'IN' }); // the default applied in the shared def
    expect(validateA({ body: { billing: { city: 'x'.repeat(21) }, shipping: { town: 'y' } } })).toBe(false);
    expect(validateA.errors?.map((e) => [e.instancePath, e.keyword])).toEqual(
      expect.arrayContaining([
        ['/body/billing/city', 'maxLength'],
        ['/body/shipping', 'required'],
        ['/body/shipping', 'additionalProperties'],
      ]),
    );
    expect(validateB({ body: { home: { city: 'Kyoto', country: 'XX' } } })).toBe(false);
    expect(validateB.errors?.map((e) => [e.instancePath, e.keyword])).toEqual([['/body/home/country', 'enum']]);
  });
});

describe('request-validators emitter: the code as the text of one function (D196)', () => {
  it.each([
    ['plain text', 'const a = 1;'],
    ['a backtick', 'x = "`";'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal `${` is the case under test
    ['a placeholder', 'y = "${z}";'],
    ['backslashes', String.raw`new RegExp("^\d+\\$", "u")`],
    ['line breaks', 'a\nb\r\n'],
    ['everything at once', '\\`${`\\${'],
    ['a dollar without a brace', '$ {} $'],
  ])('a template literal of %s evaluates to the very text', (_name, text) => {
    expect(new Function(`return \`${templateLiteralText(text)}\`;`)()).toBe(text);
  });

  // Two operations share one body schema (D155: the second name aliases the first export), and a pattern holds a
  // backtick, a `${` and backslashes, which the template literal must carry through unchanged.
  const shared = { $ref: '#/components/schemas/Note' };
  const document = {
    openapi: '3.1.0',
    info: { title: 'D', version: '1' },
    components: {
      schemas: {
        Note: {
          type: 'object',
          required: ['text'],
          properties: { text: { type: 'string', pattern: '^[a-z`$\\{}]+\\d$' } },
        },
      },
    },
    paths: Object.fromEntries(
      ['a', 'b'].map((id) => [
        `/${id}`,
        {
          post: {
            operationId: id,
            requestBody: { required: true, content: { 'application/json': { schema: shared } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      ]),
    ),
  };

  it('returns every export, an alias as the function it names, and the validators work', () => {
    const { code } = compileRequestValidators({ model: buildModel(document, { source: 'd' }) });
    expect(code).toMatch(/^export const validateBBody0 = validateABody0;$/m); // the alias this test is about
    const { body, names } = standaloneAsFunctionBody(code);
    expect(names).toEqual(expect.arrayContaining(['validateABody0', 'validateBBody0']));
    expect(body).not.toMatch(/^(?:import|export)\b/m);
    const source = new Function(`return \`${templateLiteralText(body)}\`;`)() as string;
    type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string; keyword: string }[] | null };
    const compiled = new Function('require', source)(createRequire(import.meta.url)) as Record<string, Validate>;
    expect(Object.keys(compiled).sort()).toEqual([...names].sort());
    expect(compiled.validateBBody0).toBe(compiled.validateABody0);
    const validate = compiled.validateBBody0!;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal `${` the pattern allows
    expect(validate({ body: { text: 'ab`${}7' } })).toBe(true);
    expect(validate({ body: { text: 'AB7' } })).toBe(false);
    expect(validate.errors?.map((e) => [e.instancePath, e.keyword])).toEqual([['/body/text', 'pattern']]);
  });

  it.each([
    ['another import', 'import x from "y";\nfunction validate1(){}'],
    ['a default export', 'function validate1(){}\nexport default validate1;'],
    ['import.meta', 'const here = import.meta.url;'],
  ])('refuses code with %s, which it does not rewrite', (_name, code) => {
    expect(() => standaloneAsFunctionBody(code)).toThrow(/ESM syntax D196 does not rewrite/);
  });
});

describe('request-validators emitter: the query styles the client writes (D456)', () => {
  it.each<[string, object, unknown]>([
    ['primitive: openapi-fetch default', { name: 'q', in: 'query', schema: { type: 'integer' } }, undefined],
    ['array, form explode: openapi-fetch default', { name: 'q', in: 'query', schema: array }, undefined],
    ['array, form', { name: 'q', in: 'query', explode: false, schema: array }, { q: { style: 'form', explode: false } }],
    ['array of objects', { name: 'q', in: 'query', schema: { type: 'array', items: object } }, { q: {} }],
    ['object, form explode', { name: 'q', in: 'query', schema: object }, { q: {} }],
    ['object, form', { name: 'q', in: 'query', explode: false, schema: object }, { q: { explode: false } }],
    [
      'object, deepObject of primitives: openapi-fetch default',
      { name: 'q', in: 'query', style: 'deepObject', schema: { type: 'object', properties: { n: { type: 'integer' } } } },
      undefined,
    ],
    [
      'object, deepObject with an object property',
      { name: 'q', in: 'query', style: 'deepObject', schema: { type: 'object', properties: { t: object } } },
      { q: { style: 'deepObject' } },
    ],
    ['content', { name: 'q', in: 'query', content: { 'application/json': { schema: object } } }, { q: { content: true } }],
  ])('%s', (_name, parameter, expected) => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'R', version: '1' },
      paths: { '/r': { get: { operationId: 'r', parameters: [parameter], responses: { '200': { description: 'ok' } } } } },
    };
    const model = buildModel(document, { source: 'r' });
    expect(clientQueryStyles(modelSchemaResolver(model), model.operations[0]!)).toEqual(expected);
  });
});

/**
 * D163: the root document is parsed once (`JSON.parse` for `.json`) and one resolver serves lint and bundle; the
 * bundled document and the lint problems stay what Redocly's `bundle({ ref })` and `lint({ ref })` give for the file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, createConfig, getLineColLocation, lint, loadConfig } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsupportedSpecError } from './refusal.js';
import { loadOpenApi, ruleDocs, SpecLintError, type LintProblem } from './openapi.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'paygate-parse-'));
  // A JSON root with an external file that refers back into the root.
  await writeFile(
    path.join(dir, 'root.json'),
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: { '/a': { get: { operationId: 'getA', responses: { '200': { $ref: 'parts.json#/Ok' } } } } },
      components: { schemas: { Name: { type: 'string' } } },
    }),
  );
  await writeFile(
    path.join(dir, 'parts.json'),
    JSON.stringify({
      Ok: { description: 'ok', content: { 'application/json': { schema: { $ref: 'root.json#/components/schemas/Name' } } } },
    }),
  );
  // Not strict JSON (a trailing comma): Redocly's YAML parser still reads it.
  await writeFile(path.join(dir, 'loose.json'), '{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {},}');
  await writeFile(path.join(dir, 'broken.json'), '{"openapi": "3.0.3", "info": {');
  await writeFile(
    path.join(dir, 'unresolved.json'),
    JSON.stringify({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths: { $ref: '#/nowhere' } }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadOpenApi reads the root once (D163)', () => {
  it.each([
    ['a JSON root with a $ref back into it', () => path.join(dir, 'root.json'), undefined],
    ['a JSON root that is not strict JSON', () => path.join(dir, 'loose.json'), undefined],
    [
      'a multi-file YAML spec with its own lint config',
      () => path.join(ROOT, 'openapi/openapi.yaml'),
      path.join(ROOT, 'openapi/redocly.yaml'),
    ],
    ['a real-world JSON spec', () => path.join(ROOT, 'test/fixtures/realworld/paypal-checkout-orders/openapi.json'), undefined],
    // D191: their problems' line:col found by jsonLineCols, compared with Redocly's getLineColLocation below
    ['a real-world JSON spec (Adyen)', () => path.join(ROOT, 'test/fixtures/realworld/adyen-checkout/openapi.json'), undefined],
  ])('%s: the document and lint problems of bundle({ ref }) and lint({ ref })', async (_name, input, lintConfig) => {
    const file = input();
    const config = lintConfig === undefined ? await createConfig({ extends: ['minimal'] }) : await loadConfig({ configPath: lintConfig });
    const expected = await bundle({ ref: file, config, dereference: false });
    const expectedLint = await lint({ ref: file, config });
    const loaded = await loadOpenApi({ input: file, lintConfig, lint: 'report', cwd: ROOT });
    expect(loaded.document).toEqual(expected.bundle.parsed);
    expect(loaded.files).toEqual([...expected.fileDependencies, file].sort());
    const where = (p: (typeof expectedLint)[number]) => {
      const loc = p.location[0]!;
      const { start } = getLineColLocation(loc);
      return `${path.relative(ROOT, loc.source.absoluteRef)}:${start.line}:${start.col}`;
    };
    expect(loaded.problems.map((p) => [p.ruleId, p.location, p.message])).toEqual(
      expectedLint.filter((p) => p.ignored !== true).map((p) => [p.ruleId, where(p), p.message]),
    );
  });

  it('a JSON root that does not parse fails as before: the parse error with its line and column', async () => {
    const failure = await loadOpenApi({ input: path.join(dir, 'broken.json'), lint: 'skip', cwd: dir }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(UnsupportedSpecError);
    expect((failure as Error).message).toMatch(/at line 1, column \d+/);
  });

  it('an unresolvable $ref still stops generation with its file:line:col', async () => {
    const refusal = await loadOpenApi({ input: path.join(dir, 'unresolved.json'), lint: 'skip', cwd: dir }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SpecLintError);
    expect((refusal as SpecLintError).problems.map((p) => `${p.location} ${p.message}`)).toEqual([
      expect.stringMatching(/^unresolved\.json:1:\d+ Can't resolve \$ref/),
    ]);
  });
});

describe('an unknown keyword in a 3.1 schema is valid JSON Schema 2020-12: a warning, never a refusal (D205)', () => {
  const spec = (openapi: string, extra: object) => ({
    openapi,
    info: { title: 'T', version: '1' },
    paths: {
      '/a': {
        get: {
          operationId: 'getA',
          parameters: [{ name: 'q', in: 'query', schema: { type: 'string', ...extra } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'string', ...extra } } } } },
            },
          },
        },
      },
    },
    components: { schemas: { Name: { type: 'string', ...extra }, Pair: { allOf: [{ type: 'object', ...extra }] } } },
  });

  it('3.1 with `nullable` (codat-style) generates under strict lint, each one a struct warning', async () => {
    await writeFile(path.join(dir, 'nullable31.json'), JSON.stringify(spec('3.1.0', { nullable: true })));
    const { problems } = await loadOpenApi({ input: path.join(dir, 'nullable31.json'), lint: 'strict', cwd: dir });
    const struct = problems.filter((p) => p.ruleId === 'struct');
    expect(struct.map((p) => [p.severity, p.message])).toEqual(Array(4).fill(['warn', 'Property `nullable` is not expected here.']));
  });

  it('3.0, where a Schema Object allows no unknown field, is still refused; so is a misplaced field outside a schema in 3.1', async () => {
    await writeFile(path.join(dir, 'unknown30.json'), JSON.stringify(spec('3.0.3', { nullabel: true })));
    await expect(loadOpenApi({ input: path.join(dir, 'unknown30.json'), lint: 'strict', cwd: dir })).rejects.toThrow(
      /Property `nullabel` is not expected here/,
    );
    const misplaced = spec('3.1.0', {}) as { paths: { '/a': { get: Record<string, unknown> } } };
    misplaced.paths['/a'].get.nullable = true;
    await writeFile(path.join(dir, 'misplaced31.json'), JSON.stringify(misplaced));
    await expect(loadOpenApi({ input: path.join(dir, 'misplaced31.json'), lint: 'strict', cwd: dir })).rejects.toThrow(SpecLintError);
  });
});

describe("the shape of a specification extension (apideck's `x-sdk-exclude: true` in webhooks, a string x-logo) is its vendor's: a warning, never a refusal (D405)", () => {
  const spec = (webhooks: object) => ({
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    paths: {},
    webhooks: {
      'invoice.paid': {
        post: {
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
      ...webhooks,
    },
  });

  it('generates under strict lint with one struct warning naming the key', async () => {
    await writeFile(path.join(dir, 'webhooks-extension.json'), JSON.stringify(spec({ 'x-sdk-exclude': true })));
    const { problems, document } = await loadOpenApi({ input: path.join(dir, 'webhooks-extension.json'), lint: 'strict', cwd: dir });
    expect(problems.filter((p) => p.ruleId === 'struct').map((p) => p.severity)).toEqual(['warn']);
    expect(Object.keys(document['webhooks'] as object)).toEqual(['invoice.paid', 'x-sdk-exclude']);
  });

  it("the same in a 3.0 document's x-webhooks (apideck's accounting API)", async () => {
    const { webhooks, ...rest } = spec({ 'x-sdk-exclude': true });
    await writeFile(path.join(dir, 'x-webhooks-extension.json'), JSON.stringify({ ...rest, openapi: '3.0.3', 'x-webhooks': webhooks }));
    const { problems } = await loadOpenApi({ input: path.join(dir, 'x-webhooks-extension.json'), lint: 'strict', cwd: dir });
    expect(problems.filter((p) => p.ruleId === 'struct').map((p) => [p.severity, p.message])).toEqual([
      ['warn', 'Expected type `PathItem` (object) but got `boolean`'],
    ]);
  });

  it("Redocly's typed extensions: `info.x-logo` as a URL string (1Password's Events API) warns; a schema named x-rate is still checked", async () => {
    const logo = { ...spec({}), info: { title: 'T', version: '1', 'x-logo': 'https://example.com/logo.png' } };
    await writeFile(path.join(dir, 'x-logo.json'), JSON.stringify(logo));
    const { problems } = await loadOpenApi({ input: path.join(dir, 'x-logo.json'), lint: 'strict', cwd: dir });
    expect(problems.filter((p) => p.ruleId === 'struct').map((p) => p.severity)).toEqual(['warn']);
    const named = { ...spec({}), openapi: '3.0.3', components: { schemas: { 'x-rate': { type: 'number', nullabel: true } } } };
    await writeFile(path.join(dir, 'x-named.json'), JSON.stringify(named));
    await expect(loadOpenApi({ input: path.join(dir, 'x-named.json'), lint: 'strict', cwd: dir })).rejects.toThrow(
      /Property `nullabel` is not expected here/,
    );
  });

  it("an unknown field at the root (Google Cloud Build's `source`) or in a discriminator (Mailchimp's `type`) warns (D407); one inside info is still refused", async () => {
    await writeFile(path.join(dir, 'root-field.json'), JSON.stringify({ ...spec({}), source: { url: {} } }));
    const { problems } = await loadOpenApi({ input: path.join(dir, 'root-field.json'), lint: 'strict', cwd: dir });
    expect(problems.filter((p) => p.ruleId === 'struct').map((p) => [p.severity, p.message])).toEqual([
      ['warn', 'Property `source` is not expected here.'],
    ]);
    const discriminated = {
      ...spec({}),
      components: {
        schemas: {
          Pet: { type: 'object', properties: { kind: { type: 'string' } }, discriminator: { propertyName: 'kind', type: 'string' } },
        },
      },
    };
    await writeFile(path.join(dir, 'discriminator-field.json'), JSON.stringify(discriminated));
    const mailchimp = await loadOpenApi({ input: path.join(dir, 'discriminator-field.json'), lint: 'strict', cwd: dir });
    expect(mailchimp.problems.filter((p) => p.ruleId === 'struct').map((p) => [p.severity, p.message])).toEqual([
      ['warn', 'Property `type` is not expected here.'],
    ]);
    await writeFile(path.join(dir, 'info-field.json'), JSON.stringify({ ...spec({}), info: { title: 'T', version: '1', source: 'x' } }));
    await expect(loadOpenApi({ input: path.join(dir, 'info-field.json'), lint: 'strict', cwd: dir })).rejects.toThrow(
      /Property `source` is not expected here/,
    );
  });

  it('a server variable default outside its enum (VTEX) warns in 3.0, where the default SHOULD be in it, and is refused in 3.1 (D408)', async () => {
    const servers = [{ url: 'https://{env}.example.com', variables: { env: { default: '{env}', enum: ['live', 'test'] } } }];
    await writeFile(path.join(dir, 'server-default30.json'), JSON.stringify({ ...spec({}), openapi: '3.0.3', servers }));
    const { problems } = await loadOpenApi({ input: path.join(dir, 'server-default30.json'), lint: 'strict', cwd: dir });
    expect(problems.filter((p) => p.ruleId === 'no-server-variables-empty-enum').map((p) => p.severity)).toEqual(['warn']);
    await writeFile(path.join(dir, 'server-default31.json'), JSON.stringify({ ...spec({}), servers }));
    await expect(loadOpenApi({ input: path.join(dir, 'server-default31.json'), lint: 'strict', cwd: dir })).rejects.toThrow(
      /must include default value/,
    );
  });

  it('a webhook not named x- whose Path Item is not an object is still refused', async () => {
    await writeFile(path.join(dir, 'webhooks-boolean.json'), JSON.stringify(spec({ 'sdk-exclude': true })));
    await expect(loadOpenApi({ input: path.join(dir, 'webhooks-boolean.json'), lint: 'strict', cwd: dir })).rejects.toThrow(
      /Expected type `PathItem` \(object\) but got `boolean`/,
    );
  });
});

describe('ruleDocs: where each rule is explained (D291)', () => {
  const problem = (ruleId: string): LintProblem => ({ severity: 'error', ruleId, message: 'm', location: 'a.yaml:1:1', suggest: [] });

  it.each([
    ['a built-in rule', 'operation-summary', undefined, '  operation-summary: https://redocly.com/docs/cli/rules/operation-summary'],
    [
      'a configurable rule',
      'rule/amounts-are-strings',
      'openapi/redocly.yaml',
      '  rule/amounts-are-strings: a configurable rule of openapi/redocly.yaml (its message says what it wants)',
    ],
    [
      'a configurable rule without a config named',
      'rule/x',
      undefined,
      '  rule/x: a configurable rule of your Redocly config (redocly.yaml) (its message says what it wants)',
    ],
    ['a plugin rule', 'acme/no-foo', 'redocly.yaml', '  acme/no-foo: a rule of the plugin acme (listed under plugins in redocly.yaml)'],
  ])('%s', (_name, ruleId, config, line) => {
    expect(ruleDocs([problem(ruleId)], config)).toEqual([line]);
  });

  it('one line per rule, sorted', () => {
    expect(ruleDocs([problem('struct'), problem('no-unresolved-refs'), problem('struct')]).map((l) => l.split(':')[0]!.trim())).toEqual([
      'no-unresolved-refs',
      'struct',
    ]);
  });
});

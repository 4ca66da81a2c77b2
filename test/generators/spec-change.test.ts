import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, type GenerateResult } from '../../generators/src/pipeline.js';
import { ROOT } from './fixtures.js';

const run = promisify(execFile);

/**
 * Issue 3's promise: a spec change (a new field) flows into server types, client types and the docs with
 * `npm run generate` (the pipeline, then the docs site). Run on a copy of openapi/ with one field added.
 */
describe('a spec change flows everywhere', () => {
  let dir: string;
  let result: GenerateResult;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'paygate-spec-change-'));
    await cp(path.join(ROOT, 'openapi'), path.join(dir, 'openapi'), { recursive: true });
    const orders = path.join(dir, 'openapi/components/schemas/orders.yaml');
    const source = await readFile(orders, 'utf8');
    const anchor = '    type_of_goods:\n      type: string\n      enum: [goods, services]\n';
    expect(source).toContain(anchor);
    await writeFile(orders, source.replace(anchor, `${anchor}    gift_wrap_colour:\n      type: string\n      maxLength: 32\n`));
    result = await generate({
      rootDir: dir,
      openapi: 'openapi/openapi.yaml',
      asyncapi: 'openapi/asyncapi.yaml',
      lintConfig: 'openapi/redocly.yaml',
      lint: 'strict',
      templatesDir: path.join(ROOT, 'generators/templates'),
    });
  }, 120_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const file = (suffix: string) => {
    const found = result.files.find((f) => f.path.endsWith(suffix));
    if (!found) throw new Error(`no generated file ending in ${suffix}`);
    return found.contents;
  };

  it('reaches the contract types (server, client and webhooks import them) and the embedded API document', () => {
    expect(file('contract/src/generated/types.gen.ts')).toMatch(/gift_wrap_colour\?: string/);
    expect(file('contract/src/generated/api-document.gen.ts')).toContain('gift_wrap_colour');
    expect(result.files.filter((f) => f.path.endsWith('types.gen.ts')).map((f) => f.path)).toEqual([
      'packages/contract/src/generated/types.gen.ts',
    ]);
  });

  it('reaches the request validators', () => {
    expect(file('server/src/generated/request-validators.gen.ts')).toContain('gift_wrap_colour');
  });

  it('reaches the API reference', async () => {
    const site = path.join(dir, 'site');
    await run(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'scripts/docs.ts'),
        '--openapi',
        path.join(dir, 'openapi/openapi.yaml'),
        '--out',
        site,
        '--skip-redoc',
      ],
      { cwd: ROOT },
    );
    expect(await readFile(path.join(site, 'openapi.json'), 'utf8')).toContain('gift_wrap_colour');
    // ... and the changelog's unreleased section, as an addition to the order request (not breaking).
    const changelog = await readFile(path.join(site, 'changelog.html'), 'utf8');
    const unreleased = changelog.slice(changelog.indexOf('<h2 id="v-unreleased">'), changelog.indexOf('<h2 id="v-1.0.0">'));
    // one entry where the property is defined (D104 one diff entry per change, at its definition), among the additions (the merchant changelog's words, D135)
    const additionsStart = unreleased.indexOf('<h3>Additions</h3>');
    expect(additionsStart).toBeGreaterThan(-1);
    const additions = unreleased.slice(additionsStart, unreleased.indexOf('<h3>', additionsStart + 1) >>> 0 || undefined);
    expect(additions).toContain('gift_wrap_colour');
    // not among the breaking changes (those are the repository's own allowed ones, openapi/released/allowed-breaking-changes.yaml)
    const breakingStart = unreleased.indexOf('<h3>Breaking changes</h3>');
    const breaking = breakingStart < 0 ? '' : unreleased.slice(breakingStart, unreleased.indexOf('<h3>', breakingStart + 1));
    expect(breaking).not.toContain('gift_wrap_colour');
  }, 120_000);
});

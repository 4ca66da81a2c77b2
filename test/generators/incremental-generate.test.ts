/**
 * Incremental generation (issue 31, D440-D443): with a `GenerateCache` carried across runs (as `generate --watch`
 * does), a run after an edit writes exactly the bytes a fresh run writes, reusing what the edit cannot reach, and the
 * drift gate agrees; what invalidates the cache: an edit in a referenced file, a changed template, plugin or option,
 * another generator version.
 */
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../generators/src/cli/command.js';
import { runCli } from '../../generators/src/cli/main.js';
import { GenerateCache } from '../../generators/src/incremental/generate-cache.js';
import { runSalt } from '../../generators/src/incremental/salt.js';
import { definePlugin, generate, type GenerateOptions } from '../../generators/src/pipeline.js';
import { ROOT } from './fixtures.js';
import { startWatch } from './support/watch-session.js';

const ROOT_DOCUMENT = `openapi: 3.1.0
info:
  title: Shelf
  version: 1.0.0
servers:
  - url: https://api.shelf.example
security: []
paths:
  /books:
    post:
      operationId: createBook
      summary: Add a book
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: './schemas.yaml#/Book'
      responses:
        '201':
          description: Added.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Receipt'
components:
  schemas:
    Receipt:
      type: object
      required: [id]
      properties:
        id:
          type: string
`;

const SCHEMAS = `Book:
  type: object
  required: [title]
  properties:
    title:
      type: string
`;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'paygate-incremental-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'openapi.yaml'), ROOT_DOCUMENT);
  await writeFile(path.join(dir, 'schemas.yaml'), SCHEMAS);
  return dir;
}

const optionsFor = (dir: string, extra: Partial<GenerateOptions> = {}): GenerateOptions => ({
  rootDir: dir,
  openapi: 'openapi.yaml',
  asyncapi: null,
  lint: 'report',
  out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
  contractImport: 'relative',
  runtimeImport: 'package',
  ...extra,
});

/** The files of a run with the cache, and those of a fresh run (no cache) of the same inputs. */
async function bothWays(options: GenerateOptions, cache: GenerateCache) {
  const incremental = await generate({ ...options, cache });
  const fresh = await generate(options);
  return { incremental: incremental.files, fresh: fresh.files };
}

describe('generate with a GenerateCache', () => {
  it('after a one-line edit, writes the bytes of a fresh run and reuses what the edit cannot reach', { timeout: 120_000 }, async () => {
    const dir = await project();
    const cache = new GenerateCache();
    await generate({ ...optionsFor(dir), cache });
    expect(cache.lastRun.loadReused).toBe(false);
    expect(cache.typeLayer.lastRun).toEqual({ reused: 0, transformed: 3 }); // /books, Book, Receipt

    // an optional property added to a response-only schema (one line of YAML, as an editor saves it)
    const root = path.join(dir, 'openapi.yaml');
    await writeFile(root, ROOT_DOCUMENT.replace('        id:\n', '        note: { type: string }\n        id:\n'));
    const { incremental, fresh } = await bothWays(optionsFor(dir), cache);
    expect(incremental).toEqual(fresh);
    expect(fresh.find((f) => f.path.endsWith('types.gen.ts'))!.contents).toContain('note?: string');
    expect(cache.lastRun.loadReused).toBe(false);
    expect(cache.typeLayer.lastRun).toEqual({ reused: 2, transformed: 1 });
    // no request reaches Receipt: the validators are reused
    expect(cache.lastRun.reused).toContain('server/request-validators');

    // nothing changed: lint and bundle reused, every unit reused
    const again = await bothWays(optionsFor(dir), cache);
    expect(again.incremental).toEqual(again.fresh);
    expect(cache.lastRun.loadReused).toBe(true);
    expect(cache.typeLayer.lastRun).toEqual({ reused: 3, transformed: 0 });
  });

  it('an edit in a referenced file is seen: re-linted, re-bundled, the validators it reaches compiled again', {
    timeout: 120_000,
  }, async () => {
    const dir = await project();
    const cache = new GenerateCache();
    await generate({ ...optionsFor(dir), cache });
    await writeFile(
      path.join(dir, 'schemas.yaml'),
      SCHEMAS.replace('    title:\n', '    isbn:\n      type: string\n      minLength: 10\n    title:\n'),
    );
    const { incremental, fresh } = await bothWays(optionsFor(dir), cache);
    expect(incremental).toEqual(fresh);
    expect(fresh.find((f) => f.path.endsWith('types.gen.ts'))!.contents).toContain('isbn?: string');
    expect(cache.lastRun.loadReused).toBe(false);
    expect(cache.lastRun.computed).toContain('server/request-validators');
    expect(fresh.find((f) => f.path.endsWith('request-validators.gen.ts'))!.contents).toContain('minLength');
  });

  it('D444: the lint problems of a run with kept example validators are those of a fresh run', { timeout: 120_000 }, async () => {
    const dir = await project();
    const withExamples = (receipt: string) =>
      ROOT_DOCUMENT.replace(
        "                $ref: '#/components/schemas/Receipt'\n",
        `                $ref: '#/components/schemas/Receipt'\n              example: ${receipt}\n`,
      ).replace(
        "              $ref: './schemas.yaml#/Book'\n",
        "              $ref: './schemas.yaml#/Book'\n            example: { title: 7 }\n",
      );
    const root = path.join(dir, 'openapi.yaml');
    await writeFile(root, withExamples('{ id: r1 }'));
    const cache = new GenerateCache();
    const first = await generate({ ...optionsFor(dir), cache });
    const firstFresh = await generate(optionsFor(dir));
    expect(first.lintProblems).toEqual(firstFresh.lintProblems);
    expect(first.lintProblems.map((p) => p.message)).toContain(
      'Example value must conform to the schema: `title` property type must be string.',
    );

    // the response example breaks its schema: reported as a fresh run reports it, the request body's validator kept
    await writeFile(root, withExamples('{ id: 1, extra: true }'));
    const incremental = await generate({ ...optionsFor(dir), cache });
    const fresh = await generate(optionsFor(dir));
    expect(incremental.lintProblems).toEqual(fresh.lintProblems);
    expect(incremental.files).toEqual(fresh.files);
    expect(fresh.lintProblems.filter((p) => p.ruleId === 'no-invalid-media-type-examples').map((p) => p.message)).toEqual([
      'Example value must conform to the schema: `title` property type must be string.',
      'Example value must conform to the schema: `id` property type must be string.',
      'Example value must conform to the schema: must NOT have unevaluated properties `extra`.',
    ]);
    expect(cache.exampleValidators.lastRun.reused).toBeGreaterThan(0);
  });

  it('a changed template override, plugin or option empties the emitted units', { timeout: 180_000 }, async () => {
    const dir = await project();
    const cache = new GenerateCache();
    await generate({ ...optionsFor(dir), cache });

    // a template override
    const header = await readFile(path.join(ROOT, 'generators/templates/partials/header.hbs'), 'utf8');
    await cp(path.join(ROOT, 'generators/templates/partials/header.hbs'), path.join(dir, 'templates/partials/header.hbs'));
    await writeFile(path.join(dir, 'templates/partials/header.hbs'), `${header}// shelf's own header line\n`);
    const withTemplates = optionsFor(dir, { templatesOverrideDir: 'templates' });
    let run = await bothWays(withTemplates, cache);
    expect(run.incremental).toEqual(run.fresh);
    expect(cache.typeLayer.lastRun.reused).toBe(0);
    expect(cache.lastRun.loadReused).toBe(true); // the document did not change
    await generate({ ...withTemplates, cache });
    expect(cache.typeLayer.lastRun.transformed).toBe(0);

    // a plugin
    const plugin = definePlugin({
      name: 'shelf/ids',
      emit: (model, ctx) => ctx.file('ids.gen.ts', `export const n = ${model.operations.length};\n`),
    });
    const withPlugin = { ...withTemplates, plugins: [plugin] };
    run = await bothWays(withPlugin, cache);
    expect(run.incremental).toEqual(run.fresh);
    expect(cache.typeLayer.lastRun.reused).toBe(0);

    // an option that shapes the output
    const renamed = { ...withPlugin, regenerateCommand: 'npm run shelf:generate' };
    run = await bothWays(renamed, cache);
    expect(run.incremental).toEqual(run.fresh);
    expect(cache.typeLayer.lastRun.reused).toBe(0);
    expect(cache.lastRun.computed).toContain('server/request-validators');
  });

  it('another generator version is another salt, and another salt drops every memoised unit', () => {
    const options = optionsFor('/tmp/x');
    expect(runSalt(options, undefined, '0.1.0')).not.toBe(runSalt(options, undefined, '0.2.0'));
    expect(runSalt(options, undefined, '0.1.0')).toBe(runSalt({ ...options }, undefined, '0.1.0'));
    const cache = new GenerateCache();
    let computed = 0;
    const unit = () => cache.memo('unit', 'same-key', () => ++computed);
    cache.begin(runSalt(options, undefined, '0.1.0'));
    expect(unit()).toBe(1);
    cache.begin(runSalt(options, undefined, '0.1.0'));
    expect(unit()).toBe(1);
    expect(cache.lastRun.reused).toEqual(['unit']);
    cache.begin(runSalt(options, undefined, '0.2.0'));
    expect(unit()).toBe(2);
    expect(cache.lastRun.computed).toEqual(['unit']);
  });
});

describe('generate --watch with the cache, then check', () => {
  it('the files a watch run wrote after an edit are the ones check expects (no drift)', { timeout: 180_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'paygate-incremental-watch-'));
    dirs.push(dir);
    await cp(path.join(ROOT, 'test/fixtures/plugin-project'), dir, {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}generated`),
    });
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const watch = await startWatch(dir);
    try {
      await watch.waitFor((l) => l.includes('initial run:'), 'for the initial run');
      const book = path.join(dir, 'components/book.yaml');
      await writeFile(book, `${await readFile(book, 'utf8')}  isbn:\n    type: string\n`);
      await watch.waitFor((l) => l.includes('components/book.yaml changed:') && l.includes('written'), 'after the edit');
    } finally {
      await watch.stop();
    }
    const io2: CliIo & { out: string; err: string } = {
      cwd: dir,
      out: '',
      err: '',
      stdout: (t) => void (io2.out += t),
      stderr: (t) => void (io2.err += t),
    };
    const code = await runCli(['check'], io2);
    expect(io2.err + io2.out).not.toMatch(/drift/i);
    expect(code).toBe(0);
    expect(await readFile(path.join(dir, 'generated/contract/types.gen.ts'), 'utf8')).toContain('isbn?: string');
  });
});

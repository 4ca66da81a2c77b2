import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareWithDisk, run, writeFiles } from '../../generators/src/cli/generate.js';
import { generate } from '../../generators/src/pipeline.js';
import { parseArgs } from '../../generators/src/cli/args.js';
import { SpecLintError, loadOpenApi } from '../../generators/src/parse/openapi.js';
import { ROOT, scenarios } from './fixtures.js';

describe('determinism and --check', () => {
  it.each(scenarios)('generating $name twice is byte-identical', async (scenario) => {
    const options = { rootDir: ROOT, openapi: scenario.openapi, asyncapi: scenario.asyncapi, lint: 'skip' as const };
    const [a, b] = [await generate(options), await generate(options)];
    expect(b.files.map((f) => f.path)).toEqual(a.files.map((f) => f.path));
    for (const [i, file] of a.files.entries()) expect(b.files[i]!.contents, file.path).toBe(file.contents);
    expect(a.files.map((f) => f.path)).toEqual([...a.files.map((f) => f.path)].sort());
    for (const file of a.files) expect(file.contents).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('--check passes on fresh output, then names drifted and missing files and the fix command', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'paygate-gen-'));
    try {
      const { files } = await generate({ rootDir: ROOT, openapi: 'test/fixtures/mini/openapi.yaml', asyncapi: null, lint: 'skip' });
      await writeFiles(dir, files);
      expect(await compareWithDisk(dir, files)).toEqual({ drifted: [], missing: [] });
      const first = files[0]!.path;
      const second = files[1]!.path;
      await writeFile(path.join(dir, first), `${await readFile(path.join(dir, first), 'utf8')}// edited\n`);
      await rm(path.join(dir, second));
      expect(await compareWithDisk(dir, files)).toEqual({ drifted: [first], missing: [second] });

      const lines: string[] = [];
      const options = {
        ...parseArgs(
          ['--check', '--input', 'test/fixtures/mini/openapi.yaml', '--asyncapi', 'none', '--lint', 'skip', '--out-root', dir],
          ROOT,
        ),
      };
      expect(await run(options, (l) => lines.push(l))).toBe(1);
      const out = lines.join('\n');
      expect(out).toContain(`drifted: ${first}`);
      expect(out).toContain(`missing: ${second}`);
      expect(out).toContain('npm run generate');
      expect(await run({ ...options, check: false }, () => undefined)).toBe(0);
      expect(await run(options, () => undefined)).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    {
      name: 'a style rule (no-server-trailing-slash) warns',
      server: 'https://api.example.com/',
      ref: '#/components/responses/Ok',
      blocks: false,
    },
    {
      name: 'a structural error (no-unresolved-refs) still blocks',
      server: 'https://api.example.com',
      ref: '#/components/responses/Missing',
      blocks: true,
    },
  ])('without a lint config, only structural errors stop generation (D116): $name', async ({ server, ref, blocks }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'paygate-lint-'));
    try {
      const doc = `openapi: 3.1.0\ninfo:\n  title: T\n  version: 1.0.0\nservers:\n  - url: ${server}\npaths:\n  /x:\n    get:\n      operationId: getX\n      responses:\n        "200":\n          $ref: "${ref}"\ncomponents:\n  responses:\n    Ok:\n      description: ok\n`;
      await writeFile(path.join(dir, 'spec.yaml'), doc);
      const outcome = await loadOpenApi({ input: 'spec.yaml', cwd: dir }).catch((e: unknown) => e);
      if (blocks) {
        expect(outcome).toBeInstanceOf(SpecLintError);
      } else {
        expect(outcome).not.toBeInstanceOf(Error);
        expect((outcome as Awaited<ReturnType<typeof loadOpenApi>>).problems).toContainEqual(
          expect.objectContaining({ ruleId: 'no-server-trailing-slash', severity: 'warn' }),
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to generate when lint has errors, printing file:line and what to do', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'paygate-lint-'));
    try {
      await writeFile(
        path.join(dir, 'bad.yaml'),
        'openapi: 3.1.0\ninfo:\n  title: Bad\n  version: 1.0.0\npaths:\n  /x:\n    get:\n      responses:\n        "200":\n          $ref: "#/components/responses/Missing"\n',
      );
      await writeFile(path.join(dir, 'redocly.yaml'), 'extends: [recommended]\n');
      const error = await loadOpenApi({ input: 'bad.yaml', lintConfig: 'redocly.yaml', cwd: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SpecLintError);
      const message = (error as SpecLintError).message;
      expect(message).toMatch(/Refusing to generate: bad\.yaml has \d+ lint error/);
      expect(message).toMatch(/bad\.yaml:10:\d+: error \[no-unresolved-refs\]/);
      // D291: each rule's own page, and no command of this repository in what any user of the library reads
      expect(message).toContain('no-unresolved-refs: https://redocly.com/docs/cli/rules/no-unresolved-refs');
      expect(message).not.toContain('<rule-id>');
      expect(message).not.toMatch(/npm run/);
      const lines: string[] = [];
      expect(
        await run(parseArgs(['--input', 'bad.yaml', '--lint-config', 'redocly.yaml', '--asyncapi', 'none'], dir), (l) => lines.push(l)),
      ).toBe(1);
      expect(lines.join('\n')).toContain('no-unresolved-refs');
      // the repository's own `npm run generate` says what to run in the repository
      expect(lines.join('\n')).toContain('`npm run lint:spec`');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

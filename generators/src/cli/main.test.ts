/**
 * The `paygate` entry and every command's command-line contract, in process (CliIo captured): --help, exit codes for
 * usage (2) and environment (3) errors, no stack trace for a user error, `generate` into a temp project, `check` on
 * drift, spec errors naming file:line.
 */
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, type CliIo } from './command.js';
import { COMMANDS } from './commands/index.js';
import { runCli } from './main.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURE_SPEC = path.join(ROOT, 'test/fixtures/params/openapi.yaml');

interface Captured extends CliIo {
  out: string;
  err: string;
}

function capture(cwd: string = ROOT): Captured {
  const io: Captured = { out: '', err: '', cwd, stdout: (text) => void (io.out += text), stderr: (text) => void (io.err += text) };
  return io;
}

async function cli(argv: string[], cwd?: string): Promise<{ code: number; out: string; err: string }> {
  const io = capture(cwd);
  const code = await runCli(argv, io);
  return { code, out: io.out, err: io.err };
}

let project: string;
beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'paygate-cli-'));
  await cp(FIXTURE_SPEC, path.join(project, 'api.yaml'));
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('paygate --help', () => {
  it('lists every command on one screen (at most 30 lines of at most 130 characters) and points to serve --help for the environment', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(EXIT.ok);
    for (const command of COMMANDS) expect(out).toContain(`  ${command.name}`);
    const lines = out.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(30);
    expect(lines.filter((l) => l.length > 130)).toEqual([]);
    expect(out).toContain('paygate serve --help');
    const serve = await cli(['serve', '--help']);
    for (const variable of ['PORT', 'PAYGATE_MODE', 'DATABASE_URL', 'PAYGATE_MASTER_KEY', 'REDIS_URL'])
      expect(serve.out).toContain(variable);
  });

  it.each(COMMANDS.map((c) => [c.name, c]))(
    '%s: its line in commands/index.ts matches the command it loads (loaded on demand)',
    async (name, entry) => {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).toEqual({ name, summary: entry.summary });
    },
  );

  it.each(COMMANDS.map((c) => [c.name]))('paygate %s --help prints its usage with exit codes and an example', async (name) => {
    const { code, out, err } = await cli([name, '--help']);
    expect(code).toBe(EXIT.ok);
    expect(err).toBe('');
    expect(out).toContain(`Usage: paygate ${name}`);
    expect(out).toMatch(/Exit codes:/);
    expect(out).toMatch(/Example/);
  });

  it.each([
    ['no command', [], EXIT.usage],
    ['an unknown command', ['deploy'], EXIT.usage],
    ['--version', ['--version'], EXIT.ok],
  ])('%s (argv %j) exits %i', async (_label, argv, expected) => {
    expect((await cli(argv)).code).toBe(expected);
  });
});

describe('usage and environment errors', () => {
  it.each([
    ['an unknown flag', ['generate', '--bogus'], EXIT.usage, /^paygate generate: Unknown flag --bogus\.\n/],
    [
      'a mistyped flag',
      ['generate', '--inptu', 'api.yaml'],
      EXIT.usage,
      /^paygate generate: Unknown flag --inptu\. Did you mean --input\?/,
    ],
    ['a mistyped command', ['genrate'], EXIT.usage, /^paygate: unknown command "genrate"\. Did you mean generate\? Commands: generate, /],
    ['a mistyped root flag', ['--verison'], EXIT.usage, /^paygate: unknown flag "--verison"\. Did you mean --version\?/],
    [
      'a mistyped flag of a command with its own flag parser',
      ['diff', '--fial-on', 'warning', 'a.yaml', 'b.yaml'],
      EXIT.usage,
      /^paygate diff: Unknown flag --fial-on\. Did you mean --fail-on\?/,
    ],
    [
      'serve with an unknown flag: the gateway names itself, so no second prefix',
      ['serve', '--workers', '2', '--bogus'],
      EXIT.usage,
      /^paygate serve takes only --workers N\|auto; .*Unknown flag --bogus\.\n/,
    ],
    ['serve with a mistyped flag', ['serve', '--wrkers', '2'], EXIT.usage, /Unknown flag --wrkers\. Did you mean --workers\?/],
    ['a flag without its value', ['check', '--input'], EXIT.usage, /--input/],
    ['an unknown target', ['generate', '--input', FIXTURE_SPEC, '--targets', 'server,docs'], EXIT.usage, /paygate docs/],
    ['a bad lint mode', ['generate', '--input', FIXTURE_SPEC, '--lint', 'loose'], EXIT.usage, /strict, report or skip/],
    ['serve with arguments', ['serve', '--port', '1'], EXIT.usage, /environment variables/],
    [
      'serve with a wrong number of workers',
      ['serve', '--workers', 'many'],
      EXIT.usage,
      /--workers must be a number of processes from 1 to 256, or auto/,
    ],
    ['contract without --base-url', ['contract', '--client-id', 'x', '--client-secret', 'y'], EXIT.usage, /--base-url is required/],
    [
      'contract with a non-http URL',
      ['contract', '--base-url', 'ftp://x', '--client-id', 'x', '--client-secret', 'y'],
      EXIT.usage,
      /http\(s\) URL/,
    ],
    [
      'contract with an unknown suite file',
      ['contract', '--base-url', 'http://127.0.0.1:9', '--client-id', 'x', '--client-secret', 'y', '--only', 'nope'],
      EXIT.usage,
      /--only takes/,
    ],
    ['a missing spec', ['generate', '--input', 'missing.yaml'], EXIT.environment, /missing\.yaml does not exist.*--input/],
    ['a missing AsyncAPI document', ['check', '--input', FIXTURE_SPEC, '--asyncapi', 'gone.yaml'], EXIT.environment, /--asyncapi none/],
    ['docs without the spec', ['docs', '--input', 'missing.yaml', '--skip-redoc'], EXIT.environment, /does not exist/],
    [
      'docs with a missing --errors file',
      ['docs', '--input', FIXTURE_SPEC, '--errors', 'nope.md', '--skip-redoc', '--out', 'site'],
      EXIT.environment,
      /--errors/,
    ],
    [
      'contract against an unreachable deployment',
      ['contract', '--base-url', 'http://127.0.0.1:9', '--client-id', 'x', '--client-secret', 'y'],
      EXIT.environment,
      /Cannot reach .*paygate serve/,
    ],
  ])('%s (argv %j): exit %i, the message says what to do, no stack trace', async (_label, argv, expected, message) => {
    const { code, err } = await cli(argv, project);
    expect(code).toBe(expected);
    expect(err).toMatch(message);
    expect(err).not.toMatch(/\n\s+at /);
    expect(err, 'one prefix, never two (D290)').not.toMatch(/paygate \w+: paygate/);
  });
});

describe('paygate generate and check in a project of its own', () => {
  const out = 'src/generated';

  it('generates every target, importing the runtimes by package name and nothing from this repository', async () => {
    const { code, out: written } = await cli(['generate', '--input', 'api.yaml', '--out', out], project);
    expect(code).toBe(EXIT.ok);
    const files = written
      .trim()
      .split('\n')
      .map((line) => line.replace(/^wrote /, ''));
    expect(files).toEqual(
      expect.arrayContaining([
        `${out}/contract/index.ts`,
        `${out}/server/handlers.gen.ts`,
        `${out}/client/client.gen.ts`,
        `${out}/webhooks/index.ts`,
      ]),
    );
    for (const file of files) {
      const source = await readFile(path.join(project, file), 'utf8');
      expect(source).toContain('Run `npx paygate generate` to update.');
      const specifiers = [...source.matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => m[1]!);
      for (const specifier of specifiers) {
        expect(specifier, `${file} imports ${specifier}`).toMatch(
          /^(\.\.?\/(?!\.\.\/\.\.)|@paygate\/(contract|server|client|webhooks)(\/|$)|node:)/,
        );
      }
    }
  });

  it('check passes on fresh output, then names a drifted and a missing file with the fix (exit 1)', async () => {
    const args = ['check', '--input', 'api.yaml', '--out', out];
    expect((await cli(args, project)).code).toBe(EXIT.ok);
    const handlers = path.join(project, out, 'server/handlers.gen.ts');
    await writeFile(handlers, `${await readFile(handlers, 'utf8')}// hand edit\n`);
    await unlink(path.join(project, out, 'client/index.ts'));
    const drifted = await cli(args, project);
    expect(drifted.code).toBe(EXIT.failed);
    expect(drifted.out).toContain(`drifted: ${out}/server/handlers.gen.ts`);
    expect(drifted.out).toContain(`missing: ${out}/client/index.ts`);
    expect(drifted.err).toContain('Run `npx paygate generate --input api.yaml --out src/generated` and commit the result.');
    expect((await cli(['generate', '--input', 'api.yaml', '--out', out], project)).code).toBe(EXIT.ok);
    expect((await cli(args, project)).code).toBe(EXIT.ok);
  });

  it('a spec with errors exits 1 naming the file and line', async () => {
    await writeFile(
      path.join(project, 'broken.yaml'),
      'openapi: 3.1.0\ninfo: { title: Broken, version: 1.0.0 }\npaths:\n  /x:\n    get:\n      responses:\n        "200": { $ref: "#/components/responses/Nope" }\n',
    );
    const { code, err } = await cli(['generate', '--input', 'broken.yaml', '--out', 'broken'], project);
    expect(code).toBe(EXIT.failed);
    expect(err).toMatch(/broken\.yaml:\d+:\d+/);
    expect(err).toContain('Fix the spec at the locations above');
    expect(err).not.toMatch(/\n\s+at /);
    // D291: the rule's own page, and nothing only this repository has (`npm run ...`)
    expect(err).toContain('no-unresolved-refs: https://redocly.com/docs/cli/rules/no-unresolved-refs');
    expect(err).not.toMatch(/npm run|<rule-id>/);
  });

  it('an unsupported construct exits 1 with its location and fix, the paygate command to rerun, and no "bug" report', async () => {
    await writeFile(
      path.join(project, 'cycle.json'),
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'C', version: '1' },
        paths: {},
        components: { schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } } },
      }),
    );
    const { code, err } = await cli(['generate', '--input', 'cycle.json', '--out', 'cycle', '--lint', 'skip'], project);
    expect(code).toBe(EXIT.failed);
    expect(err).toContain('cycle.json#/components/schemas/A');
    expect(err).toContain('Fix:');
    expect(err).toContain('`npx paygate generate`');
    expect(err).not.toMatch(/generator bug/);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('in this repository without --out, check is the committed drift gate (npm run generate:check)', async () => {
    const { code, out: report } = await cli(['check']);
    expect(code).toBe(EXIT.ok);
    expect(report).toMatch(/All \d+ generated files are up to date/);
  });

  it('docs builds the site for a spec without error catalogue or decisions', async () => {
    const { code, out: written } = await cli(['docs', '--input', 'api.yaml', '--out', 'site', '--skip-redoc'], project);
    expect(code).toBe(EXIT.ok);
    expect(written).toContain(path.join(project, 'site', 'index.html'));
    expect(await readFile(path.join(project, 'site', 'openapi.json'), 'utf8')).toContain('"listItems"');
  });
});

describe('paygate check is independent of how --input is spelled (D204)', () => {
  let root: string;
  beforeAll(async () => {
    // a project of its own (package.json at its root), the spec in a folder of it
    root = await mkdtemp(path.join(tmpdir(), 'paygate-spelling-'));
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'spelling-proof', private: true }));
    await cp(FIXTURE_SPEC, path.join(root, 'spec', 'api.yaml'), { recursive: true });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('generated with one spelling, it checks clean with ./, an absolute path and from another directory; the header names the spec from the project root', async () => {
    expect((await cli(['generate', '--input', 'spec/api.yaml', '--out', 'gen'], root)).code).toBe(EXIT.ok);
    const header = (await readFile(path.join(root, 'gen/server/handlers.gen.ts'), 'utf8')).split('\n')[0];
    expect(header).toBe('// Generated by @paygate/generators from spec/api.yaml — do not edit. Run `npx paygate generate` to update.');
    const spellings: [string, string[], string][] = [
      ['relative with ./', ['--input', './spec/api.yaml', '--out', './gen'], root],
      ['absolute', ['--input', path.join(root, 'spec/api.yaml'), '--out', path.join(root, 'gen')], root],
      ['from the spec folder', ['--input', 'api.yaml', '--out', '../gen'], path.join(root, 'spec')],
      [
        'from outside the project',
        ['--input', path.join(path.basename(root), 'spec/api.yaml'), '--out', path.join(path.basename(root), 'gen')],
        path.dirname(root),
      ],
    ];
    for (const [name, args, cwd] of spellings) {
      const { code, out } = await cli(['check', ...args], cwd);
      expect({ name, code, out: out.trim() }).toEqual({
        name,
        code: EXIT.ok,
        out: expect.stringMatching(/^All \d+ generated files are up to date\.$/),
      });
    }
  });
});

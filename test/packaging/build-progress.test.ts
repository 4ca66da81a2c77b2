/**
 * `npm run build` says what it does (D292 npm run build through the solution builder): scripts/build.mjs on a small solution of its own (two packages, one
 * importing the other): the first build names the projects, says it is a first build and roughly how long one takes,
 * prints a line per package as it starts compiling and the time of each; a second build compiles nothing and says so;
 * a change compiles only the package it touches; a type error is printed as tsc prints it and fails the build.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
let dir: string;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

function build(): { status: number | null; out: string; err: string } {
  const res = spawnSync(process.execPath, [SCRIPT, path.join(dir, 'tsconfig.build.json')], { encoding: 'utf8', timeout: 120_000 });
  return { status: res.status, out: res.stdout, err: res.stderr };
}

const tsconfig = (references: string[]) =>
  JSON.stringify({
    compilerOptions: {
      composite: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      rootDir: 'src',
      outDir: 'dist',
      tsBuildInfoFile: 'dist/.tsbuildinfo',
      types: [],
      // not the default libraries of ES2022, which hold the DOM's: each of the four builds parsed them (a few CPU-s)
      lib: ['ES2022'],
    },
    include: ['src'],
    references: references.map((p) => ({ path: p })),
  });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'paygate-build-'));
  write('tsconfig.build.json', JSON.stringify({ files: [], references: [{ path: 'a' }, { path: 'b' }] }));
  write('a/package.json', JSON.stringify({ name: '@demo/a', type: 'module' }));
  write('a/tsconfig.json', tsconfig([]));
  write('a/src/index.ts', 'export const answer: number = 42;\n');
  write('b/package.json', JSON.stringify({ name: '@demo/b', type: 'module' }));
  write('b/tsconfig.json', tsconfig(['../a']));
  write('b/src/index.ts', "import { answer } from '../../a/src/index.js';\nexport const double: number = answer * 2;\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/build.mjs (npm run build)', () => {
  it('a first build names every package as it compiles it, says it is a first build and how long one takes', () => {
    const { status, out, err } = build();
    expect(err).toBe('');
    expect(status).toBe(0);
    expect(out).toMatch(
      /^Building @paygate packages \(tsc -b, incremental\): 2 projects, 2 never built here: a first build takes about .* minutes/,
    );
    const lines = out.trimEnd().split('\n');
    expect(lines.slice(1)).toEqual([
      '  [1/2] compiling @demo/a...',
      '  [2/2] compiling @demo/b...',
      expect.stringMatching(/^ {2}compiled 2 of 2 packages in [\d.]+ s \(@demo\/a [\d.]+ s, @demo\/b [\d.]+ s\)$/),
    ]);
  }, 120_000);

  it('a second build compiles nothing and says so; a change compiles only the package it touches', () => {
    const again = build();
    expect(again.status).toBe(0);
    expect(again.out).toContain('2 projects; only what changed since the last build is compiled');
    expect(again.out).toMatch(/ {2}all 2 packages up to date \([\d.]+ s\)\n$/);
    write('b/src/index.ts', "import { answer } from '../../a/src/index.js';\nexport const triple: number = answer * 3;\n");
    const changed = build();
    expect(changed.status).toBe(0);
    expect(changed.out).toContain('  [2/2] compiling @demo/b...');
    expect(changed.out).not.toContain('compiling @demo/a');
  }, 120_000);

  it('a type error is printed with its file and line, and the build fails', () => {
    write('a/src/index.ts', "export const answer: number = 'forty-two';\n");
    const { status, err } = build();
    expect(status).toBe(1);
    expect(err).toMatch(/a[/\\]src[/\\]index\.ts.*1.*TS2322/s);
    expect(err).toContain('Build failed after');
  }, 120_000);
});

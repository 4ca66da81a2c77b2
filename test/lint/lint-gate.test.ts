/**
 * The lint and format gate (D131 Biome is the lint and format gate): `npm run lint` (Biome with the repository's biome.json) runs first in `npm test`
 * and fails on a seeded violation, naming the rule, while a clean file passes. The seeded files sit in a temporary
 * folder inside the repository (Biome reads the repository's configuration and .gitignore from there; a git-ignored
 * folder would be skipped) and are removed afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = path.join(ROOT, 'node_modules/@biomejs/biome/bin/biome');
const DIR = path.join(ROOT, 'test/lint', `seeded-${process.pid}`);

const CLEAN = `export function total(amounts: readonly number[]): number {
  let sum = 0;
  for (const amount of amounts) sum += amount;
  return sum;
}
`;

/** Biome's exit code and its report (diagnostics go to stderr, the summary to stdout; `·` marks a space in a diff). */
async function biomeCheck(files: string[]): Promise<{ code: number; output: string }> {
  const args = [BIOME, 'check', '--colors=off', '--max-diagnostics=50', ...files.map((f) => path.join(DIR, f))];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, output: `${stdout}\n${stderr}`.replaceAll('·', ' ') });
    });
  });
}

/** The diagnostic blocks Biome printed for one file (each starts with the file's path). */
function diagnosticsOf(output: string, file: string): string {
  const rel = path.relative(ROOT, path.join(DIR, file));
  return output
    .split(/\n(?=\S+\.ts(?::\d+:\d+)? )/)
    .filter((block) => block.startsWith(rel))
    .join('\n');
}

// Each Biome run scans the project once (about 4 s of CPU); on a loaded machine that can take a minute of wall time.
const BIOME_RUN_MS = 180_000;

describe('lint gate (Biome)', () => {
  let seeded: { code: number; output: string };

  beforeAll(async () => {
    await mkdir(DIR, { recursive: true });
    await writeFile(path.join(DIR, 'clean.ts'), CLEAN);
    // an unused variable: a real defect in otherwise formatted code
    await writeFile(path.join(DIR, 'unused.ts'), CLEAN.replace('  let sum = 0;\n', '  let sum = 0;\n  const unused = amounts.length;\n'));
    // a mis-formatted line: double quotes, no semicolon, no spaces
    await writeFile(path.join(DIR, 'misformatted.ts'), `${CLEAN}export const currency = {code:"INR"}\n`);
    // a promise nobody awaits or handles: its rejection would be lost
    await writeFile(
      path.join(DIR, 'floating.ts'),
      `${CLEAN}async function send(): Promise<void> {}\nexport function notify(): void {\n  send();\n}\n`,
    );
    // one run for the seeded files (each run scans the project once)
    seeded = await biomeCheck(['unused.ts', 'misformatted.ts', 'floating.ts']);
  }, BIOME_RUN_MS);

  afterAll(async () => {
    await rm(DIR, { recursive: true, force: true });
  });

  it('passes a clean file', { timeout: BIOME_RUN_MS }, async () => {
    const { code, output } = await biomeCheck(['clean.ts']);
    expect(output).toContain('Checked 1 file');
    expect(code).toBe(0);
  });

  it('fails on the seeded files: 3 checked, 3 errors', () => {
    expect(seeded.code).not.toBe(0);
    expect(seeded.output).toContain('Checked 3 files');
    expect(seeded.output).toContain('Found 3 errors');
  });

  it('names the rule for an unused variable', () => {
    expect(diagnosticsOf(seeded.output, 'unused.ts')).toContain('lint/correctness/noUnusedVariables');
  });

  it('shows the formatter diff for a mis-formatted line', () => {
    const report = diagnosticsOf(seeded.output, 'misformatted.ts');
    expect(report).toContain('Formatter would have printed');
    expect(report).toContain("export const currency = { code: 'INR' };");
  });

  it('names the rule for a floating promise', () => {
    expect(diagnosticsOf(seeded.output, 'floating.ts')).toContain('lint/nursery/noFloatingPromises');
  });

  it('runs first in npm test', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['lint']).toMatch(/^biome check\b/);
    expect(pkg.scripts['test']).toMatch(/^npm run lint && /);
  });
});

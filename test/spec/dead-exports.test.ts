/**
 * No dead exports (D462, "A hand-written export used nowhere else fails npm test"): knip, run over the whole
 * repository, reports an export or exported type that no other file imports. Tests count as users; generated files
 * are analysed (their imports count) but their own exports are not reported; a package's public API (the files its
 * package.json `exports` names, e.g. the generators' pipeline and its plugin API) is an entry, so its exports are never
 * dead; an export used in its own file only is not reported (`ignoreExportsUsedInFile`). Configuration: `knip.json`.
 * Why knip: a maintained tool made for this (workspaces, package exports, vitest), no install scripts, parses with
 * oxc in seconds.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KNIP = path.join(ROOT, 'node_modules', '.bin', 'knip');
const FIXTURE = path.join(ROOT, 'test/fixtures/dead-exports');

interface KnipIssue {
  file: string;
  exports?: { name: string }[];
  types?: { name: string }[];
}

/** knip's unused exports and exported types under `dir`, as `file: name` lines. */
function deadExports(dir: string, config?: string): string[] {
  const args = ['--directory', dir, '--include', 'exports,types', '--reporter', 'json', '--no-progress'];
  const run = spawnSync(KNIP, config === undefined ? args : [...args, '--config', config], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const json = run.stdout.slice(run.stdout.indexOf('{'));
  if (run.error || json === '') throw new Error(`knip did not run in ${dir}: ${run.error?.message ?? run.stderr}`);
  const { issues } = JSON.parse(json) as { issues: KnipIssue[] };
  return issues.flatMap((i) => [...(i.exports ?? []), ...(i.types ?? [])].map((e) => `${i.file}: ${e.name}`)).sort();
}

describe('dead exports', () => {
  it('no hand-written export is used nowhere else in the repository', { timeout: 180_000 }, () => {
    expect(
      deadExports(ROOT),
      'remove these exports, or drop `export` when the file uses them itself (tests count as users; see knip.json)',
    ).toEqual([]);
  });

  it('the check fails on a dead export (fixture), and not on test-only, own-file, public-API or generated exports', {
    timeout: 180_000,
  }, () => {
    expect(deadExports(FIXTURE)).toEqual(['src/helpers.ts: deadHelper']);
  });

  it('each exemption is what keeps its export off the list (the fixture without them)', { timeout: 180_000 }, () => {
    expect(deadExports(FIXTURE, 'knip.no-exemptions.json')).toEqual([
      'src/helpers.ts: deadHelper',
      'src/helpers.ts: onlyHere',
      'src/helpers.ts: testedOnly',
      'src/table.gen.ts: GENERATED_UNUSED',
    ]);
  });
});

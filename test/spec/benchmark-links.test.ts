/**
 * Code comments point to measurements in docs/benchmarks.md (`docs/benchmarks.md#pglite-memory-defaults`) instead of
 * holding numbers that go stale (issue 35): every such link names a heading of the file, and `npm run bench`, which
 * rewrites the file, keeps the hand-written part those headings live in.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KEPT_MARKER, withKeptPart } from '../../bench/lib/report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LINK = /docs\/benchmarks\.md#([a-z0-9-]+)/g;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

describe('links to docs/benchmarks.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/benchmarks.md'), 'utf8');
  const anchors = new Set([...doc.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));

  it('every docs/benchmarks.md#anchor in the repository names a heading of docs/benchmarks.md', () => {
    const files = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.mjs', '*.md'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => file !== '' && file !== 'test/spec/benchmark-links.test.ts');
    const broken = files.flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(LINK)].filter((m) => !anchors.has(m[1]!)).map((m) => `${file} #${m[1]}`),
    );
    expect(broken, 'add the heading to the hand-written part of docs/benchmarks.md or fix the link').toEqual([]);
    expect(anchorOf('PGlite memory defaults')).toBe('pglite-memory-defaults');
  });

  it('npm run bench keeps the hand-written part of the file it rewrites', () => {
    const previous = `# Benchmarks\n\nold run\n\n${KEPT_MARKER}\n\n## Measurements\n\nkept\n`;
    expect(withKeptPart('# Benchmarks\n\nnew run\n', previous)).toBe(
      `# Benchmarks\n\nnew run\n\n${KEPT_MARKER}\n\n## Measurements\n\nkept\n`,
    );
    expect(withKeptPart('# Benchmarks\n', '# Benchmarks\n\nno marker\n')).toBe('# Benchmarks\n');
    expect(doc).toContain(KEPT_MARKER);
  });
});

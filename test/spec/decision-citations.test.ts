/**
 * Every decision a file cites (`D123`, `D225-D227`) exists in docs/decisions.md: a reader who follows a citation
 * must find the row. Decision numbers are never reused, so a citation of a number with no row is a typo or a
 * decision that was never written down.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CITATION = /\bD\d{1,4}\b/g;

/** The numbers that have a row in docs/decisions.md (`| D123 | ...`). */
function recordedDecisions(table: string): Set<string> {
  return new Set([...table.matchAll(/^\| (D\d+) \|/gm)].map((m) => m[1]!));
}

/** `file:line D123` for every citation in `text` that has no row. */
function unknownCitations(file: string, text: string, recorded: ReadonlySet<string>): string[] {
  return text.split('\n').flatMap((line, i) =>
    [...line.matchAll(CITATION)]
      .map((m) => m[0])
      .filter((d) => !recorded.has(d))
      .map((d) => `${file}:${i + 1} ${d}`),
  );
}

describe('decision citations', () => {
  const recorded = recordedDecisions(readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8'));

  it('docs/decisions.md has rows to cite', () => {
    expect(recorded.size).toBeGreaterThan(100);
  });

  it('every D-number cited in the repository has a row in docs/decisions.md', () => {
    const files = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.mjs', '*.yaml', '*.md', '*.html'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && f !== 'docs/decisions.md' && f !== 'test/spec/decision-citations.test.ts');
    const unknown = files.flatMap((f) => unknownCitations(f, readFileSync(path.join(ROOT, f), 'utf8'), recorded));
    expect(unknown, 'add the decision to docs/decisions.md or fix the number').toEqual([]);
  });

  it('finds an unknown citation and accepts a known one (the check above is not vacuous)', () => {
    expect(unknownCitations('x.ts', '// fair claim (D1) and D99999 and D9998', new Set(['D1']))).toEqual(['x.ts:1 D9998']);
  });
});

/**
 * Every decision a file cites (`D123`, `D225-D227`) has a record in docs/decisions/ (D450 one file per decision and a generated index): a reader who follows a
 * citation must find the record. Decision numbers are never reused, so a citation of a number with no record is a
 * typo or a decision that was never written down.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readDecisionRecords } from '../../generators/src/emit/decision-records.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CITATION = /\bD\d{1,4}\b/g;

/** The ids that have a record in docs/decisions/ (`D123-<slug>.md`, first line `# D123: <title>`). */
function recordedDecisions(dir: string): Set<string> {
  return new Set(readDecisionRecords(dir).map((record) => record.id));
}

/** `file:line D123` for every citation in `text` that has no record. */
function unknownCitations(file: string, text: string, recorded: ReadonlySet<string>): string[] {
  return text.split('\n').flatMap((line, i) =>
    [...line.matchAll(CITATION)]
      .map((m) => m[0])
      .filter((d) => !recorded.has(d))
      .map((d) => `${file}:${i + 1} ${d}`),
  );
}

describe('decision citations', () => {
  const recorded = recordedDecisions(path.join(ROOT, 'docs/decisions'));

  it('docs/decisions/ has records to cite', () => {
    expect(recorded.size).toBeGreaterThan(100);
    expect(recorded.has('D180')).toBe(true);
  });

  it('every D-number cited in the repository (records and index included) has a record in docs/decisions/', () => {
    const files = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.mjs', '*.yaml', '*.md', '*.html'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && f !== 'test/spec/decision-citations.test.ts');
    const unknown = files.flatMap((f) => unknownCitations(f, readFileSync(path.join(ROOT, f), 'utf8'), recorded));
    expect(unknown, 'write the record docs/decisions/D<n>-<slug>.md (see docs/decisions.md) or fix the number').toEqual([]);
  });

  it('finds an unknown citation and accepts a known one (the check above is not vacuous)', () => {
    expect(unknownCitations('x.ts', '// fair claim (D1) and D99999 and D9998', new Set(['D1']))).toEqual(['x.ts:1 D9998']);
  });

  it('fails on a citation of a decision that has no record in docs/decisions/ (D999 has none; D180 has one)', () => {
    const code = '// one-layer scaffold (D180)\n// a decision nobody wrote down (D999)\n';
    expect(unknownCitations('src/app.ts', code, recorded)).toEqual(['src/app.ts:2 D999']);
  });
});

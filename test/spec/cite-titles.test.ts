/** scripts/decisions/cite-titles.ts (D451 code cites a decision by number and title): bare citations in comments get their titles, nothing else changes. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDecisionRecords } from '../../generators/src/emit/decision-records.js';
import { citeTitles, commentRanges, inSentence } from '../../scripts/decisions/cite-titles-rewrite.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const titles = new Map([
  ['D141', 'One dispatch middleware with find-my-way'],
  ['D96', 'Early answers close the connection'],
  ['D68', 'PGlite memory settings and baseline compiler'],
]);

describe('cite-titles', () => {
  it('titles a bare citation in a line comment and in a doc comment', () => {
    const source = ['/** Dispatches every request in one step (D141). */', 'export const dispatch = 1; // closes early (D96)', ''].join(
      '\n',
    );
    expect(citeTitles(source, 'a.ts', titles)).toEqual({
      text: [
        '/** Dispatches every request in one step (D141 one dispatch middleware with find-my-way). */',
        'export const dispatch = 1; // closes early (D96 early answers close the connection)',
        '',
      ].join('\n'),
      cited: ['D141', 'D96'],
    });
  });

  it('titles each number of a group, keeps an acronym capitalised, and leaves numbers without a title as they are', () => {
    const { text } = citeTitles('// tuned (D68, D96 and D7)\n', 'a.ts', titles);
    expect(text).toBe('// tuned (D68 PGlite memory settings and baseline compiler; D96 early answers close the connection; D7)\n');
    expect(inSentence('A new order starts')).toBe('a new order starts');
  });

  it('leaves strings, template literals, regular expressions and prose citations alone', () => {
    const source = [
      "const a = '(D141)';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source under test holds a template literal
      'const b = `(D96) ${a}`;',
      'const c = /\\/\\/ (D141)/;',
      '// see D141 for the router; the title is there already: one dispatch middleware with find-my-way (D141)',
      '',
    ].join('\n');
    expect(citeTitles(source, 'a.ts', titles)).toEqual({ text: source, cited: [] });
  });

  it('is idempotent', () => {
    const once = citeTitles('/*\n * one step (D141), early (D96)\n */\nexport {};\n', 'a.ts', titles).text;
    expect(citeTitles(once, 'a.ts', titles)).toEqual({ text: once, cited: [] });
  });

  it('finds every comment once, the last one of the file too', () => {
    const source = '// a\n/** b */\nfunction f(/* c */ x: number) {\n  return x; // d\n}\n// e\n';
    expect(commentRanges(source, 'a.ts').map(([s, e]) => source.slice(s, e))).toEqual(['// a', '/** b */', '/* c */', '// d', '// e']);
  });

  it('leaves no bare citation in the repository (npx tsx scripts/decisions/cite-titles.ts FILE titles one)', () => {
    const repoTitles = new Map(readDecisionRecords(path.join(ROOT, 'docs/decisions')).map((r) => [r.id, r.title]));
    const files = execFileSync('git', ['ls-files', '*.ts', '*.mts', '*.mjs', '*.js'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && !f.endsWith('.gen.ts') && !f.includes('/generated/'));
    const bare = files.flatMap((file) => {
      const { cited } = citeTitles(readFileSync(path.join(ROOT, file), 'utf8'), file, repoTitles);
      return cited.length === 0 ? [] : [`${file}: ${cited.join(', ')}`];
    });
    expect(bare).toEqual([]);
  });
});

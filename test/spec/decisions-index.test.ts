/**
 * docs/decisions.md is generated from the records of docs/decisions/ (D450 one file per decision and a generated index): it must be byte-identical to what
 * scripts/decisions/write-index.ts writes, like generated code. And the converter that made the records from the old
 * table (scripts/decisions/split.ts) keeps every word, refuses a row without a title, and can run again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDecisionRecord, readDecisionRecords } from '../../generators/src/emit/decision-records.js';
import { renderDecisionsIndex } from '../../scripts/decisions/decisions-index.js';
import { lostText, splitDecisionsTable } from '../../scripts/decisions/split-table.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const TABLE = `# Decisions

Intro line that stays.

## A. Open

| # | The original specification says | Decision | Reason | Anchor |
|---|---|---|---|---|
| A1 | "x: not shown" | \`a \\| b\` kept | because | Stripe |

## D. Built

| # | The original specification says | Decision | Reason | Anchor |
|---|---|---|---|---|
| D2 | (nothing) | two | why two | \`app.ts\` |

## Arithmetic

One settlement per merchant.

| Line | Net |
| --- | --- |
| capture | 1 |
`;

describe('docs/decisions.md, the generated index', () => {
  it('is byte-identical to what scripts/decisions/write-index.ts writes (run it after adding or editing a record)', () => {
    const committed = readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8');
    expect(committed === renderDecisionsIndex(path.join(ROOT, 'docs/decisions')), 'run: npx tsx scripts/decisions/write-index.ts').toBe(
      true,
    );
  });

  it('lists every record once, by id, title and link, under its section', () => {
    const index = readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8');
    const records = readDecisionRecords(path.join(ROOT, 'docs/decisions'));
    expect(records.length).toBeGreaterThan(250);
    for (const record of records) expect(index).toContain(`- [${record.id}](decisions/${record.id}-`);
    expect(index).toContain('## D. Behaviour decided while building the reference gateway');
    expect(index).toContain('- [Settlement arithmetic](decisions/settlement-arithmetic.md)');
  });
});

describe('scripts/decisions/split.ts', () => {
  const titles = { A1: 'Pipes kept', D2: 'Two' };

  it('writes a record per row (cells unescaped, the heading its section) and a note per prose section', () => {
    const result = splitDecisionsTable({ table: TABLE, existing: new Map(), titles });
    if (!result.ok) throw new Error('refused');
    expect(result.files.map((f) => f.file)).toEqual(['A1-pipes-kept.md', 'D2-two.md', 'arithmetic.md']);
    expect(parseDecisionRecord(result.files[0]!.text, 'A1')).toEqual({
      id: 'A1',
      title: 'Pipes kept',
      group: 'A. Open',
      specSays: '"x: not shown"',
      decision: '`a | b` kept',
      reason: 'because',
      anchor: 'Stripe',
    });
    expect(result.files[2]!.text).toBe('# Arithmetic\n\nOne settlement per merchant.\n\n| Line | Net |\n| --- | --- |\n| capture | 1 |\n');
  });

  it('refuses rows that have neither a record nor a title, naming them', () => {
    expect(splitDecisionsTable({ table: TABLE, existing: new Map(), titles: { A1: 'Pipes kept', D2: ' ' } })).toEqual({
      ok: false,
      untitled: ['D2'],
    });
  });

  it("runs again: a row with a record keeps its title and file name and takes the row's text; the index splits into nothing", () => {
    const existing = new Map([['D2', { file: 'D2-old-name.md', title: 'Title edited in the file' }]]);
    const result = splitDecisionsTable({ table: TABLE.replace('why two', 'why two, edited'), existing, titles: { A1: 'Pipes kept' } });
    if (!result.ok) throw new Error('refused');
    const d2 = result.files.find((f) => f.id === 'D2')!;
    expect(d2.file).toBe('D2-old-name.md');
    expect(parseDecisionRecord(d2.text, 'D2')).toMatchObject({ title: 'Title edited in the file', reason: 'why two, edited' });
    const index = readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8');
    expect(splitDecisionsTable({ table: index, existing: new Map(), titles: {} })).toEqual({ ok: true, files: [] });
  });

  it('the lost-text check finds a changed cell, a missing record, a lost note and a lost intro line', () => {
    const result = splitDecisionsTable({ table: TABLE, existing: new Map(), titles });
    if (!result.ok) throw new Error('refused');
    const records = result.files.filter((f) => f.id !== undefined).map((f) => parseDecisionRecord(f.text, f.file));
    const notes = result.files.filter((f) => f.id === undefined).map((f) => f.text);
    const index = '# Decisions\n\nIntro line that stays.\n';
    expect(lostText(TABLE, records, notes, index)).toEqual([]);
    const changed = records.map((r) => (r.id === 'A1' ? { ...r, anchor: 'Stripe, Adyen' } : r));
    expect(lostText(TABLE, changed, notes, index)).toEqual(['A1: anchor differs from the row']);
    expect(lostText(TABLE, records.slice(1), [], '# Decisions\n')).toEqual([
      'A1: no record',
      'section "Arithmetic": no note holds its text',
      'intro line not in the index: Intro line that stays.',
    ]);
  });
});

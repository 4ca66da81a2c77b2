import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  compareDecisionIds,
  type DecisionRecord,
  decisionFileName,
  isDecisionRecord,
  parseDecisionRecord,
  readDecisionRecords,
  readDecisionsSource,
  renderDecisionRecord,
  slugOf,
} from './decision-records.js';

const record: DecisionRecord = {
  id: 'D180',
  title: 'One-layer scaffold',
  group: 'D. Behaviour decided while building the reference gateway',
  specSays: "(nothing: the scaffold's Express layers)",
  decision: '`createApp` takes `onRequest` | a pipe stays a pipe',
  reason: 'Each layer costs a path match: ~6% of the samples.',
  anchor: 'issue 23; `packages/server/src/runtime/app.ts`',
};

const dirs: string[] = [];
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'decision-records-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('decision records (D450)', () => {
  it('renders the heading, the section in front matter and the four sections, and reads them back', () => {
    const text = renderDecisionRecord(record);
    expect(text).toBe(
      [
        '---',
        'section: D. Behaviour decided while building the reference gateway',
        '---',
        '',
        '# D180: One-layer scaffold',
        '',
        '## Context',
        '',
        "(nothing: the scaffold's Express layers)",
        '',
        '## Decision',
        '',
        '`createApp` takes `onRequest` | a pipe stays a pipe',
        '',
        '## Why',
        '',
        'Each layer costs a path match: ~6% of the samples.',
        '',
        '## Where',
        '',
        'issue 23; `packages/server/src/runtime/app.ts`',
        '',
      ].join('\n'),
    );
    expect(parseDecisionRecord(text, 'x.md')).toEqual(record);
  });

  it('quotes a section name YAML would misread and keeps a record without a section', () => {
    const odd = { ...record, group: 'A. What it leaves open ("not shown"): #1' };
    expect(parseDecisionRecord(renderDecisionRecord(odd), 'x.md').group).toBe(odd.group);
    const plain = renderDecisionRecord({ ...record, group: '' });
    expect(plain.startsWith('# D180: One-layer scaffold\n')).toBe(true);
    expect(parseDecisionRecord(plain, 'x.md').group).toBe('');
  });

  it('keeps several paragraphs of a hand-written section', () => {
    const text = renderDecisionRecord(record).replace('## Why\n\n', '## Why\n\nFirst paragraph.\n\nSecond one.\n\n');
    expect(parseDecisionRecord(text, 'x.md').reason).toBe(
      'First paragraph.\n\nSecond one.\n\nEach layer costs a path match: ~6% of the samples.',
    );
  });

  it('refuses a record without its heading, with a missing or repeated section, or with text before the first section', () => {
    const text = renderDecisionRecord(record);
    expect(() => parseDecisionRecord(text.replace('# D180: One-layer scaffold', '# One-layer scaffold'), 'D180.md')).toThrow(
      'D180.md: the first line must be the heading "# <id>: <title>"',
    );
    expect(() => parseDecisionRecord(text.replace(/## Why\n\n.*\n/, ''), 'D180.md')).toThrow('the section "## Why" is missing or empty');
    expect(() => parseDecisionRecord(`${text}\n## Why\n\nagain\n`, 'D180.md')).toThrow('"## Why" appears twice');
    expect(() => parseDecisionRecord(text.replace('## Context', 'stray\n\n## Context'), 'D180.md')).toThrow(
      'text before the first section',
    );
    expect(() => renderDecisionRecord({ ...record, reason: ' ' })).toThrow('decision D180: its Why is empty');
  });

  it('names files by id and slug, and orders ids as a reader counts', () => {
    expect(slugOf("Settlement entry in an order's payments: three fields")).toBe('settlement-entry-in-an-orders-payments-three-fields');
    expect(decisionFileName('A10', 'Any merchant field may be updated')).toBe('A10-any-merchant-field-may-be-updated.md');
    expect(slugOf('x'.repeat(80))).toHaveLength(60);
    expect(['D10', 'B2', 'A10', 'D9', 'A2'].sort(compareDecisionIds)).toEqual(['A2', 'A10', 'B2', 'D9', 'D10']);
  });

  it('reads the records of a folder, ignoring notes, and refuses a misnamed file or a repeated id', () => {
    const text = renderDecisionRecord(record);
    const dir = folder({
      'D180-one-layer-scaffold.md': text,
      'A2-other.md': renderDecisionRecord({ ...record, id: 'A2', title: 'Other' }),
      'settlement-arithmetic.md': '# Settlement arithmetic\n\nOne settlement per merchant.\n',
      'titles.json': '{}',
    });
    expect(readDecisionRecords(dir).map((r) => r.id)).toEqual(['A2', 'D180']);
    expect(isDecisionRecord('# Settlement arithmetic\n')).toBe(false);
    expect(() => readDecisionRecords(folder({ 'D7-one-layer-scaffold.md': text }))).toThrow(
      'the file of D180 must be named D180-one-layer-scaffold.md',
    );
    expect(() => readDecisionRecords(folder({ 'D180-a.md': text, 'D180-b.md': text }))).toThrow('D180 has two files');
  });

  it('finds the decisions of a checkout: the folder first, else the markdown table', () => {
    const withFolder = folder({});
    const records = path.join(withFolder, 'docs/decisions');
    const withTable = folder({});
    expect(readDecisionsSource(withFolder)).toBeUndefined();
    mkdirSync(records, { recursive: true });
    writeFileSync(path.join(records, 'D180-one-layer-scaffold.md'), renderDecisionRecord(record));
    writeFileSync(path.join(withFolder, 'docs/decisions.md'), '# index\n');
    expect(readDecisionsSource(withFolder)).toEqual({ decisions: [record] });
    mkdirSync(path.join(withTable, 'docs'));
    writeFileSync(path.join(withTable, 'docs/decisions.md'), '| # |\n');
    expect(readDecisionsSource(withTable)).toEqual({ decisionsMarkdown: '| # |\n' });
    expect(readDecisionsSource(withTable, 'docs/decisions.md')).toEqual({ decisionsMarkdown: '| # |\n' });
    // a folder of other notes does not hide the table by default; named, it is read (and has no records)
    mkdirSync(path.join(withTable, 'docs/decisions'));
    writeFileSync(path.join(withTable, 'docs/decisions/README.md'), '# Our notes\n');
    expect(readDecisionsSource(withTable)).toEqual({ decisionsMarkdown: '| # |\n' });
    expect(readDecisionsSource(withTable, 'docs/decisions')).toEqual({ decisions: [] });
  });
});

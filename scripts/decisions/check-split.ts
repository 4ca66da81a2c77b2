/**
 * npx tsx scripts/decisions/check-split.ts [--from FILE]
 *
 * Checks that the records of docs/decisions/ and its notes hold every word of a decisions table (D450 one file per decision and a generated index): each row's
 * cells exactly, each prose section, each intro line (but those describing the table) in docs/decisions.md. Run it
 * after scripts/decisions/split.ts with the same --from (e.g. `git show <before>:docs/decisions.md > /tmp/t.md`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isDecisionRecord, readDecisionRecords } from '../../generators/src/emit/decision-records.js';
import { lostText } from './split-table.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { from: { type: 'string' } } });
const dir = path.join(ROOT, 'docs/decisions');
const table = readFileSync(path.resolve(ROOT, values.from ?? 'docs/decisions.md'), 'utf8');
const notes = readdirSync(dir)
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(path.join(dir, f), 'utf8'))
  .filter((text) => !isDecisionRecord(text));
const records = readDecisionRecords(dir);
const lost = lostText(table, records, notes, readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8'));
if (lost.length > 0) {
  console.error(`check-split: ${lost.length} piece(s) of the table are not in the records:\n  ${lost.join('\n  ')}`);
  process.exitCode = 1;
} else {
  console.log(`check-split: every row (${records.length} records), prose section and intro line is in docs/decisions/ and the index`);
}

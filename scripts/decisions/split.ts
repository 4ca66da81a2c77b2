/**
 * npx tsx scripts/decisions/split.ts [--from FILE] [--dir DIR] [--titles FILE]
 *
 * Writes one record per row of the decisions tables in FILE (default docs/decisions.md) into DIR (default
 * docs/decisions/), and one note per `##` section without a decisions table (D450 one file per decision and a generated index). Re-runnable: a row whose record
 * exists rewrites that record's Context, Decision, Why and Where from the row (its title and file name stay); a row
 * without a record takes its title from the titles file (default DIR/titles.json, `{"D<n>": "A few words"}`) and the
 * title is removed from that file once its record is written. A row with neither stops the run before anything is
 * written, naming the rows. FILE without decisions tables (the generated index) writes nothing.
 *
 * Then run `npx tsx scripts/decisions/write-index.ts` to rebuild docs/decisions.md from the records.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decisionFiles, parseDecisionRecord } from '../../generators/src/emit/decision-records.js';
import { splitDecisionsTable } from './split-table.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: { from: { type: 'string' }, dir: { type: 'string' }, titles: { type: 'string' } },
});
const from = path.resolve(ROOT, values.from ?? 'docs/decisions.md');
const dir = path.resolve(ROOT, values.dir ?? 'docs/decisions');
const titlesFile = path.resolve(ROOT, values.titles ?? path.join(dir, 'titles.json'));
const relative = (file: string) => path.relative(process.cwd(), file) || '.';

mkdirSync(dir, { recursive: true });
const titles: Record<string, string> = existsSync(titlesFile) ? JSON.parse(readFileSync(titlesFile, 'utf8')) : {};
const existing = new Map(
  [...decisionFiles(dir)].map(([id, file]) => [
    id,
    { file, title: parseDecisionRecord(readFileSync(path.join(dir, file), 'utf8'), file).title },
  ]),
);
const result = splitDecisionsTable({ table: readFileSync(from, 'utf8'), existing, titles });
if (!result.ok) {
  const example = Object.fromEntries(result.untitled.slice(0, 2).map((id) => [id, 'A few words saying what was decided']));
  console.error(
    `split: ${result.untitled.length} row(s) of ${relative(from)} have no record and no title: ${result.untitled.join(', ')}.\n` +
      `Add a title for each (read the row's Decision cell) to ${relative(titlesFile)}, e.g. ${JSON.stringify(example)}, and run again. Nothing was written.`,
  );
  process.exit(1);
}
const counts = { created: [] as string[], updated: [] as string[], unchanged: 0 };
for (const { file, text, id } of result.files) {
  const target = path.join(dir, file);
  const before = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  if (before === text) counts.unchanged++;
  else {
    writeFileSync(target, text);
    (before === undefined ? counts.created : counts.updated).push(id ?? file);
  }
}
// a title is consumed once its record exists: the record's first heading is where it lives from then on
const written = new Set(result.files.flatMap((f) => (f.id === undefined ? [] : [f.id])));
const left = Object.fromEntries(Object.entries(titles).filter(([id]) => !written.has(id) && !existing.has(id)));
if (existsSync(titlesFile) || Object.keys(left).length > 0) writeFileSync(titlesFile, `${JSON.stringify(left, null, 2)}\n`);
console.log(
  `split: ${relative(from)} -> ${relative(dir)}: ${counts.created.length} created${counts.created.length > 0 ? ` (${counts.created.join(', ')})` : ''}, ` +
    `${counts.updated.length} updated${counts.updated.length > 0 ? ` (${counts.updated.join(', ')})` : ''}, ${counts.unchanged} unchanged.` +
    (result.files.length === 0 ? ' No decisions table in it: nothing to split.' : ' Next: npx tsx scripts/decisions/write-index.ts'),
);

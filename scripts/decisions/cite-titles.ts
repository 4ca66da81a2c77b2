/**
 * npx tsx scripts/decisions/cite-titles.ts [--check] FILE...
 *
 * Gives bare decision citations in code comments their titles (D451 code cites a decision by number and title): `// one dispatch step (D141)` becomes
 * `// one dispatch step (D141 one dispatch middleware with find-my-way)`, `(D96 early answers close the connection, bodies counted; D141)` becomes
 * `(D96 early answers close the connection; D141 one dispatch middleware with find-my-way)`. Only comments (found by
 * TypeScript's own comment scanner, so strings, templates and regular expressions are never touched), only a
 * parenthesis holding nothing but decision numbers, and only numbers whose title the comment does not already carry.
 * Idempotent: a second run changes nothing. --check writes nothing and exits 1 when a file has a bare citation left.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDecisionRecords } from '../../generators/src/emit/decision-records.js';
import { citeTitles } from './cite-titles-rewrite.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const check = args.includes('--check');
const files = args.filter((arg) => arg !== '--check');
if (files.length === 0) {
  console.error('usage: npx tsx scripts/decisions/cite-titles.ts [--check] FILE... (TypeScript or JavaScript files)');
  process.exit(2);
}
const titles = new Map(readDecisionRecords(path.join(ROOT, 'docs/decisions')).map((r) => [r.id, r.title]));
let pending = 0;
for (const file of files) {
  if (!/\.[cm]?[jt]sx?$/.test(file)) {
    console.log(`${file}: skipped (not TypeScript or JavaScript)`);
    continue;
  }
  const before = readFileSync(file, 'utf8');
  const { text, cited } = citeTitles(before, file, titles);
  if (cited.length === 0) continue;
  pending += cited.length;
  if (!check) writeFileSync(file, text);
  console.log(`${file}: ${check ? 'bare' : 'titled'} ${cited.join(', ')}`);
}
if (check && pending > 0) {
  console.error(`${pending} bare citation(s): run npx tsx scripts/decisions/cite-titles.ts on the files above`);
  process.exitCode = 1;
}

/**
 * npx tsx scripts/decisions/write-index.ts [--check]
 *
 * Writes docs/decisions.md, the generated index of docs/decisions/*.md (D450 one file per decision and a generated index). --check writes nothing and exits 1
 * when the committed index differs from what this would write (test/spec/decisions-index.test.ts runs the same check
 * in npm test).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDecisionsIndex } from './decisions-index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const INDEX = path.join(ROOT, 'docs/decisions.md');
const text = renderDecisionsIndex(path.join(ROOT, 'docs/decisions'));
if (process.argv.includes('--check')) {
  const same = readFileSync(INDEX, 'utf8') === text;
  console.log(same ? 'docs/decisions.md is up to date' : 'docs/decisions.md is stale: run npx tsx scripts/decisions/write-index.ts');
  process.exitCode = same ? 0 : 1;
} else {
  writeFileSync(INDEX, text);
  console.log(`wrote docs/decisions.md (${text.split('\n').length - 1} lines)`);
}

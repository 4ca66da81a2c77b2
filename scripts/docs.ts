/**
 * npm run docs  (tsx scripts/docs.ts [--out <dir>] [--openapi <root document>] [--skip-redoc])
 *
 * This repository's reference site: `paygate docs` (generators/src/cli/commands/docs.ts) run at the repository root
 * with docs/errors.md and docs/decisions.md, into docs/site/ (served by the reference gateway at /docs).
 * --openapi names another root document (its asyncapi.yaml beside it), as `paygate docs --input` does.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { command as docs } from '../generators/src/cli/commands/docs.js';
import { runCommand } from '../generators/src/cli/run-command.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2).map((arg) => (arg === '--openapi' ? '--input' : arg));
const started = performance.now();
const code = await runCommand(docs, ['--out', 'docs/site', ...argv], {
  stdout: (text) => process.stdout.write(text.replace(/^/gm, '[docs] ').replace(/\[docs\] $/, '')),
  stderr: (text) => process.stderr.write(text),
  cwd: ROOT,
});
console.log(`[docs] ${code === 0 ? 'done' : 'failed'} in ${Math.round(performance.now() - started)} ms`);
process.exitCode = code;

/**
 * npm run docs  (tsx scripts/docs.ts [--out <dir>] [--openapi <root document>] [--skip-redoc] [--force])
 *
 * This repository's reference site: `paygate docs` (generators/src/cli/commands/docs.ts) run at the repository root
 * with docs/errors.md and the decision records of docs/decisions/, into docs/site/ (served by the reference gateway at /docs).
 * --openapi names another root document (its asyncapi.yaml beside it), as `paygate docs --input` does.
 *
 * Without flags the build is skipped when none of its inputs changed since the last one (a content hash of the
 * spec, the docs markdown, the generators and the lock file, kept in docs/site/.inputs-hash): `npm start` rebuilds the
 * site only when it would differ. --force rebuilds anyway.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashInputs, readStoredHash, writeStoredHash } from './lib/input-hash.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SITE = path.join(ROOT, 'docs/site');
/** What the default site is built from: anything else changing cannot change it. */
const INPUTS = [
  'openapi',
  'docs/errors.md',
  'docs/decisions',
  'docs/decisions.md',
  'generators/src',
  'generators/templates',
  'package-lock.json',
];

const args = process.argv.slice(2);
const force = args.includes('--force');
const argv = args.filter((arg) => arg !== '--force').map((arg) => (arg === '--openapi' ? '--input' : arg));
const started = performance.now();

const cacheable = argv.length === 0; // a build into another place or from another spec is always made
const inputsHash = cacheable ? hashInputs(ROOT, INPUTS) : undefined;
if (inputsHash !== undefined && !force && readStoredHash(SITE) === inputsHash) {
  console.log(`[docs] docs/site is up to date (its inputs did not change; npm run docs -- --force rebuilds it)`);
} else {
  // loaded only when the site is built: the generators take seconds to import, the hash a few milliseconds
  const { command: docs } = await import('../generators/src/cli/commands/docs.js');
  const { runCommand } = await import('../generators/src/cli/run-command.js');
  const code = await runCommand(docs, ['--out', 'docs/site', ...argv], {
    stdout: (text) => process.stdout.write(text.replace(/^/gm, '[docs] ').replace(/\[docs\] $/, '')),
    stderr: (text) => process.stderr.write(text),
    cwd: ROOT,
  });
  if (code === 0 && inputsHash !== undefined) writeStoredHash(SITE, inputsHash);
  console.log(`[docs] ${code === 0 ? 'done' : 'failed'} in ${Math.round(performance.now() - started)} ms`);
  process.exitCode = code;
}

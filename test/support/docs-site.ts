/**
 * The docs site of Paygate's own spec (`scripts/docs.ts`, the real `npm run docs` path), built once per test run
 * (D138, "Test fixtures made once per run") into node_modules/.cache/paygate-test-docs-site for the test files that
 * read it and never write to it (test/e2e/docs.test.ts, test/e2e/docs-reference.test.ts): each built its own copy,
 * about 7 CPU-s apiece (docs/benchmarks.md#test-cpu-per-file).
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { oncePerRun, TEST_CACHE_DIR } from './once-per-run.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = path.join(TEST_CACHE_DIR, 'paygate-test-docs-site');

/** The directory of the built site (shared: read it, do not write to it). */
export async function docsSiteOnce(): Promise<string> {
  await oncePerRun({
    name: 'paygate-test-docs-site',
    staleMs: 360_000,
    waitMs: 360_000,
    async work() {
      await rm(SITE, { recursive: true, force: true });
      // minutes on a loaded 2-core machine
      await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/docs.ts', '--out', SITE], {
        cwd: ROOT,
        timeout: 300_000,
      });
    },
  });
  return SITE;
}

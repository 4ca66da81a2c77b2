/**
 * The test run's shared setup (wired in vitest.config.ts, beside the contract suite's coverage setup), done once per
 * run instead of once per test file (D138):
 * - a tarball of an initialised PGlite data dir (PAYGATE_TEST_PGLITE_TEMPLATE; `usePgliteTemplate()` in the database
 *   helpers loads it instead of running initdb for each in-memory database);
 * - a run id (PAYGATE_TEST_RUN_ID) that `buildOnce()` (test/support/build.ts) records after building, so the fault,
 *   packaging and README files build dist/ once per run, not once per file.
 * Environment variables set here reach the test workers, which vitest starts after the global setups ran.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePgliteTemplate, PGLITE_TEMPLATE_ENV } from '../../packages/reference/src/testing/pglite-template.js';

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/paygate-test/', import.meta.url));

export default async function setup(): Promise<void> {
  process.env['PAYGATE_TEST_RUN_ID'] ??= `${Date.now()}-${randomBytes(4).toString('hex')}`;
  process.env[PGLITE_TEMPLATE_ENV] ??= await ensurePgliteTemplate(path.join(CACHE_DIR, 'pglite'));
}

/**
 * One initialised PGlite data dir per test run instead of an initdb per in-memory database (D138 test fixtures made once per run). The vitest global
 * setup (test/support/global-setup.ts) writes a tarball of a fresh data dir once (kept in node_modules/.cache across
 * runs, keyed by the PGlite version and start parameters) and names it in PAYGATE_TEST_PGLITE_TEMPLATE; the database
 * helpers of the tests (`openTestDb`, the contract harness's `startGateway`, and tests that open a runtime themselves)
 * call `usePgliteTemplate()` first, so their `memory://` databases load it instead of running initdb, a fraction of
 * the CPU (docs/benchmarks.md#pglite-test-template). A second tarball has every migration applied as well
 * (PAYGATE_TEST_PGLITE_MIGRATED_TEMPLATE, keyed by the migrations' contents too): the databases opened to be migrated
 * start from it, and their migration finds the schema current (D172 a current database start writes nothing). Without the variables (a run outside vitest,
 * e.g. `paygate contract`) nothing changes.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_PGLITE_MEMORY } from '../core/config.js';

export const PGLITE_TEMPLATE_ENV = 'PAYGATE_TEST_PGLITE_TEMPLATE';
export const PGLITE_MIGRATED_TEMPLATE_ENV = 'PAYGATE_TEST_PGLITE_MIGRATED_TEMPLATE';

let installed = false;

/** The bytes of `file`, read once, as a Blob (what PGlite's `loadDataDir` takes). */
function blobOf(file: string): () => Promise<Blob> {
  let bytes: Promise<Blob> | undefined;
  return () => (bytes ??= readFile(file).then((b) => new Blob([b])));
}

/** Make this process's later `memory://` databases start from the run's templates, when the run made them. */
export async function usePgliteTemplate(): Promise<void> {
  if (installed) return;
  installed = true;
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (!file || !existsSync(file)) return;
  const migrated = process.env[PGLITE_MIGRATED_TEMPLATE_ENV];
  const { useMemoryTemplate } = await import('../db/pglite.js');
  useMemoryTemplate(blobOf(file), migrated && existsSync(migrated) ? blobOf(migrated) : undefined);
}

/**
 * Fill `dir`, a new PGlite data dir on disk (missing or empty), with the run's initialised template, so the gateway
 * that opens it finds a data dir and skips initdb: about 3 CPU-s in a child process per new data dir (docs/benchmarks.md,
 * npm test: wall time and CPU). For the tests whose subject is not the creation of a data dir (the README's gateway,
 * `paygate contract --spec` against `npm start`'s, the master key across restarts, `serve`'s secret); packages/reference/src/startup.test.ts
 * and the full-disk test keep the real creation. The tarball is PGlite's own dump of a data dir (members named from its
 * root, `/base/...`), unpacked with the system's `tar`, which strips the leading `/`. Without the run's template (a test
 * run outside vitest) it does nothing, and the gateway runs initdb as it would for a user.
 */
export async function seedPgliteDataDir(dir: string): Promise<void> {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (!file || !existsSync(file)) return;
  await mkdir(dir, { recursive: true });
  await promisify(execFile)('tar', ['-xf', file, '-C', dir]);
}

/**
 * The template tarball in `cacheDir`, made if missing: named by the PGlite version and the start parameters, so a
 * dependency upgrade or a changed memory setting makes a new one. Written to a temporary name and renamed, so an
 * interrupted run never leaves half a tarball behind.
 */
export async function ensurePgliteTemplate(cacheDir: string): Promise<string> {
  const { dumpInitialisedDataDir, pgliteStartParams } = await import('../db/pglite.js');
  // the package's entry is <package>/dist/index.cjs; its package.json is not exported, so it is found beside dist/
  const pkgFile = path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
  const version = (JSON.parse(await readFile(pkgFile, 'utf8')) as { version: string }).version;
  const key = createHash('sha256')
    .update(JSON.stringify([version, pgliteStartParams(DEFAULT_PGLITE_MEMORY)]))
    .digest('hex')
    .slice(0, 16);
  const file = path.join(cacheDir, `pglite-initdb-${version}-${key}.tar`);
  if (existsSync(file)) return file;
  await mkdir(cacheDir, { recursive: true });
  const blob = await dumpInitialisedDataDir(DEFAULT_PGLITE_MEMORY);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, Buffer.from(await blob.arrayBuffer()));
  await rename(temp, file);
  return file;
}

/**
 * The migrated template beside `initialised` (an `ensurePgliteTemplate` tarball), made from it if missing: named by
 * the initialised one's name and a digest of every migration file, so a new or changed migration makes a new one.
 */
export async function ensureMigratedPgliteTemplate(initialised: string): Promise<string> {
  const { loadMigrations, migrate } = await import('../db/migrate.js');
  const migrations = await loadMigrations();
  const digest = createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 16);
  const file = initialised.replace(/\.tar$/, `-migrated-${digest}.tar`);
  if (existsSync(file)) return file;
  const { dumpMigratedDataDir } = await import('../db/pglite.js');
  const blob = await dumpMigratedDataDir((db) => migrate(db, migrations), new Blob([await readFile(initialised)]), DEFAULT_PGLITE_MEMORY);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, Buffer.from(await blob.arrayBuffer()));
  await rename(temp, file);
  return file;
}

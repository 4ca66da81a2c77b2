/**
 * Make sure every package's dist/ is current (`npm run build`: tsc -b is incremental, so this is quick when nothing
 * changed), for tests that run the built code (the fault tests' gateway processes, the packed packages). Test files
 * run in parallel workers, so builds are serialised with a lock directory (stale after 3 minutes). A run builds once:
 * the first file to get here builds and records the run's id (PAYGATE_TEST_RUN_ID, from test/support/global-setup.ts)
 * beside the lock, and the other files of the run find it there and skip the build (D138; each no-op `tsc -b` cost
 * CPU in every fault, packaging and README file: docs/benchmarks.md#no-op-builds-in-tests).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILD_LOCK = path.join(REPO_ROOT, 'node_modules', '.cache', 'paygate-faults-build.lock');
const BUILT_FOR_RUN = path.join(REPO_ROOT, 'node_modules', '.cache', 'paygate-test-built-for-run');
let built = false;

export async function buildOnce(): Promise<void> {
  if (built) return;
  mkdirSync(path.dirname(BUILD_LOCK), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      try {
        if (Date.now() - statSync(BUILD_LOCK).mtimeMs > 180_000) rmdirSync(BUILD_LOCK);
      } catch {
        /* removed meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`could not take the build lock ${BUILD_LOCK}`);
      await sleep(250);
    }
  }
  try {
    const runId = process.env['PAYGATE_TEST_RUN_ID'];
    if (runId !== undefined && readBuiltFor() === runId) {
      built = true;
      return;
    }
    const res = spawnSync('npm', ['run', '-s', 'build'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 170_000 });
    if (res.status !== 0) {
      throw new Error(`npm run build failed (status ${String(res.status)}):\n${res.stdout}\n${res.stderr}`);
    }
    if (runId !== undefined) writeFileSync(BUILT_FOR_RUN, runId);
  } finally {
    rmdirSync(BUILD_LOCK);
  }
  built = true;
}

function readBuiltFor(): string | undefined {
  try {
    return readFileSync(BUILT_FOR_RUN, 'utf8');
  } catch {
    return undefined;
  }
}

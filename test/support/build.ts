/**
 * Make sure every package's dist/ is current (`npm run build`: tsc -b is incremental, so this is quick when nothing
 * changed), for tests that run the built code (the fault tests' gateway processes, the packed packages). A run builds
 * once (D138, "Test fixtures made once per run"; test/support/once-per-run.ts): each no-op `tsc -b` cost CPU in every
 * fault, packaging and README file (docs/benchmarks.md#no-op-builds-in-tests).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { oncePerRun } from './once-per-run.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
let built = false;

export async function buildOnce(): Promise<void> {
  if (built) return;
  await oncePerRun({
    name: 'paygate-test-build',
    staleMs: 180_000,
    waitMs: 180_000,
    work() {
      // without type-checking the packages: the run's `typecheck` precheck checks the same sources (scripts/build.mjs,
      // PAYGATE_BUILD_NO_CHECK; the emitted JavaScript and declarations are the same byte for byte)
      const res = spawnSync('npm', ['run', '-s', 'build'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 170_000,
        env: { ...process.env, PAYGATE_BUILD_NO_CHECK: '1' },
      });
      if (res.status !== 0) throw new Error(`npm run build failed (status ${String(res.status)}):\n${res.stdout}\n${res.stderr}`);
    },
  });
  built = true;
}

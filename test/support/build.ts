/**
 * Make sure every package's dist/ is current (`npm run build`: tsc -b is incremental, so this is quick when nothing
 * changed), for tests that run the built code (the fault tests' gateway processes, the packed packages). Test files
 * run in parallel workers, so builds are serialised with a lock directory (stale after 3 minutes).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILD_LOCK = path.join(REPO_ROOT, 'node_modules', '.cache', 'paygate-faults-build.lock');
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
    const res = spawnSync('npm', ['run', '-s', 'build'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 170_000 });
    if (res.status !== 0) {
      throw new Error(`npm run build failed (status ${String(res.status)}):\n${res.stdout}\n${res.stderr}`);
    }
  } finally {
    rmdirSync(BUILD_LOCK);
  }
  built = true;
}

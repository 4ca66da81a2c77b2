/**
 * A lock between processes: a directory made with `mkdir` (atomic), holding the owner's pid. Test files run in
 * parallel workers, and two runs of one checkout may overlap; a generated project's directory (D464 generated projects
 * compiled incrementally in a directory per project) is used by one of them at a time. A lock whose owner is no longer
 * running (a killed run) is taken over.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Bounded: a compile of the largest spec under heavy load stays well under this. */
const WAIT_MS = 20 * 60_000;

export async function withLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await tryTake(lockDir))) {
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS / 60_000} min for ${lockDir}: remove it if no test run is using it`);
    await sleep(500);
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

async function tryTake(lockDir: string): Promise<boolean> {
  try {
    await mkdir(lockDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (await ownerGone(lockDir)) await rm(lockDir, { recursive: true, force: true });
    return false;
  }
  await writeFile(path.join(lockDir, 'pid'), String(process.pid));
  return true;
}

/**
 * The owner's pid is written just after the mkdir: a lock without one is being taken, or was left by a process killed
 * in between (then it is a minute old).
 */
async function ownerGone(lockDir: string): Promise<boolean> {
  const pid = Number(await readFile(path.join(lockDir, 'pid'), 'utf8').catch(() => 'NaN'));
  if (!Number.isInteger(pid)) {
    const made = await stat(lockDir).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    return Date.now() - made > 60_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

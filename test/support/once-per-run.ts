/**
 * Work that several test files need and that one test run does once (D138, "Test fixtures made once per run"): the
 * files run in parallel worker processes, so the first to get here takes a lock directory (stale after `staleMs`),
 * does the work and records the run's id (PAYGATE_TEST_RUN_ID, set by test/support/global-setup.ts) in a marker file;
 * the others wait on the lock and find the marker. Without a run id (a file run outside vitest's global setup) the
 * work is done every time.
 */
import { mkdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const TEST_CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url));

export interface OncePerRun {
  /** Names the lock (`<name>.lock`) and the marker (`<name>.run`) under node_modules/.cache. */
  name: string;
  /** A lock older than this is from a killed run and is taken over. */
  staleMs: number;
  /** The longest wait for another file's work before failing with the lock's path. */
  waitMs: number;
  work(): Promise<void> | void;
}

export async function oncePerRun(task: OncePerRun): Promise<void> {
  const lock = path.join(TEST_CACHE_DIR, `${task.name}.lock`);
  const marker = path.join(TEST_CACHE_DIR, `${task.name}.run`);
  mkdirSync(TEST_CACHE_DIR, { recursive: true });
  const deadline = Date.now() + task.waitMs;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > task.staleMs) rmdirSync(lock);
      } catch {
        /* removed meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`could not take the lock ${lock} in ${task.waitMs} ms: remove it if no test run is going`);
      await sleep(250);
    }
  }
  try {
    const runId = process.env['PAYGATE_TEST_RUN_ID'];
    if (runId !== undefined && readMarker(marker) === runId) return;
    await task.work();
    if (runId !== undefined) writeFileSync(marker, runId);
  } finally {
    rmdirSync(lock);
  }
}

function readMarker(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * `paygate generate --watch` (D376): regenerates in place whenever the root document, a file it references, the
 * AsyncAPI document, the config, a plugin module named by path or an override template is saved. One line per run
 * (what changed, files written, time); a run that fails prints its error and the watch goes on (a broken save is
 * normal while editing), and the next good save recovers.
 *
 * The folders of the watched files are watched, not the files: editors that save by writing a new file and renaming
 * it over the old one (vim, JetBrains) replace the inode a file watch would follow.
 */
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface WatchRun {
  /** Absolute paths this run read: the next change to any of them starts another run. */
  inputs: readonly string[];
  /** The run's one line (without the time prefix and the changed files). */
  summary: string;
}

export interface WatchOptions {
  /** One generation; throws to report a failed run (its message is printed, the watch goes on). */
  run(): Promise<WatchRun>;
  /** Files to watch before the first run succeeds (the root document, the config). */
  initialInputs: readonly string[];
  /** Where the lines go. */
  log(line: string): void;
  /** Ends the watch (tests; the command ends it on SIGINT/SIGTERM). */
  signal: AbortSignal;
  /** Quiet time after a change before a run starts (a save is often several writes). Default 60 ms. */
  debounceMs?: number;
  /** Changed files are named relative to it. */
  cwd: string;
  /** The clock of the time prefix (injected for tests). */
  now?: () => Date;
}

async function digest(file: string): Promise<string> {
  try {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  } catch {
    return 'missing';
  }
}

/** Runs `run` now and after every change to its inputs, until `signal` aborts; resolves then. */
export async function watchAndRegenerate(options: WatchOptions): Promise<void> {
  const debounceMs = options.debounceMs ?? 60;
  const now = options.now ?? (() => new Date());
  const stamp = () => now().toISOString().slice(11, 19);
  let inputs = new Set(options.initialInputs.map((f) => path.resolve(f)));
  /** Content digests of the inputs at the last run: a save that changes no byte (or a touch) starts no run. */
  let digests = new Map<string, string>();
  const watchers = new Map<string, FSWatcher>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const rewatch = () => {
    const dirs = new Set([...inputs].map((f) => path.dirname(f)));
    for (const [dir, watcher] of watchers) {
      if (!dirs.has(dir)) {
        watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, (_event, name) => {
          if (name === null) return;
          const file = path.join(dir, name.toString());
          if (!inputs.has(file)) return;
          changed.add(file);
          clearTimeout(timer);
          timer = setTimeout(start, debounceMs);
        });
        watcher.on('error', () => undefined);
        watchers.set(dir, watcher);
      } catch {
        // a folder that disappeared: watched again when a run names it
      }
    }
  };

  const runOnce = async (first: boolean) => {
    const names = [...changed].map((f) => path.relative(options.cwd, f) || f);
    changed.clear();
    // digests taken before the run: a save during the run differs from them and starts the next one
    const before = new Map(await Promise.all([...inputs].map(async (f) => [f, await digest(f)] as const)));
    if (!first && [...before].every(([f, d]) => digests.get(f) === d)) return;
    const started = performance.now();
    const what = first ? 'initial run' : `${names.join(', ') || 'inputs'} changed`;
    try {
      const result = await options.run();
      inputs = new Set([...options.initialInputs, ...result.inputs].map((f) => path.resolve(f)));
      options.log(`[${stamp()}] ${what}: ${result.summary} in ${(performance.now() - started).toFixed(0)} ms`);
    } catch (error) {
      // a broken save: keep watching what the last good run read, plus the root, so the fix is seen
      const message = (error instanceof Error ? error.message : String(error)).trim();
      options.log(
        `[${stamp()}] ${what}: failed in ${(performance.now() - started).toFixed(0)} ms (still watching; save again to retry)\n${message}`,
      );
    }
    digests = new Map(await Promise.all([...inputs].map(async (f) => [f, before.get(f) ?? (await digest(f))] as const)));
    rewatch();
  };

  function start(): void {
    if (options.signal.aborted) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = runOnce(false).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        start();
      }
    });
  }

  rewatch();
  running = runOnce(true).finally(() => {
    running = undefined;
  });
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  clearTimeout(timer);
  for (const watcher of watchers.values()) watcher.close();
  await running;
}

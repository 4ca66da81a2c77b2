/**
 * One process per PGlite data directory. PGlite is PostgreSQL in single-user mode inside this process: a second
 * process opening the same directory would run migrations and write pages under the first one's feet. The lock is a
 * file holding the owner's pid, created exclusively; a lock whose process is gone (kill -9, a crash) is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The lock beside the directory (`<dir>.lock`), not in it: PostgreSQL owns what is inside. */
export function lockFileOf(dataDir: string): string {
  const resolved = path.resolve(dataDir);
  return path.join(path.dirname(resolved), `${path.basename(resolved)}.lock`);
}

/** The data directory is held by another live process: say which, and what to do instead. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Paygate process (pid ${pid}). ` +
        `Stop that process first, or give this one its own directory (PAYGATE_DATA_DIR=...); ` +
        `several processes on one database need PostgreSQL (DATABASE_URL=postgres://...).`,
    );
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by another user
  }
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Take the data directory's lock; resolves to its release. Throws DataDirLockedError while another process holds it. */
export function lockDataDir(dataDir: string, pid: number = process.pid): () => void {
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return () => {
        if (ownerOf(file) === pid) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = ownerOf(file);
      if (owner !== undefined && isAlive(owner)) throw new DataDirLockedError(dataDir, owner);
      rmSync(file, { force: true }); // stale: its process is gone (kill -9, a crash)
    }
  }
  throw new Error(`Could not take the lock ${file}: remove it if no Paygate process is running.`);
}

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir, lockFileOf } from './data-dir-lock.js';
import { openPglite } from './pglite.js';

describe('the PGlite data directory lock', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-lock-'));
    dirs.push(dir);
    return path.join(dir, 'data');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a second holder is refused while the first lives, naming its pid and what to do; released, it can be taken', () => {
    const dataDir = tempDir();
    const release = lockDataDir(dataDir);
    expect(readFileSync(lockFileOf(dataDir), 'utf8').trim()).toBe(String(process.pid));
    expect(() => lockDataDir(dataDir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dataDir)).toThrow(new RegExp(`in use by another Paygate process \\(pid ${process.pid}\\).*DATABASE_URL`));
    release();
    expect(existsSync(lockFileOf(dataDir))).toBe(false);
    lockDataDir(dataDir)();
  });

  it('a lock left by a process that is gone (kill -9, a crash) is taken over', () => {
    const dataDir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(lockFileOf(dataDir), `${gone.stdout}\n`);
    const release = lockDataDir(dataDir);
    expect(readFileSync(lockFileOf(dataDir), 'utf8').trim()).toBe(String(process.pid));
    release();
  });

  it('openPglite holds the lock until close: a second open of the same directory fails before touching it', async () => {
    const dataDir = tempDir();
    const db = await openPglite(dataDir);
    try {
      await expect(openPglite(dataDir)).rejects.toBeInstanceOf(DataDirLockedError);
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
    const again = await openPglite(dataDir);
    await again.close();
  }, 120_000);
});

import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, MASTER_KEY_REQUIRED_MESSAGE } from './core/config.js';
import { createSecretBox, generateMasterKey, parseMasterKey } from './core/secret-box.js';
import { openReference, checkMasterKey, resolveMasterKey } from './runtime.js';
import { testDeps, testSecrets } from './testing/fixtures.js';
import { seedPgliteDataDir } from './testing/pglite-template.js';
import { ensurePartnerCredential, hashSecret } from './credentials/service.js';
import { migrate } from './db/migrate.js';
import type { Db } from './db/db.js';
import { openTestDb, testTargets, type TestDb } from './testing/test-db.js';

describe('rate limit configuration (A26)', () => {
  it('defaults to 25 requests per second per credential in sandbox mode and 100 in production; both are configurable', () => {
    expect(loadConfig({})).toMatchObject({ rateLimit: 25, rateWindowSeconds: 1 });
    expect(loadConfig({ PAYGATE_MODE: 'production', PAYGATE_MASTER_KEY: 'ab'.repeat(32) })).toMatchObject({
      rateLimit: 100,
      rateWindowSeconds: 1,
    });
    expect(loadConfig({ PAYGATE_RATE_LIMIT: '7', PAYGATE_RATE_WINDOW_SECONDS: '60' })).toMatchObject({
      rateLimit: 7,
      rateWindowSeconds: 60,
    });
  });
});

describe('master key configuration', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'paygate-master-key-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('reads PAYGATE_MASTER_KEY, refuses a bad one, and requires one in production', () => {
    const key = generateMasterKey();
    expect(loadConfig({ PAYGATE_MASTER_KEY: key }).masterKey?.equals(Buffer.from(key, 'base64'))).toBe(true);
    expect(loadConfig({ PAYGATE_MODE: 'production', PAYGATE_MASTER_KEY: 'ab'.repeat(32) }).masterKey).toHaveLength(32);
    expect(loadConfig({}).masterKey).toBeUndefined();
    expect(() => loadConfig({ PAYGATE_MASTER_KEY: 'not-a-key' })).toThrow(/randomBytes\(32\)/);
    expect(() => loadConfig({ PAYGATE_MODE: 'production' })).toThrow(MASTER_KEY_REQUIRED_MESSAGE);
    expect(MASTER_KEY_REQUIRED_MESSAGE).toMatch(/randomBytes\(32\)\.toString\('base64'\)/);
  });

  it('production start-up fails without a key even when the config was built by hand', async () => {
    await expect(resolveMasterKey({ masterKey: undefined, sandbox: false, dataDir: dir })).rejects.toThrow(MASTER_KEY_REQUIRED_MESSAGE);
  });

  it('sandbox: creates <dataDir>/master.key once (0600), concurrently safe, then reads it', async () => {
    const dataDir = path.join(dir, 'sandbox');
    const config = { masterKey: undefined, sandbox: true, dataDir };
    const results = await Promise.all(Array.from({ length: 8 }, () => resolveMasterKey(config)));
    const file = path.join(dataDir, 'master.key');
    expect(new Set(results.map((r) => r.key.toString('hex'))).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results.every((r) => r.source === 'file' && r.file === file)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(parseMasterKey(await readFile(file, 'utf8')).equals(results[0]!.key)).toBe(true);
    const again = await resolveMasterKey(config);
    expect(again).toMatchObject({ source: 'file', created: false });
    expect(again.key.equals(results[0]!.key)).toBe(true);
    // no temporary files left behind
    expect(await readdir(dataDir)).toEqual(['master.key']);
    // PAYGATE_MASTER_KEY wins over the file; memory:// gets a per-process key
    const env = parseMasterKey(generateMasterKey());
    expect((await resolveMasterKey({ ...config, masterKey: env })).source).toBe('env');
    expect((await resolveMasterKey({ ...config, dataDir: 'memory://' })).source).toBe('memory');
  });

  it('sandbox: a corrupt key file is an error that does not print its content', async () => {
    const dataDir = path.join(dir, 'corrupt');
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, 'master.key'), 'short-and-wrong\n', { mode: 0o600 });
    const err = (await resolveMasterKey({ masterKey: undefined, sandbox: true, dataDir }).then(
      () => new Error('expected a failure'),
      (e: unknown) => e,
    )) as Error;
    expect(err.message).toMatch(/does not hold a valid master key/);
    expect(err.message).not.toContain('short-and-wrong');
  });
});

describe.each(testTargets())('master key check at start-up on %s', (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(target);
  });
  afterAll(async () => t?.dispose());

  it('a database sealed with one master key refuses to start with another', async () => {
    const now = '2026-11-21T10:00:00.000000Z';
    await checkMasterKey(t.db, testSecrets, now);
    await checkMasterKey(t.db, testSecrets, now); // same key: fine, idempotent
    const other = createSecretBox(parseMasterKey(generateMasterKey()));
    await expect(checkMasterKey(t.db, other, now)).rejects.toThrow(/does not match the one this database was sealed with/);
  });

  it('a start after the first reads the schema version, the master key canary and the partner credential, and writes nothing (D172)', async () => {
    const now = '2026-11-21T10:00:00.000000Z';
    const partner = { clientId: 'pk_test_start_reads', clientSecret: 'ps_test_start_reads_secret_0123' };
    await checkMasterKey(t.db, testSecrets, now);
    await ensurePartnerCredential(testDeps(t.db), partner);
    const { db, log } = recording(t.db);
    expect(await migrate(db)).toEqual([]);
    await checkMasterKey(db, testSecrets, now);
    await ensurePartnerCredential(testDeps(db), partner);
    expect(log).toHaveLength(3);
    expect(log.filter((sql) => !/^\s*SELECT /.test(sql))).toEqual([]);
    // a changed secret is still stored (and the old one no longer matches)
    log.length = 0;
    await ensurePartnerCredential(testDeps(db), { ...partner, clientSecret: 'ps_test_start_reads_rotated_0123' });
    expect(log).toContain('BEGIN');
    const stored = await t.db.query<{ secret_hash: Uint8Array }>('SELECT secret_hash FROM credentials WHERE client_id = $1', [
      partner.clientId,
    ]);
    expect(Buffer.from(stored.rows[0]!.secret_hash)).toEqual(hashSecret('ps_test_start_reads_rotated_0123'));
    // ...and so is a revoked one made active again
    await t.db.query('UPDATE credentials SET revoked_at = $2 WHERE client_id = $1', [partner.clientId, now]);
    await ensurePartnerCredential(testDeps(t.db), { ...partner, clientSecret: 'ps_test_start_reads_rotated_0123' });
    const revoked = await t.db.query<{ revoked_at: string | null }>('SELECT revoked_at FROM credentials WHERE client_id = $1', [
      partner.clientId,
    ]);
    expect(revoked.rows[0]?.revoked_at).toBeNull();
  });
});

/** A Db that records each statement it runs, and BEGIN for each transaction. */
function recording(db: Db): { db: Db; log: string[] } {
  const log: string[] = [];
  const wrap = (target: Db): Db =>
    new Proxy(target, {
      get(obj, key) {
        if (key === 'query' || key === 'exec')
          return (sql: string, ...rest: unknown[]) => {
            log.push(sql);
            return (obj[key] as (sql: string, ...rest: unknown[]) => unknown)(sql, ...rest);
          };
        if (key === 'transaction')
          return <T>(fn: (tx: Db) => Promise<T>) => {
            log.push('BEGIN');
            return obj.transaction((tx) => fn(wrap(tx)));
          };
        const value: unknown = Reflect.get(obj, key, obj);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(obj) : value;
      },
    });
  return { db: wrap(db), log };
}

describe('openReference and the master key', () => {
  it('keeps using the sandbox key file across restarts of a PGlite data dir, and fails with another key', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'paygate-runtime-key-'));
    try {
      await seedPgliteDataDir(dataDir); // the subject is the key file, not initdb (startup.test.ts's is)
      const config = { ...loadConfig({ PAYGATE_DATA_DIR: dataDir }), workerIntervalMs: 1000 };
      const first = await openReference(config);
      await first.close();
      const second = await openReference(config);
      await second.close();
      await expect(openReference({ ...config, masterKey: parseMasterKey(generateMasterKey()) })).rejects.toThrow(/does not match/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

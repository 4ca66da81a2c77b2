/**
 * Honest storage failures (D361 running out of a resource classified) on a disk that is really full: PostgreSQL's `orders` and `storage_probe` tables are
 * moved to a tablespace on a 4 MiB tmpfs, which a filler table then fills, so the server itself fails to extend a
 * file with ENOSPC (SQLSTATE 53100, "could not extend file ...: No space left on device"). Order creations get the
 * declared 503 with Retry-After (never 500), reads work, /readyz is not ready; once the filler is dropped (space
 * returns), /readyz is ready again, a refused keyed POST retried with its key is done once, and every acknowledged
 * order reads back.
 *
 * The same on PGlite: the gateway's data directory on a 128 MiB tmpfs, the rest of it taken by a ballast file; PGlite's
 * own file writes get ENOSPC and it reports 53100 the same way. After the ballast is removed, the gateway is stopped
 * and its data directory opened again: every acknowledged order is there, once.
 *
 * Mounting a tmpfs needs root on the machine PostgreSQL runs on (a loopback PAYGATE_TEST_DATABASE_URL): where that is
 * not possible the file says so loudly and registers nothing (test/storage/full-disk.test.ts simulates the same error
 * with a trigger on PGlite and PostgreSQL everywhere).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chownSync, closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRuntime } from '../../packages/contract-tests/src/support/gateway.js';
import { openPglite } from '../../packages/reference/src/db/pglite.js';
import { dataOf, openPaygate, orderBody, type MerchantAccount, type Paygate } from '../../packages/contract-tests/src/support/paygate.js';
import { adminDatabaseUrl, reportNotRun } from './helpers/processes.js';

const adminUrl = adminDatabaseUrl();

/** A tmpfs of `size` mounted for PostgreSQL's user, or why there cannot be one here. */
function mountTinyDisk(size: string): { dir: string; unmount: () => void } | string {
  if (!adminUrl) return 'PAYGATE_TEST_DATABASE_URL is not set';
  const host = new URL(adminUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) return `PostgreSQL is not on this machine (${host})`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = path.join(tmpdir(), `paygate-tiny-disk-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(dir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs (${(err as Error).message.split('\n')[0]})`;
  }
  const unmount = () => {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    mkdirSync(path.join(dir, 'ts'));
    chownSync(dir, uid, gid);
    chownSync(path.join(dir, 'ts'), uid, gid);
  } catch (err) {
    unmount();
    return `no postgres user to give the tmpfs to (${(err as Error).message.split('\n')[0]})`;
  }
  return { dir, unmount };
}

// whether this machine can: tried (and undone) when the file loads; the disk of the test is mounted in beforeAll, so a
// run that filters the test out mounts nothing
const probe = mountTinyDisk('1m');
if (typeof probe !== 'string') probe.unmount();
if (typeof probe === 'string') {
  reportNotRun(`test/faults/full-disk-tmpfs.test.ts (a real full disk under PostgreSQL): ${probe}`);
} else {
  describe('a really full disk under PostgreSQL (a tablespace on a 4 MiB tmpfs)', () => {
    const tablespace = `paygate_tiny_${randomBytes(4).toString('hex')}`;
    let disk: { dir: string; unmount: () => void };
    let gw: Paygate | undefined;
    let m: MerchantAccount;

    beforeAll(async () => {
      const mounted = mountTinyDisk('4m');
      if (typeof mounted === 'string') throw new Error(`the tmpfs could be mounted a moment ago, not now: ${mounted}`);
      disk = mounted;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`CREATE TABLESPACE ${tablespace} LOCATION '${path.join(disk.dir, 'ts')}'`);
      } finally {
        await admin.end();
      }
      gw = await openPaygate('postgres');
      m = await gw.onboard();
    }, 120_000);

    afterAll(async () => {
      await gw?.close(); // drops the test database, and with it everything in the tablespace
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP TABLESPACE IF EXISTS ${tablespace}`).catch(() => undefined);
      await admin.end();
      disk?.unmount();
    });

    it('answers 503 with Retry-After while the disk is full, is not ready, and loses nothing once space returns', async () => {
      const pgw = gw as Paygate;
      const db = new pg.Client({ connectionString: requireRuntime(pgw.gw).config.databaseUrl as string });
      await db.connect();
      try {
        const acknowledged: string[] = [];
        const first = orderBody();
        const created = await pgw.createOrder(m.credentials, first);
        expect(created.status, created.text).toBe(200);
        acknowledged.push(first['reference_id'] as string);

        await db.query(`ALTER TABLE orders SET TABLESPACE ${tablespace}`);
        await db.query(`ALTER TABLE storage_probe SET TABLESPACE ${tablespace}`);
        await db.query(`CREATE TABLE disk_filler (b text) TABLESPACE ${tablespace}`);
        // ~1 KB rows of random hex (not compressed: below the TOAST threshold) until the server cannot extend the file
        let fillError: unknown;
        for (let i = 0; i < 100 && fillError === undefined; i++) {
          await db
            .query(
              `INSERT INTO disk_filler SELECT (SELECT string_agg(md5(random()::text || g::text || s::text), '') FROM generate_series(1, 32) s)
               FROM generate_series(1, 500) g`,
            )
            .catch((err: unknown) => (fillError = err));
        }
        expect((fillError as { code?: string } | undefined)?.code, String(fillError)).toBe('53100');

        // orders until the last page of `orders` is full: then every creation is refused, honestly
        const key = randomUUID();
        const keyed = orderBody();
        let refused: Awaited<ReturnType<Paygate['call']>> | undefined;
        for (let i = 0; i < 200 && refused === undefined; i++) {
          const body = orderBody();
          const res = await pgw.call('POST', '/pg/orders/', m.credentials, { json: body, allowServerError: true });
          if (res.status === 200) acknowledged.push(body['reference_id'] as string);
          else refused = res;
        }
        expect(refused, 'a creation was refused once the disk was full').toBeDefined();
        const again = await pgw.call('POST', '/pg/orders/', m.credentials, {
          json: keyed,
          headers: { 'Idempotency-Key': key },
          allowServerError: true,
        });
        for (const res of [refused!, again]) {
          expect(res.status, res.text).toBe(503);
          expect(res.error?.code).toBe('ERR_UNAVAILABLE_503');
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        }
        const read = await pgw.call('GET', `/pg/orders/${dataOf<{ order_id: string }>(created).order_id}`, m.credentials);
        expect(read.status, read.text).toBe(200);
        const notReady = await fetch(`${pgw.gw.baseUrl}/readyz`);
        expect(notReady.status).toBe(503);
        expect(await notReady.json()).toMatchObject({ checks: { database: 'ok', storage: 'exhausted' }, failing: ['storage'] });

        // space returns: a dropped table's file is truncated when the drop commits
        await db.query('DROP TABLE disk_filler');
        const ready = await fetch(`${pgw.gw.baseUrl}/readyz`);
        expect(ready.status).toBe(200);
        const retried = await pgw.call('POST', '/pg/orders/', m.credentials, { json: keyed, headers: { 'Idempotency-Key': key } });
        expect(retried.status, retried.text).toBe(200);
        acknowledged.push(keyed['reference_id'] as string);
        const { rows } = await db.query<{ reference_id: string; n: number }>(
          'SELECT reference_id, count(*)::int AS n FROM orders WHERE reference_id = ANY($1::text[]) GROUP BY reference_id',
          [acknowledged],
        );
        expect(rows).toHaveLength(acknowledged.length);
        expect(rows.filter((r) => r.n !== 1)).toEqual([]);
        console.info(`full-disk-tmpfs: ${acknowledged.length} orders acknowledged around a full disk, all stored once`);
      } finally {
        await db.end();
      }
    }, 120_000);
  });

  describe('a really full disk under PGlite (its data directory on a 128 MiB tmpfs)', () => {
    let disk: { dir: string; unmount: () => void };
    let gw: Paygate | undefined;

    beforeAll(async () => {
      const mounted = mountTinyDisk('128m');
      if (typeof mounted === 'string') throw new Error(`the tmpfs could be mounted a moment ago, not now: ${mounted}`);
      disk = mounted;
    });
    afterAll(async () => {
      await gw?.close();
      disk?.unmount();
    });

    it('answers 503 while the disk is full, is not ready, and keeps every acknowledged order once space returns', async () => {
      const dataDir = path.join(disk.dir, 'data');
      gw = await openPaygate('pglite', { env: { PAYGATE_DATA_DIR: dataDir } });
      const pgw = gw;
      const m = await pgw.onboard();
      const acknowledged: string[] = [];
      const first = orderBody();
      expect((await pgw.createOrder(m.credentials, first)).status).toBe(200);
      acknowledged.push(first['reference_id'] as string);

      // the rest of the disk taken by another file, as a log or a backup would
      const ballast = path.join(disk.dir, 'ballast');
      const fd = openSync(ballast, 'w');
      try {
        const mb = Buffer.alloc(1024 * 1024, 1);
        for (;;) writeSync(fd, mb);
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
      } finally {
        closeSync(fd);
      }

      let refused: Awaited<ReturnType<Paygate['call']>> | undefined;
      for (let i = 0; i < 2000 && refused === undefined; i++) {
        const body = orderBody();
        const res = await pgw.call('POST', '/pg/orders/', m.credentials, { json: body, allowServerError: true });
        if (res.status === 200) acknowledged.push(body['reference_id'] as string);
        else refused = res;
      }
      expect(refused, 'a creation was refused once the disk was full').toBeDefined();
      const key = randomUUID();
      const keyed = orderBody();
      const again = await pgw.call('POST', '/pg/orders/', m.credentials, {
        json: keyed,
        headers: { 'Idempotency-Key': key },
        allowServerError: true,
      });
      for (const res of [refused!, again]) {
        expect(res.status, res.text).toBe(503);
        expect(res.error?.code).toBe('ERR_UNAVAILABLE_503');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const notReady = await fetch(`${pgw.gw.baseUrl}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ failing: ['storage'] });

      rmSync(ballast); // space returns
      const ready = await fetch(`${pgw.gw.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      const retried = await pgw.call('POST', '/pg/orders/', m.credentials, { json: keyed, headers: { 'Idempotency-Key': key } });
      expect(retried.status, retried.text).toBe(200);
      acknowledged.push(keyed['reference_id'] as string);

      // every acknowledged order is on disk: the gateway stopped, the data directory opened again
      await pgw.close();
      gw = undefined;
      const reopened = await openPglite(dataDir);
      try {
        const { rows } = await reopened.query<{ reference_id: string; n: number }>(
          'SELECT reference_id, count(*)::int AS n FROM orders WHERE reference_id = ANY($1::text[]) GROUP BY reference_id',
          [acknowledged],
        );
        expect(rows).toHaveLength(acknowledged.length);
        expect(rows.filter((r) => r.n !== 1)).toEqual([]);
      } finally {
        await reopened.close();
      }
      console.info(
        `full-disk-tmpfs (PGlite): ${acknowledged.length} orders acknowledged around a full disk, all stored once after a restart`,
      );
    }, 180_000);
  });
}

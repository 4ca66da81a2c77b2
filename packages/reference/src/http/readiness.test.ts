import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorageHealth } from '../db/storage-health.js';
import { createReadiness, type Readiness } from './readiness.js';

const REDIS_URL = process.env['PAYGATE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const TIMEOUT_MS = 150;

/** A database whose `SELECT 1` answers, fails, or never answers; counts the queries it got. */
function fakeDb(behaviour: 'ok' | 'fail' | 'hang') {
  const db = {
    queries: 0,
    async query() {
      db.queries++;
      if (behaviour === 'fail') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      if (behaviour === 'hang') await new Promise(() => undefined);
      return { rows: [] };
    },
  };
  return db;
}

/** A TCP server that accepts and never answers: a hung Redis (like SIGSTOP), or a port where nothing listens. */
let silent: Server;
let silentPort: number;
const sockets: Socket[] = [];
let refusedPort: number;

beforeAll(async () => {
  silent = createServer((s) => void sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as { port: number }).port;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  refusedPort = (closed.address() as { port: number }).port;
  await new Promise<void>((r) => closed.close(() => r()));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

describe('readiness (GET /readyz, D102)', () => {
  const opened: Readiness[] = [];
  afterAll(async () => Promise.all(opened.map((r) => r.close())));
  const readiness = (db: ReturnType<typeof fakeDb>, redisUrl?: string) => {
    const r = createReadiness({ db, redisUrl, timeoutMs: TIMEOUT_MS });
    opened.push(r);
    return r;
  };

  it.each<[string, 'ok' | 'fail' | 'hang', () => string | undefined, object]>([
    [
      'database answers, no Redis configured',
      'ok',
      () => undefined,
      { ready: true, status: 'ready', checks: { database: 'ok' }, failing: [] },
    ],
    ['database and Redis answer', 'ok', () => REDIS_URL, { ready: true, checks: { database: 'ok', redis: 'ok' }, failing: [] }],
    [
      'database refuses',
      'fail',
      () => undefined,
      { ready: false, status: 'unavailable', checks: { database: 'unreachable' }, failing: ['database'] },
    ],
    ['database hangs', 'hang', () => undefined, { ready: false, checks: { database: 'timeout' }, failing: ['database'] }],
    [
      'Redis refuses connections',
      'ok',
      () => `redis://127.0.0.1:${refusedPort}`,
      { ready: false, checks: { database: 'ok' }, failing: ['redis'] },
    ],
    ['Redis hangs', 'ok', () => `redis://127.0.0.1:${silentPort}`, { ready: false, checks: { database: 'ok' }, failing: ['redis'] }],
    ['both down', 'hang', () => `redis://127.0.0.1:${silentPort}`, { ready: false, failing: ['database', 'redis'] }],
  ])('%s', async (_name, db, redisUrl, expected) => {
    const r = readiness(fakeDb(db), redisUrl());
    const started = performance.now();
    const report = await r.check();
    const took = performance.now() - started;
    expect(report).toMatchObject(expected);
    // a failing probe is bounded: both checks run in parallel, each within the timeout
    if (!report.ready) expect(took).toBeLessThan(TIMEOUT_MS + 250);
  });

  it('never piles up queries behind a hung database: one query at a time, each probe still bounded', async () => {
    const db = fakeDb('hang');
    const r = readiness(db);
    for (let i = 0; i < 3; i++) expect((await r.check()).checks.database).toBe('timeout');
    expect(db.queries).toBe(1);
  });

  it('answers draining (not ready) once the process stops, without checking anything', async () => {
    const db = fakeDb('ok');
    const r = readiness(db);
    expect((await r.check()).ready).toBe(true);
    r.markDraining();
    expect(await r.check()).toEqual({ ready: false, status: 'draining', checks: {}, failing: [] });
    expect(db.queries).toBe(1);
  });
});

describe('readiness while writes fail for want of space (honest storage failures, D361)', () => {
  /** A database whose reads answer and whose writes fail with PostgreSQL's disk-full error while `full` is set. */
  function diskDb() {
    const db = {
      full: true,
      writes: 0,
      async query(sql: string) {
        if (/^\s*(INSERT|UPDATE|DELETE)/i.test(sql)) {
          db.writes++;
          if (db.full) throw Object.assign(new Error('could not extend file "base/5/16400": No space left on device'), { code: '53100' });
        }
        return { rows: [] };
      },
    };
    return db;
  }

  it('is ready with no write probe until a write fails; then not ready until a probe write succeeds', async () => {
    const db = diskDb();
    const storage = createStorageHealth();
    const r = createReadiness({ db, storage, timeoutMs: TIMEOUT_MS });
    expect(await r.check()).toEqual({ ready: true, status: 'ready', checks: { database: 'ok' }, failing: [] });
    expect(db.writes).toBe(0); // a healthy process writes nothing to be probed

    // a request's write hit the full disk (the runtime's watchStorage shows every failed statement)
    await db.query('INSERT INTO orders VALUES (1)').catch((err: unknown) => storage.observe(err));
    expect(storage.failingSince).toBeDefined();
    expect(await r.check()).toEqual({
      ready: false,
      status: 'unavailable',
      checks: { database: 'ok', storage: 'exhausted' },
      failing: ['storage'],
    });
    expect(await r.check()).toMatchObject({ ready: false, failing: ['storage'] });

    db.full = false; // space returns
    expect(await r.check()).toEqual({ ready: true, status: 'ready', checks: { database: 'ok', storage: 'ok' }, failing: [] });
    expect(storage.failingSince).toBeUndefined();
    const writes = db.writes;
    expect(await r.check()).toEqual({ ready: true, status: 'ready', checks: { database: 'ok' }, failing: [] });
    expect(db.writes).toBe(writes); // back to SELECT 1 only
    await r.close();
  });

  it('an error that is not a resource error does not take the process out of rotation', () => {
    const storage = createStorageHealth();
    storage.observe(Object.assign(new Error('duplicate key'), { code: '23505' }));
    storage.observe(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    expect(storage.failingSince).toBeUndefined();
  });
});

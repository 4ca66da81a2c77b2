import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from './migrate.js';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { parseTimestamptz } from './types.js';
import { isUnavailableError } from './unavailable.js';
import pg from 'pg';

describe('parseTimestamptz', () => {
  it('pads fractions to microseconds and ends in Z', () => {
    expect(parseTimestamptz('2026-11-21 10:15:30.1234+00')).toBe('2026-11-21T10:15:30.123400Z');
    expect(parseTimestamptz('2026-11-21 10:15:30+00')).toBe('2026-11-21T10:15:30.000000Z');
  });
  it('converts other offsets exactly', () => {
    expect(parseTimestamptz('2026-11-21 15:45:30.123456+05:30')).toBe('2026-11-21T10:15:30.123456Z');
    expect(parseTimestamptz('2026-11-21 05:15:30.5-05')).toBe('2026-11-21T10:15:30.500000Z');
  });
});

describe.each(testTargets())('database adapter on %s', (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(target);
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it('returns timestamptz as ISO strings with microseconds and int8 as numbers', async () => {
    const { rows } = await t.db.query<{ ts: string; n: number; d: string }>(
      `SELECT '2026-11-21T10:15:30.123456Z'::timestamptz AS ts, 9007199254740991::bigint AS n, '2026-01-02'::date AS d`,
    );
    expect(rows[0]).toEqual({ ts: '2026-11-21T10:15:30.123456Z', n: 9007199254740991, d: '2026-01-02' });
  });

  it('refuses int8 values beyond the safe integer range', async () => {
    await expect(t.db.query(`SELECT 9007199254740993::bigint AS n`)).rejects.toThrow(/safe integer/);
  });

  it('commits and rolls back transactions', async () => {
    await t.db.exec('CREATE TABLE tx_probe (v int)');
    await t.db.transaction(async (tx) => {
      await tx.query('INSERT INTO tx_probe VALUES ($1)', [1]);
    });
    await expect(
      t.db.transaction(async (tx) => {
        await tx.query('INSERT INTO tx_probe VALUES ($1)', [2]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await t.db.query<{ v: number }>('SELECT v FROM tx_probe ORDER BY v');
    expect(rows).toEqual([{ v: 1 }]);
  });

  it('migrations are recorded and re-running applies nothing', async () => {
    expect(await migrate(t.db)).toEqual([]);
    const { rows } = await t.db.query<{ version: string }>('SELECT version FROM schema_migrations');
    expect(rows.map((r) => r.version)).toContain('001_initial');
  });

  it('refuses a database migrated by another build (unknown migrations), saying how to start over', async () => {
    await t.db.query(`INSERT INTO schema_migrations (version) VALUES ('002_from_a_prerelease_build')`);
    try {
      await expect(migrate(t.db)).rejects.toThrow(/unknown migrations: 002_from_a_prerelease_build.*delete the data dir/);
    } finally {
      await t.db.query(`DELETE FROM schema_migrations WHERE version = '002_from_a_prerelease_build'`);
    }
  });

  it("005/006 carry an existing database over: sessions keep key version 1, the old global sandbox clock becomes each merchant's", async () => {
    const fresh = await openTestDb(target, { migrate: false });
    try {
      const all = await loadMigrations();
      await migrate(
        fresh.db,
        all.filter((m) => m.version < '005'),
      );
      const now = '2026-11-21T10:00:00.000000Z';
      await fresh.db.query(`INSERT INTO partners (id, name, created_at) VALUES ('p', 'P', $1)`, [now]);
      for (const id of ['1000000001', '1000000002']) {
        await fresh.db.query(
          `INSERT INTO merchants (id, partner_id, company_details, settlement_details, settlement_currency, encryption_key_sealed, created_at, updated_at)
           VALUES ($1, 'p', '{}', '{}', 'INR', 'sealed', $2, $2)`,
          [id, now],
        );
      }
      await fresh.db.query(
        `INSERT INTO orders (id, merchant_id, reference_id, amount_minor, currency, status, status_message, collection_mode, buyer, product, is_testing, expires_at, created_at, updated_at)
         VALUES ('OD1', '1000000001', 'r', 100, 'INR', 'payment_pending', 'x', 'hosted_payment', '{}', '{}', true, $1, $1, $1)`,
        [now],
      );
      await fresh.db.query(`INSERT INTO checkout_sessions (id, order_id, expires_at, created_at) VALUES ('session_x', 'OD1', $1, $1)`, [
        now,
      ]);
      await fresh.db.query('UPDATE sandbox_clock SET offset_seconds = 7200');
      expect((await migrate(fresh.db)).filter((v) => v >= '005')).toEqual(all.map((m) => m.version).filter((v) => v >= '005'));
      const clocks = await fresh.db.query<{ merchant_id: string; offset_seconds: number }>(
        'SELECT merchant_id, offset_seconds FROM merchant_clocks ORDER BY merchant_id',
      );
      expect(clocks.rows).toEqual([
        { merchant_id: '1000000001', offset_seconds: 7200 },
        { merchant_id: '1000000002', offset_seconds: 7200 },
      ]);
      const sessions = await fresh.db.query<{ encryption_key_version: number }>('SELECT encryption_key_version FROM checkout_sessions');
      expect(sessions.rows).toEqual([{ encryption_key_version: 1 }]);
      const merchants = await fresh.db.query<{ encryption_key_version: number; previous_encryption_key_sealed: string | null }>(
        'SELECT encryption_key_version, previous_encryption_key_sealed FROM merchants',
      );
      expect(merchants.rows.every((m) => m.encryption_key_version === 1 && m.previous_encryption_key_sealed === null)).toBe(true);
      await expect(fresh.db.query('SELECT 1 FROM sandbox_clock')).rejects.toThrow(/sandbox_clock/);
    } finally {
      await fresh.dispose();
    }
  });

  if (target === 'postgres')
    it('a backend terminated inside a transaction fails that transaction as unavailable, is dropped, and the process goes on (D91)', async () => {
      const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL']!;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        for (let round = 0; round < 3; round++) {
          const attempt = t.db.transaction(async (tx) => {
            const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
            await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
            // the next statement (or COMMIT) meets the dead connection; its 'error' event must not end the process
            await new Promise((resolve) => setTimeout(resolve, 50));
            await tx.query('SELECT 1');
          });
          const err = await attempt.then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(isUnavailableError(err), String(err)).toBe(true);
          // the broken client was destroyed: the pool serves the next transaction on a live connection
          expect(await t.db.transaction(async (tx) => (await tx.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one)).toBe(1);
        }
      } finally {
        await admin.end();
      }
    });

  if (target === 'postgres')
    it('two processes migrating a fresh database together apply each migration once', async () => {
      const fresh = await openTestDb(target, { migrate: false });
      try {
        const [a, b] = await Promise.all([fresh.openSecond(), fresh.openSecond()]);
        const results = await Promise.all([migrate(a), migrate(b)]);
        const all = (await loadMigrations()).map((m) => m.version);
        expect(all[0]).toBe('001_initial');
        expect(results.flat().sort()).toEqual(all); // every migration applied exactly once, by one of the two
        const { rows } = await fresh.db.query<{ n: number }>('SELECT count(*) AS n FROM schema_migrations');
        expect(rows[0]!.n).toBe(all.length);
      } finally {
        await fresh.dispose();
      }
    });
});

/**
 * The pg adapter directly against PostgreSQL and through a real PgBouncer in transaction mode (D350 transaction-pooler safe sessions; D351 lock waits bounded below the statement timeout; D353 tests through a real PgBouncer):
 * no session state across transactions (settings as SET LOCAL, unnamed statements), the lock timeout below the
 * statement timeout, a lock wait ended as "unavailable" (503) with the connection kept. Registered when
 * PAYGATE_TEST_DATABASE_URL is set; the PgBouncer half is skipped (with the reason) when pgbouncer is not installed,
 * and fails instead under PAYGATE_TEST_PGBOUNCER=1 (CI).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgBouncer, pgbouncerSkipReason, type PgBouncer } from '../testing/pgbouncer.js';
import { createThrowawayDatabase, PGBOUNCER_PORT_ENV, type ThrowawayDatabase } from '../testing/test-db.js';
import type { Db } from './db.js';
import { sqlState } from './db.js';
import { beginStatement, NotificationsUnavailableError, openPostgres, POSTGRES_TIMEOUTS } from './postgres.js';
import { isUnavailableError } from './unavailable.js';

const adminUrl = process.env['PAYGATE_TEST_DATABASE_URL'];
const skipBouncer = adminUrl ? pgbouncerSkipReason() : undefined;
if (skipBouncer) console.warn(`\n!!!!! PgBouncer tests SKIPPED: ${skipBouncer} !!!!!\n`);

describe('beginStatement (D350, D351)', () => {
  it('opens the transaction and sets every bound as SET LOCAL, the lock timeout below the statement timeout', () => {
    expect(beginStatement(15_000, 3_000)).toBe(
      "BEGIN; SET LOCAL TimeZone = 'UTC'; SET LOCAL idle_in_transaction_session_timeout = '60000'; SET LOCAL statement_timeout = '15000'; SET LOCAL lock_timeout = '3000'",
    );
    // a lock timeout is never above the statement timeout; 0 leaves either out
    expect(beginStatement(1_000, 3_000)).toContain("lock_timeout = '1000'");
    expect(beginStatement(0, 0)).not.toMatch(/statement_timeout|lock_timeout/);
    expect(POSTGRES_TIMEOUTS.lockMs).toBeLessThan(POSTGRES_TIMEOUTS.statementMs);
  });
});

type Route = 'direct' | 'PgBouncer (transaction mode)' | 'PgBouncer ignoring the startup options';
/** The two PgBouncer set-ups: stock (refuses `options`) and `ignore_startup_parameters = options` (drops them). */
const routes: Route[] = ['direct', 'PgBouncer (transaction mode)', 'PgBouncer ignoring the startup options'];

describe.runIf(adminUrl).each(routes)('pg adapter %s', (route) => {
  const skip = route !== 'direct' && skipBouncer !== undefined;
  let database: ThrowawayDatabase;
  let bouncer: PgBouncer | undefined;
  let url: string;
  const opened: Db[] = [];
  const open = async (options: Parameters<typeof openPostgres>[1] = {}) => {
    const db = await openPostgres(url, options);
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    if (skip) return;
    database = await createThrowawayDatabase(adminUrl!, 'paygate_pooler');
    url = database.directUrl;
    if (route !== 'direct') {
      bouncer = await startPgBouncer(
        adminUrl!,
        route === 'PgBouncer ignoring the startup options' ? { settings: { ignore_startup_parameters: 'options' } } : {},
      );
      url = bouncer.pooled(database.directUrl);
    }
    const setup = new pg.Client({ connectionString: database.directUrl });
    await setup.connect();
    await setup.query('CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)');
    await setup.query('INSERT INTO accounts SELECT g, 0 FROM generate_series(1, 10) AS g');
    await setup.end();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
    await bouncer?.stop();
    await database?.drop();
  });

  it.skipIf(skip)('every transaction runs with the settings (startup options directly, SET LOCAL behind the pooler)', async () => {
    const db = await open({ statementTimeoutMs: 9_000, lockTimeoutMs: 700 });
    const settings = await db.transaction(
      async (tx) =>
        (
          await tx.query<{ tz: string; st: string; lt: string }>(
            "SELECT current_setting('TimeZone') AS tz, current_setting('statement_timeout') AS st, current_setting('lock_timeout') AS lt",
          )
        ).rows[0],
    );
    expect(settings).toEqual({ tz: 'UTC', st: '9s', lt: '700ms' });
  });

  it.skipIf(skip)('two pools (two processes) share the server connections: parameterised statements, named only when direct', async () => {
    // Named statements broke exactly here: process B's "paygate_1 already exists", or a name unknown on the server
    // connection the pooler picked (D350 transaction-pooler safe sessions).
    const [a, b] = [await open({ max: 4 }), await open({ max: 4 })];
    const work = async (db: Db, i: number) => {
      const id = (i % 10) + 1;
      await db.transaction(async (tx) => {
        await tx.query('UPDATE accounts SET balance = balance + $2 WHERE id = $1', [id, 1]);
        await tx.query('SELECT balance FROM accounts WHERE id = $1', [id]);
      });
      return (await db.query<{ n: number }>('SELECT count(*) AS n FROM accounts WHERE id <= $1', [id])).rows[0]!.n;
    };
    const counts = await Promise.all(Array.from({ length: 200 }, (_, i) => work(i % 2 === 0 ? a : b, i)));
    expect(counts.every((n, i) => n === (i % 10) + 1)).toBe(true);
    const { rows } = await a.query<{ total: number }>('SELECT sum(balance)::int8 AS total FROM accounts');
    expect(rows[0]!.total).toBe(200);
    // behind the pooler none was prepared under a name on any server connection; directly the hot ones are (D86 named prepared statements on PostgreSQL)
    const prepared = await a.transaction(
      async (tx) => (await tx.query<{ n: number }>('SELECT count(*) AS n FROM pg_prepared_statements')).rows[0]!.n,
    );
    if (route === 'direct') expect(prepared).toBeGreaterThan(0);
    else expect(prepared).toBe(0);
  });

  it.skipIf(skip)(
    'a row locked by another connection ends the wait at the lock timeout: 55P03, unavailable (503), connection kept',
    async () => {
      const db = await open({ max: 1, lockTimeoutMs: 300 });
      const holder = new pg.Client({ connectionString: database.directUrl }); // direct: the lock is held as long as we like
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT * FROM accounts WHERE id = 1 FOR UPDATE');
        const started = performance.now();
        const err = await db
          .transaction((tx) => tx.query('UPDATE accounts SET balance = balance + 1 WHERE id = $1', [1]))
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        const waited = performance.now() - started;
        expect(sqlState(err)).toBe('55P03');
        expect(isUnavailableError(err)).toBe(true);
        // ended by the lock timeout, long before the statement timeout (no assertion on how fast beyond that)
        expect(waited).toBeLessThan(POSTGRES_TIMEOUTS.statementMs);
        // the one connection of the pool was rolled back and kept: the next transaction runs (another row)
        expect(
          await db.transaction(
            async (tx) => (await tx.query<{ id: number }>('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [2])).rows[0]!.id,
          ),
        ).toBe(2);
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
      }
    },
  );

  it.skipIf(route !== 'PgBouncer (transaction mode)' || skip)(
    'behind the pooler a statement outside a transaction is bounded on the client (no server-side timeout reaches it)',
    async () => {
      const db = await open({ max: 1, statementTimeoutMs: 100 });
      const started = performance.now();
      const err = await db.query('SELECT pg_sleep(30)').then(
        () => undefined,
        (e: unknown) => e,
      );
      // statement timeout + the client's grace (5 s), far below the 30 s the statement asked for
      expect(String(err)).toMatch(/Query read timeout/);
      expect(isUnavailableError(err)).toBe(true);
      expect(performance.now() - started).toBeLessThan(20_000);
      // the connection that hung was discarded: the next statement gets another
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
    },
    30_000,
  );

  it.skipIf(skip)(
    'LISTEN: on the direct URL when one is given (notifications sent through the pool arrive); behind the pooler without one, refused',
    async () => {
      const withDirect = await open({ listenConnectionString: database.directUrl });
      const payloads: string[] = [];
      let ready!: () => void;
      const isReady = new Promise<void>((resolve) => (ready = resolve));
      const stop = await withDirect.listen('paygate_pooler_test', {
        onNotify: (p) => payloads.push(p),
        onReady: () => ready(),
        onLost: () => undefined,
      });
      try {
        await isReady;
        await withDirect.transaction((tx) => tx.query("SELECT pg_notify('paygate_pooler_test', $1)", ['wake']));
        const end = Date.now() + 10_000;
        while (payloads.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
        expect(payloads).toEqual(['wake']);
      } finally {
        await stop();
      }
      const without = await open();
      const listening = without.listen('paygate_pooler_test', {
        onNotify: () => undefined,
        onReady: () => undefined,
        onLost: () => undefined,
      });
      if (route === 'direct') await (await listening)();
      else await expect(listening).rejects.toBeInstanceOf(NotificationsUnavailableError);
    },
  );
});

describe.runIf(adminUrl && process.env[PGBOUNCER_PORT_ENV])('a run through PgBouncer (npm run test:pooler, D353)', () => {
  it('hands out databases behind PgBouncer: their URL is its port, and it refuses the startup options PostgreSQL takes', async () => {
    const database = await createThrowawayDatabase(adminUrl!, 'paygate_pooler_run');
    try {
      expect(new URL(database.url).port).toBe(process.env[PGBOUNCER_PORT_ENV]);
      expect(database.directUrl).not.toBe(database.url);
      const client = new pg.Client({ connectionString: database.url, options: '-c TimeZone=UTC' });
      client.on('error', () => undefined);
      await expect(client.connect()).rejects.toThrow(/unsupported startup parameter/);
      await client.end().catch(() => undefined);
    } finally {
      await database.drop();
    }
  });
});

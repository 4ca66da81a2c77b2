import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlState } from './db.js';
import { PgliteReads } from './pglite-reads.js';

describe('PgliteReads: one pipelined round, named prepared statements (D86)', () => {
  let pg: PGlite;
  let reads: PgliteReads;

  beforeAll(async () => {
    pg = await PGlite.create();
    await pg.exec(`
      CREATE TABLE items (id text PRIMARY KEY, n int8, price numeric(12,2), ok boolean, doc jsonb, at timestamptz, note text);
      INSERT INTO items VALUES ('a', 9007199254740993, 10.50, true, '{"k":[1,2]}', '2026-11-25 07:00:00+00', NULL),
                               ('b', 2, 0.01, false, '[]', '2026-01-01 00:00:00+00', 'x');`);
    reads = new PgliteReads(pg);
  });
  afterAll(async () => {
    await pg.close();
  });

  it.each([
    ['a row of every column type', 'SELECT * FROM items WHERE id = $1', ['a']],
    ['several parameters, a number among them', 'SELECT id, note FROM items WHERE id = $1 OR n = $2 ORDER BY id', ['a', 2]],
    ['no row', 'SELECT id FROM items WHERE id = $1', ['none']],
    ['a NULL parameter', 'SELECT coalesce($1::text, $2) AS v', [null, 'fallback']],
  ])('returns what PGlite.query returns: %s', async (_case, sql, params) => {
    const expected = await pg.query(sql, params);
    const first = await reads.query(sql, params);
    const again = await reads.query(sql, params);
    expect(first.rows).toEqual(expected.rows);
    expect(first.fields).toEqual(expected.fields);
    expect(again.rows).toEqual(expected.rows);
  });

  it('prepares each statement once, by name', async () => {
    const sql = "SELECT id FROM items WHERE note = $1 AND id <> 'zz'";
    await reads.query(sql, ['x']);
    await reads.query(sql, ['y']);
    const { rows } = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [sql]);
    expect(rows[0]!.n).toBe(1);
  });

  it('rejects with the database error, and the statement works afterwards', async () => {
    const sql = 'SELECT id FROM items WHERE n = $1';
    const failure = await reads.query(sql, ['not a number']).catch((err: unknown) => err);
    expect(sqlState(failure)).toBe('22P02');
    expect((await reads.query(sql, [2])).rows).toEqual([{ id: 'b' }]);
  });

  it('re-prepares a statement whose table changed shape', async () => {
    await pg.exec(`CREATE TABLE shapes (id text PRIMARY KEY); INSERT INTO shapes VALUES ('s');`);
    const sql = 'SELECT * FROM shapes WHERE id = $1';
    expect((await reads.query(sql, ['s'])).rows).toEqual([{ id: 's' }]);
    await pg.exec('ALTER TABLE shapes ADD COLUMN size int DEFAULT 3');
    expect((await reads.query(sql, ['s'])).rows).toEqual([{ id: 's', size: 3 }]);
    expect((await reads.query(sql, ['s'])).rows).toEqual([{ id: 's', size: 3 }]);
  });

  it('waits for an open transaction instead of reading inside it', async () => {
    let release!: () => void;
    let inserted!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started = new Promise<void>((resolve) => (inserted = resolve));
    // the transaction inserts, then rolls back: a read that ran inside it would have seen the row
    const tx = pg
      .transaction(async (t) => {
        await t.query("INSERT INTO items (id) VALUES ('tx')");
        inserted();
        await held;
        throw new Error('roll back');
      })
      .catch((err: unknown) => err);
    await started;
    const read = reads.query('SELECT id FROM items WHERE id = $1', ['tx']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect(await tx).toBeInstanceOf(Error);
    expect((await read).rows).toEqual([]);
  });
});

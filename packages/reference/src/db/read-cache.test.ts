import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/test-db.js';
import { cacheableRead, cacheableReadId, ReadCache } from './read-cache.js';

describe('ReadCache (D167)', () => {
  it('answers a read from memory until invalidated', async () => {
    const cache = new ReadCache();
    let loads = 0;
    const load = async () => [{ n: ++loads }];
    expect(await cache.read(0, ['a'], load)).toEqual([{ n: 1 }]);
    expect(await cache.read(0, ['a'], load)).toEqual([{ n: 1 }]);
    expect(await cache.read(0, ['b'], load)).toEqual([{ n: 2 }]);
    expect(await cache.read(1, ['a'], load)).toEqual([{ n: 3 }]);
    cache.invalidate();
    expect(cache.size).toBe(0);
    expect(await cache.read(0, ['a'], load)).toEqual([{ n: 4 }]);
  });

  it.each([
    ['null and the empty string', [null], ['']],
    ['a number and its text', [1], ['1']],
    ['two parameters and one holding both', ['a', 'b'], ['a,b']],
  ])('keeps parameters apart: %s', async (_case, first, second) => {
    const cache = new ReadCache();
    let loads = 0;
    const load = async () => [{ n: ++loads }];
    await cache.read(0, first as (string | number | null)[], load);
    expect(await cache.read(0, second as (string | number | null)[], load)).toEqual([{ n: 2 }]);
  });

  it('does not keep a result read before an invalidation that came while it was in flight', async () => {
    const cache = new ReadCache();
    let release!: () => void;
    const slow = cache.read(0, ['a'], () => new Promise<{ v: string }[]>((resolve) => (release = () => resolve([{ v: 'before' }]))));
    cache.invalidate(); // a write issued meanwhile
    release();
    expect(await slow).toEqual([{ v: 'before' }]);
    expect(await cache.read(0, ['a'], async () => [{ v: 'after' }])).toEqual([{ v: 'after' }]);
  });

  it('freezes what it keeps, nested values included', async () => {
    const cache = new ReadCache();
    const rows = await cache.read(0, ['a'], async () => [{ buyer: { name: 'x' }, list: [{ k: 1 }] }]);
    expect(() => {
      (rows[0]!.buyer as { name: string }).name = 'y';
    }).toThrow(TypeError);
    expect(Object.isFrozen(rows[0]!.list[0])).toBe(true);
  });

  it('keeps a row with a bytea value (a typed array, which cannot be frozen) and answers it again', async () => {
    const cache = new ReadCache();
    const load = async () => [{ blob: new Uint8Array([1, 2, 3]), at: new Date(0) }];
    const rows = await cache.read(0, ['b'], load);
    expect(Object.isFrozen(rows[0])).toBe(true);
    expect(await cache.read(0, ['b'], async () => [])).toBe(rows);
  });

  it('keeps at most maxEntries results, dropping the oldest', async () => {
    const cache = new ReadCache(2);
    for (const p of ['a', 'b', 'c']) await cache.read(0, [p], async () => [{ p }]);
    expect(cache.size).toBe(2);
    let loaded = false;
    await cache.read(0, ['a'], async () => {
      loaded = true;
      return [{ p: 'a' }];
    });
    expect(loaded).toBe(true);
  });

  it('knows only the statements registered as cacheable', () => {
    const sql = cacheableRead('SELECT $1::text AS registered_probe');
    expect(cacheableReadId(sql)).toBeTypeOf('number');
    expect(cacheableReadId(cacheableRead(sql))).toBe(cacheableReadId(sql));
    expect(cacheableReadId('SELECT $1::text AS other_probe')).toBeUndefined();
  });
});

describe('PGlite adapter: cacheable reads (D167)', () => {
  let t: TestDb;
  // random(): a new value per execution, so an answer from memory is visible (a real cacheable read has none)
  const READ = cacheableRead('SELECT v, random() AS r FROM cache_probe WHERE id = $1');
  type Row = { v: string; r: number };
  const read = async () => (await t.db.query<Row>(READ, ['a'])).rows[0]!;

  beforeAll(async () => {
    t = await openTestDb('pglite');
    await t.db.exec(`CREATE TABLE cache_probe (id text PRIMARY KEY, v text); INSERT INTO cache_probe VALUES ('a', 'one')`);
  });
  afterAll(async () => {
    await t?.dispose();
  });

  it.each([
    ['an UPDATE through query', (v: string) => t.db.query(`UPDATE cache_probe SET v = $1 WHERE id = 'a'`, [v])],
    [
      'a statement with a non-plain parameter',
      (v: string) => t.db.query(`UPDATE cache_probe SET v = $1 WHERE id = 'a' AND $2::boolean`, [v, true]),
    ],
    ['a script through exec', (v: string) => t.db.exec(`UPDATE cache_probe SET v = '${v}' WHERE id = 'a'`)],
    [
      'a transaction',
      (v: string) => t.db.transaction(async (tx) => void (await tx.query(`UPDATE cache_probe SET v = $1 WHERE id = 'a'`, [v]))),
    ],
    ['a read that is not registered', async (v: string) => void (await t.db.query(`SELECT v FROM cache_probe WHERE v = $1`, [v]))],
  ])('answers from memory until %s runs, then reads again', async (_case, change) => {
    const first = await read();
    expect(await read()).toEqual(first);
    const value = `v${Math.random()}`;
    await change(value);
    const after = await read();
    expect(after.r).not.toBe(first.r);
    if (!_case.includes('not registered')) expect(after.v).toBe(value);
  });

  it('a read issued while a transaction is open waits for it and sees its commit', async () => {
    await read();
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const tx = t.db.transaction(async (h) => {
      await h.query(`UPDATE cache_probe SET v = $1 WHERE id = 'a'`, ['in-tx']);
      inside();
      await new Promise<void>((resolve) => (finish = resolve));
    });
    await opened;
    const during = read();
    finish();
    await tx;
    expect((await during).v).toBe('in-tx');
    expect((await read()).v).toBe('in-tx');
  });
});

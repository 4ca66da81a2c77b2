import { describe, expect, it } from 'vitest';
import { BATCH_INDEX_COLUMN, batchableRead, batchedFormOf } from './read-batch.js';
import { MAX_BATCHED_READS, ReadBatcher } from './postgres.js';

const ONE = batchableRead(1, ([id]) => `SELECT x FROM t WHERE id = ${id}`);
const TWO = batchableRead(2, ([id, owner]) => `SELECT x FROM t WHERE id = ${id} AND owner = ${owner}`);

/** A fake database: records each statement, answers one row per read of a batch (or per single read). */
function recording(fail?: (sql: string, params: readonly unknown[]) => Error | undefined) {
  const sent: { sql: string; params: readonly unknown[] }[] = [];
  const run = async (sql: string, params: readonly unknown[]): Promise<unknown[]> => {
    sent.push({ sql, params });
    await new Promise((resolve) => setTimeout(resolve, 1));
    const error = fail?.(sql, params);
    if (error) throw error;
    if (!sql.includes(BATCH_INDEX_COLUMN)) return [{ x: `${params.join('/')}`, nested: { a: 1 } }];
    const first = params[0] as string[];
    return first.map((_, i) => ({ [BATCH_INDEX_COLUMN]: i + 1, x: (params as string[][]).map((p) => p[i]).join('/'), nested: { a: 1 } }));
  };
  return { sent, batcher: new ReadBatcher(run) };
}

describe('batchable reads (D178)', () => {
  it('registers the batched form of a read built from its template', () => {
    expect(TWO).toBe('SELECT x FROM t WHERE id = $1 AND owner = $2');
    expect(batchedFormOf(TWO)).toEqual({
      paramCount: 2,
      sql:
        `SELECT k.${BATCH_INDEX_COLUMN}, r.* FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(p1, p2, ${BATCH_INDEX_COLUMN}) ` +
        'CROSS JOIN LATERAL (SELECT x FROM t WHERE id = k.p1 AND owner = k.p2) r',
    });
    expect(batchedFormOf('SELECT x FROM t WHERE id = $1')).toBe(batchedFormOf(ONE));
    expect(batchedFormOf('SELECT 1')).toBeUndefined();
  });

  it('sends the reads of one turn as one statement, one array per parameter, and gives each read its rows', async () => {
    const { sent, batcher } = recording();
    const form = batchedFormOf(TWO)!;
    const answers = await Promise.all([
      batcher.read(TWO, form, ['a', 'm1']),
      batcher.read(TWO, form, ['b', 'm1']),
      batcher.read(TWO, form, ['a', 'm2']),
    ]);
    expect(sent).toEqual([
      {
        sql: form.sql,
        params: [
          ['a', 'b', 'a'],
          ['m1', 'm1', 'm2'],
        ],
      },
    ]);
    expect(answers.map((rows) => rows.map((r) => (r as { x: string }).x))).toEqual([['a/m1'], ['b/m1'], ['a/m2']]);
  });

  it('reads the same parameters once per batch; every caller gets the rows, frozen', async () => {
    const { sent, batcher } = recording();
    const form = batchedFormOf(ONE)!;
    const [a, b, c] = await Promise.all([batcher.read(ONE, form, ['a']), batcher.read(ONE, form, ['a']), batcher.read(ONE, form, ['b'])]);
    expect(sent).toEqual([{ sql: form.sql, params: [['a', 'b']] }]);
    expect(a).toBe(b);
    expect(c).toEqual([{ [BATCH_INDEX_COLUMN]: 2, x: 'b', nested: { a: 1 } }]);
    expect(() => {
      (a[0] as { nested: { a: number } }).nested.a = 2;
    }).toThrow(TypeError);
  });

  it('sends a batch of one as the single statement itself (rows frozen too)', async () => {
    const { sent, batcher } = recording();
    const rows = await batcher.read(TWO, batchedFormOf(TWO)!, ['a', 'm1']);
    expect(sent).toEqual([{ sql: TWO, params: ['a', 'm1'] }]);
    expect(rows).toEqual([{ x: 'a/m1', nested: { a: 1 } }]);
    expect(Object.isFrozen(rows[0])).toBe(true);
  });

  it('never joins a batch already sent: a read issued while one is in flight goes in the next statement', async () => {
    const { sent, batcher } = recording();
    const form = batchedFormOf(ONE)!;
    const first = Promise.all([batcher.read(ONE, form, ['a']), batcher.read(ONE, form, ['b'])]);
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is sent
    expect(sent).toHaveLength(1);
    const later = batcher.read(ONE, form, ['a']);
    await Promise.all([first, later]);
    expect(sent).toEqual([
      { sql: form.sql, params: [['a', 'b']] },
      { sql: ONE, params: ['a'] },
    ]);
  });

  it('keeps different reads in different statements', async () => {
    const { sent, batcher } = recording();
    await Promise.all([batcher.read(ONE, batchedFormOf(ONE)!, ['a']), batcher.read(TWO, batchedFormOf(TWO)!, ['a', 'm'])]);
    expect(sent.map((s) => s.sql).sort()).toEqual([ONE, TWO].sort());
  });

  it(`sends a batch at once when it holds ${MAX_BATCHED_READS} reads`, async () => {
    const { sent, batcher } = recording();
    const form = batchedFormOf(ONE)!;
    const reads = Array.from({ length: MAX_BATCHED_READS + 1 }, (_, i) => batcher.read(ONE, form, [`id${i}`]));
    expect(sent).toHaveLength(1); // sent synchronously, before the turn ends
    expect((sent[0]!.params[0] as string[]).length).toBe(MAX_BATCHED_READS);
    const answers = await Promise.all(reads);
    expect(sent).toHaveLength(2);
    expect(answers.map((rows) => (rows[0] as { x: string }).x)).toEqual(Array.from({ length: MAX_BATCHED_READS + 1 }, (_, i) => `id${i}`));
  });

  it('sends a failed batch again read by read, so that only the read at fault fails', async () => {
    const bad = Object.assign(new Error('invalid input syntax'), { code: '22P02' });
    const { sent, batcher } = recording((sql, params) => (sql.includes(BATCH_INDEX_COLUMN) || params[0] === 'bad' ? bad : undefined));
    const form = batchedFormOf(ONE)!;
    const [good, wrong] = await Promise.allSettled([batcher.read(ONE, form, ['a']), batcher.read(ONE, form, ['bad'])]);
    expect(good).toEqual({ status: 'fulfilled', value: [{ x: 'a', nested: { a: 1 } }] });
    expect(wrong).toEqual({ status: 'rejected', reason: bad });
    expect(sent.map((s) => s.sql)).toEqual([form.sql, ONE, ONE]);
  });

  it('fails every read of a batch at once when the database is unavailable (no second try each)', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
    const { sent, batcher } = recording(() => lost);
    const form = batchedFormOf(ONE)!;
    const results = await Promise.allSettled([batcher.read(ONE, form, ['a']), batcher.read(ONE, form, ['b'])]);
    expect(results).toEqual([
      { status: 'rejected', reason: lost },
      { status: 'rejected', reason: lost },
    ]);
    expect(sent).toHaveLength(1);
  });
});

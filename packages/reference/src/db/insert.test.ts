import { describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { insertInto, insertSql, Placeholders, param, sql, VALUE } from './insert.js';

describe('insertInto', () => {
  it('numbers one placeholder per parameter, in column order, and sends the row by name', () => {
    const insert = insertInto('t', { id: VALUE, status: sql("'open'"), created_at: VALUE, updated_at: param('created_at') });
    expect(insert.text).toBe("INSERT INTO t (id, status, created_at, updated_at)\n       VALUES ($1, 'open', $2, $2)");
    expect(insert.values({ id: 'a', created_at: 'now' })).toEqual(['a', 'now']);
  });

  it('a column added to the list is one edit: its placeholder and value follow', () => {
    const before = insertInto('t', { a: VALUE, c: VALUE });
    const after = insertInto('t', { a: VALUE, b: VALUE, c: VALUE });
    expect(before.values({ a: 1, c: 3 })).toEqual([1, 3]);
    expect(after.text).toContain('(a, b, c)');
    expect(after.text).toContain('VALUES ($1, $2, $3)');
    expect(after.values({ a: 1, b: 2, c: 3 })).toEqual([1, 2, 3]);
    // @ts-expect-error the row must now hold b
    expect(() => after.values({ a: 1, c: 3 })).toThrow(/"b" has no value/);
  });

  it('INSERT ... SELECT with an alias, expressions over placeholders and a tail that uses extra parameters', () => {
    const insert = insertInto(
      'r',
      { id: VALUE, amount: sql('u.amount'), at: sql<'now'>(($) => `${$('now')}::timestamptz`) },
      { alias: 'x', from: ($) => `unnest(${$('amounts')}::bigint[]) AS u(amount)`, tail: 'RETURNING x.id', extra: ['now', 'amounts'] },
    );
    expect(insert.text).toBe(
      'INSERT INTO r AS x (id, amount, at)\n       SELECT $1, u.amount, $2::timestamptz\n       FROM unnest($3::bigint[]) AS u(amount)\n       RETURNING x.id',
    );
    expect(insert.values({ id: 'i', now: 'n', amounts: [1] })).toEqual(['i', 'n', [1]]);
  });

  it('shares placeholders with the rest of a statement and takes overrides for columns set elsewhere', () => {
    const ph = new Placeholders<'merchant' | 'id' | 'name'>();
    const cte = `WITH m AS (SELECT id FROM merchants WHERE id = ${ph.ref('merchant')})`;
    const text = `${cte} ${insertSql('o', { id: VALUE, merchant_id: param('merchant'), name: VALUE }, ph, { override: { id: sql('m.id') }, from: 'm' })}`;
    expect(text).toContain('SELECT m.id, $1, $2');
    expect(ph.order).toEqual(['merchant', 'name']);
    expect(ph.values({ merchant: 'm1', id: 'unused', name: 'n' })).toEqual(['m1', 'n']);
  });

  it('an override takes a column off the row (DEFAULT, a literal), and the row type follows', () => {
    const columns = { id: VALUE, kind: VALUE, note: VALUE } as const;
    const insert = insertInto('t', columns, { override: { kind: sql("'partner'"), note: sql('DEFAULT') } });
    expect(insert.text).toBe("INSERT INTO t (id, kind, note)\n       VALUES ($1, 'partner', DEFAULT)");
    expect(insert.values({ id: 'a' })).toEqual(['a']);
    const full = insertInto('t', columns);
    // @ts-expect-error without the override the row must hold kind and note
    expect(() => full.values({ id: 'a' })).toThrow(/"kind" has no value/);
  });

  it('runs on PostgreSQL (PGlite): the built text and values insert the row', async () => {
    const db = new PGlite();
    try {
      await db.exec('CREATE TABLE t (id text PRIMARY KEY, status text, created_at timestamptz, updated_at timestamptz)');
      const insert = insertInto(
        't',
        { id: VALUE, status: sql("'open'"), created_at: VALUE, updated_at: param('created_at') },
        { tail: 'ON CONFLICT (id) DO NOTHING RETURNING id, status, updated_at = created_at AS same' },
      );
      const { rows } = await db.query(insert.text, insert.values({ id: 'a', created_at: '2026-01-01T00:00:00Z' }));
      expect(rows).toEqual([{ id: 'a', status: 'open', same: true }]);
      const again = await db.query(insert.text, insert.values({ id: 'a', created_at: '2026-01-01T00:00:00Z' }));
      expect(again.rows).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

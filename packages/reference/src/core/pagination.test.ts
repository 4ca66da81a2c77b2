import { describe, expect, it } from 'vitest';
import { COUNT_CAP, decodeCursor, encodeCursor, OFFSET_WINDOW, pageLinks, pageRequest, toPage, type PageRequest } from './pagination.js';
import { DomainError } from './errors.js';

const row = (n: number) => ({ at: `2026-12-01T00:00:${String(n).padStart(2, '0')}.000000Z`, id: `PR${n}` });
const key = (r: { at: string; id: string }) => r;

describe('pageRequest', () => {
  it.each([
    [[undefined, undefined, 10], { page: 1, pageSize: 10, offset: 0, cursor: null }],
    [['3', '25', 10], { page: 3, pageSize: 25, offset: 50, cursor: null }],
    [[OFFSET_WINDOW / 10, '10', 10], { page: OFFSET_WINDOW / 10, pageSize: 10, offset: OFFSET_WINDOW - 10, cursor: null }],
  ] as const)('%j -> %j', (args, want) => {
    expect(pageRequest(...(args as [number | string | undefined, number | string | undefined, number]))).toEqual(want);
  });

  it.each([
    ['page 0', () => pageRequest(0, undefined, 10), 'page'],
    ['page_size over the maximum', () => pageRequest(1, 251, 10), 'page_size'],
    ['a fraction', () => pageRequest('1.5', undefined, 10), 'page'],
    ['OFFSET past the window (D108)', () => pageRequest(OFFSET_WINDOW / 10 + 1, 10, 10), 'page'],
    ['a cursor this list did not issue', () => pageRequest(2, 10, 10, 'bm90LWEtY3Vyc29y'), 'cursor'],
    [
      'a cursor with a bad key',
      () => pageRequest(2, 10, 10, Buffer.from(JSON.stringify(['a', 'yesterday', 'x'])).toString('base64url')),
      'cursor',
    ],
  ])('rejects %s with details naming the field', (_name, call, field) => {
    let err: unknown;
    try {
      call();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect(Object.keys((err as DomainError).details ?? {})).toEqual([field]);
  });

  it('a list that serves fewer than asked says so in page_size (D110)', () => {
    expect(pageRequest(1, 250, 10, undefined, 25).pageSize).toBe(25);
    expect(pageRequest(1, undefined, 10, undefined, 25).pageSize).toBe(10);
  });

  it('a cursor makes any page number reachable without OFFSET', () => {
    const cursor = encodeCursor({ dir: 'after', ...row(5) });
    expect(pageRequest(5000, 10, 10, cursor)).toEqual({ page: 5000, pageSize: 10, offset: 0, cursor: { dir: 'after', ...row(5) } });
    expect(decodeCursor(encodeCursor({ dir: 'before', ...row(7) }))).toEqual({ dir: 'before', ...row(7) });
  });
});

describe('toPage', () => {
  const req = (over: Partial<PageRequest>): PageRequest => ({ page: 1, pageSize: 2, offset: 0, cursor: null, ...over });

  it('first page: the look-ahead row becomes the next cursor, no previous', () => {
    const page = toPage(req({}), 3, [row(9), row(8), row(7)], key, (r) => r.id);
    expect(page.results).toEqual(['PR9', 'PR8']);
    expect(page.next).toEqual({ page: 2, cursor: encodeCursor({ dir: 'after', ...row(8) }) });
    expect(page.previous).toBeNull();
  });

  it('a page reached backwards comes back newest first, with next after its last row', () => {
    const page = toPage(req({ page: 2, cursor: { dir: 'before', ...row(5) } }), COUNT_CAP + 1, [row(6), row(7), row(8)], key, (r) => r.id);
    expect(page.results).toEqual(['PR7', 'PR6']);
    expect(page.next).toEqual({ page: 3, cursor: encodeCursor({ dir: 'after', ...row(6) }) });
    expect(page.previous).toEqual({ page: 1, cursor: encodeCursor({ dir: 'before', ...row(7) }) });
  });

  it('the last page has no next', () => {
    const page = toPage(req({ page: 4, cursor: { dir: 'after', ...row(3) } }), 7, [row(2)], key, (r) => r.id);
    expect(page.next).toBeNull();
    expect(page.previous?.page).toBe(3);
  });
});

describe('pageLinks', () => {
  it('keeps every filter and replaces page, page_size and cursor', () => {
    const cursor = encodeCursor({ dir: 'after', ...row(1) });
    const links = pageLinks('https://api.example/pg/payments/?status=CAPTURED&page=2&cursor=old', {
      page_size: 10,
      next: { page: 3, cursor },
      previous: { page: 1, cursor: null },
    });
    expect(links.next).toBe(`https://api.example/pg/payments/?status=CAPTURED&page=3&page_size=10&cursor=${cursor}`);
    expect(links.previous).toBe('https://api.example/pg/payments/?status=CAPTURED&page=1&page_size=10');
    expect(pageLinks('https://api.example/x', { page_size: 10, next: null, previous: null })).toEqual({ next: null, previous: null });
  });
});

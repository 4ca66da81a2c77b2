import { describe, expect, it } from 'vitest';
import { firstPageQuery, itemsOf, nextPageQuery, PaginationError, type PageStep, type PageStrategy } from './paginate-strategy.js';

const items = [{ id: 'a' }, { id: 'b' }];

function step(body: unknown, over: Partial<PageStep> = {}, headers: Record<string, string> = {}): PageStep {
  return { query: { q: 'x' }, first: { q: 'x' }, body, headers: new Headers(headers), items, received: items.length, ...over };
}

describe('nextPageQuery: one step per strategy (D227)', () => {
  const cursor: PageStrategy = {
    strategy: 'cursor',
    items: ['data'],
    cursorParam: 'cursor',
    next: { in: 'body', path: ['meta', 'next_cursor'] },
    hasMore: ['has_more'],
  };
  const lastItem: PageStrategy = {
    strategy: 'lastItem',
    items: ['data'],
    cursorParam: 'starting_after',
    idField: 'id',
    hasMore: ['has_more'],
  };
  const link: PageStrategy = { strategy: 'nextLink', items: ['data'], next: { in: 'body', path: ['links', 'next'] }, tokenParam: 'cursor' };
  const linkHeader: PageStrategy = { strategy: 'nextLink', items: [], next: { in: 'header', name: 'Link' } };
  const offset: PageStrategy = {
    strategy: 'offset',
    items: ['items'],
    offsetParam: 'offset',
    limitParam: 'limit',
    total: { value: { in: 'body', path: ['total'] }, counts: 'items' },
  };
  const page: PageStrategy = {
    strategy: 'page',
    items: ['items'],
    pageParam: 'page',
    pageSizeParam: 'per_page',
    firstPage: 1,
    total: { value: { in: 'header', name: 'X-Total-Pages' }, counts: 'pages' },
  };
  const pageItems: PageStrategy = {
    strategy: 'page',
    items: ['items'],
    pageParam: 'page',
    firstPage: 1,
    total: { value: { in: 'body', path: ['total'] }, counts: 'items' },
  };

  it.each<[string, PageStrategy, PageStep, unknown]>([
    ['cursor: the token goes back as its parameter', cursor, step({ meta: { next_cursor: 'c2' } }), { q: 'x', cursor: 'c2' }],
    ['cursor: a numeric token (Figma `after`)', cursor, step({ meta: { next_cursor: 42 } }), { q: 'x', cursor: 42 }],
    ['cursor: null token = last page', cursor, step({ meta: { next_cursor: null } }), undefined],
    ['cursor: empty token = last page', cursor, step({ meta: { next_cursor: '' } }), undefined],
    ['cursor: missing token = last page', cursor, step({ meta: {} }), undefined],
    ['cursor: has_more false = last page, whatever the token', cursor, step({ has_more: false, meta: { next_cursor: 'c2' } }), undefined],
    [
      'cursor: a token in a header',
      { ...cursor, next: { in: 'header', name: 'X-Next-Cursor' } } as PageStrategy,
      step({}, {}, { 'X-Next-Cursor': 'h2' }),
      { q: 'x', cursor: 'h2' },
    ],
    ['lastItem: the last id while has_more', lastItem, step({ has_more: true }), { q: 'x', starting_after: 'b' }],
    ['lastItem: has_more false = last page', lastItem, step({ has_more: false }), undefined],
    [
      "nextLink: the link's query, merged over the request's",
      link,
      step({ links: { next: 'https://api.test/v1/x?cursor=n2&limit=2' } }),
      { q: 'x', cursor: 'n2', limit: '2' },
    ],
    ['nextLink: a relative link', link, step({ links: { next: '/v1/x?page=3' } }), { q: 'x', page: '3' }],
    ['nextLink: a repeated parameter stays repeated', link, step({ links: { next: '?tag=a&tag=b' } }), { q: 'x', tag: ['a', 'b'] }],
    ['nextLink: a bare token goes back as tokenParam', link, step({ links: { next: 'opaque==' } }), { q: 'x', cursor: 'opaque==' }],
    ['nextLink: null = last page', link, step({ links: { next: null } }), undefined],
    [
      'nextLink: GitHub\'s Link header, rel="next"',
      linkHeader,
      step(
        [],
        {},
        {
          Link: '<https://api.github.test/repositories/1/issues?per_page=2&page=2>; rel="next", <https://api.github.test/repositories/1/issues?per_page=2&page=5>; rel="last"',
        },
      ),
      { q: 'x', per_page: '2', page: '2' },
    ],
    [
      'nextLink: a Link header without rel="next" = last page',
      linkHeader,
      step([], {}, { Link: '<https://api.github.test/x?page=1>; rel="first"' }),
      undefined,
    ],
    ['nextLink: no Link header = last page', linkHeader, step([]), undefined],
    ['offset: moved by the items received', offset, step({ total: 10 }, { query: { offset: 4, limit: 2 } }), { offset: 6, limit: 2 }],
    ['offset: from 0 when the caller gave none', offset, step({ total: 10 }, { query: { limit: 2 } }), { offset: 2, limit: 2 }],
    ['offset: the total reached = last page', offset, step({ total: 6 }, { query: { offset: 4, limit: 2 } }), undefined],
    ['offset: a page shorter than the limit = last page', offset, step({}, { query: { limit: 5 } }), undefined],
    ['page: counted up', page, step({}, { query: { page: 1, per_page: 2 } }, { 'X-Total-Pages': '3' }), { page: 2, per_page: 2 }],
    ['page: the page count reached = last page', page, step({}, { query: { page: 3, per_page: 2 } }, { 'X-Total-Pages': '3' }), undefined],
    ['page: a short page = last page', page, step({}, { query: { page: 1, per_page: 5 } }), undefined],
    ['page: an unreadable total is no total', page, step({}, { query: { page: 1 } }, { 'X-Total-Pages': 'many' }), { page: 2 }],
    ['page: an item total, counted from the first page', pageItems, step({ total: 4 }, { query: { page: 2 }, received: 4 }), undefined],
    ['page: an item total not reached', pageItems, step({ total: 5 }, { query: { page: 2 }, received: 4 }), { page: 3 }],
  ])('%s', (_name, strategy, s, want) => {
    expect(nextPageQuery(strategy, s)).toEqual(want);
  });

  it.each<[string, PageStrategy, PageStep, RegExp]>([
    ['a cursor that is an object', cursor, step({ meta: { next_cursor: { a: 1 } } }), /cursor at body.meta.next_cursor is a object/],
    [
      'a last item without an id',
      lastItem,
      { ...step({ has_more: true }), items: [{ name: 'x' }] },
      /has no `id` to send as `starting_after`/,
    ],
    [
      'a link that is not a URL and no token parameter',
      { ...link, tokenParam: undefined } as PageStrategy,
      step({ links: { next: 'abc' } }),
      /neither a URL nor a token/,
    ],
    ['a Link header that is not RFC 8288', linkHeader, step([], {}, { Link: 'garbage' }), /Link header is not RFC 8288/],
  ])('a 2xx that breaks the page shape throws PaginationError, not a TypeError: %s', (_name, strategy, s, message) => {
    expect(() => nextPageQuery(strategy, s)).toThrow(PaginationError);
    expect(() => nextPageQuery(strategy, s)).toThrow(message);
  });
});

describe('itemsOf', () => {
  it.each<[string, unknown, readonly string[], unknown]>([
    ['the body itself', [1, 2], [], [1, 2]],
    ['a nested array', { meta: { components: [1] } }, ['meta', 'components'], [1]],
    ['a missing array is an empty page', { meta: {} }, ['meta', 'components'], []],
    ['a null array is an empty page', { data: null }, ['data'], []],
  ])('%s', (_name, body, path, want) => {
    expect(itemsOf(body, path)).toEqual(want);
  });

  it('throws PaginationError (not-a-page) when the path holds no array', () => {
    expect(() => itemsOf({ webhooks: { a: 1 } }, ['webhooks'])).toThrow(
      expect.objectContaining({ name: 'PaginationError', reason: 'not-a-page' }),
    );
  });
});

describe('firstPageQuery', () => {
  it('sends the first page number of a numbered list unless the caller chose one', () => {
    const page: PageStrategy = { strategy: 'page', items: [], pageParam: 'p', firstPage: 0 };
    expect(firstPageQuery(page, { q: 'x' })).toEqual({ q: 'x', p: 0 });
    expect(firstPageQuery(page, { p: 4 })).toEqual({ p: 4 });
    expect(firstPageQuery({ strategy: 'nextLink', items: [], next: { in: 'header', name: 'Link' } }, { q: 'x' })).toEqual({ q: 'x' });
  });
});

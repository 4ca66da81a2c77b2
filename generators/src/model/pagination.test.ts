/**
 * One table per page-shape detector (D225 pagination model by strategy), then x-pagination (D226 x-pagination declares the page shape) and the order they are tried in. Each row is a
 * small operation written the way a real API writes it (the vendor in the row's name), or a near miss that must get
 * no helper: a detector that guesses makes a helper that throws or loops at run time.
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedSpecError } from '../parse/refusal.js';
import { RefResolver } from './ref-resolver.js';
import {
  detectCursor,
  detectLastItem,
  detectLinkHeader,
  detectNextUrl,
  detectOffset,
  detectPage,
  detectPagination,
  itemsPathOf,
  pageContext,
  type Detector,
} from './pagination.js';
import type { HttpMethod, ParameterModel, ResponseModel } from './types.js';

type Schema = Record<string, unknown>;
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const arr = (items: Schema = { type: 'object', properties: { id: str } }): Schema => ({ type: 'array', items });
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });

/** A query parameter: `name` (string), `name:int`, or `name:int:description`. */
function param(spec: string): ParameterModel {
  const [name, type = 'string', description] = spec.split(':');
  return { name, in: 'query', schema: { type: type === 'int' ? 'integer' : type }, description } as unknown as ParameterModel;
}

interface Op {
  params?: string[];
  body: Schema;
  headers?: string[];
  method?: HttpMethod;
  ext?: unknown;
}

function input(op: Op, components: Record<string, Schema> = {}) {
  const responses = [
    {
      status: '200',
      kind: 'exact',
      content: [{ mediaType: 'application/json', schema: op.body }],
      headers: (op.headers ?? []).map((name) => ({ name })),
    },
  ] as unknown as ResponseModel[];
  return {
    resolver: new RefResolver({ components: { schemas: components } }),
    method: op.method ?? 'get',
    path: '/things',
    operation: op.ext === undefined ? {} : { 'x-pagination': op.ext },
    query: (op.params ?? []).map(param),
    responses,
    file: 'openapi.yaml',
  };
}

function run(detector: Detector, op: Op, components?: Record<string, Schema>) {
  const ctx = pageContext(input(op, components));
  return ctx === undefined ? undefined : detector(ctx);
}

describe('itemsPathOf: where the items are', () => {
  it.each<[string, Schema, string[] | undefined]>([
    ['the body is the array (GitHub)', arr(), []],
    ['the one array of the body (Figma `webhooks`)', obj({ webhooks: arr(), pagination: obj({ next_page: str }) }), ['webhooks']],
    [
      'in a wrapper (Figma `meta.components`)',
      obj({ status: int, meta: obj({ components: arr(), cursor: obj({ after: int }) }) }),
      ['meta', 'components'],
    ],
    ['two arrays told apart by a conventional name', obj({ data: arr(), warnings: arr(str) }), ['data']],
    ['two arrays, neither conventional: ambiguous', obj({ users: arr(), groups: arr() }), undefined],
    ['no array', obj({ id: str }), undefined],
    ['an array typed by oneOf of arrays (Figma analytics `rows`)', obj({ rows: { oneOf: [arr(), arr()] }, next_page: bool }), ['rows']],
  ])('%s', (_name, body, want) => {
    expect(itemsPathOf(pageContext(input({ body }))!)).toEqual(want);
  });
});

describe('detectLinkHeader: an RFC 8288 Link header (GitHub)', () => {
  it.each<[string, Op, unknown]>([
    [
      'GitHub: Link declared, the body an array',
      { params: ['per_page:int', 'page:int'], body: arr(), headers: ['Link'] },
      { strategy: 'nextLink', itemsPath: [], next: { in: 'header', name: 'Link' }, tokenParam: undefined },
    ],
    ['no Link header declared', { params: ['page:int'], body: arr() }, undefined],
    ["no query parameter to send the link's query in", { body: arr(), headers: ['link'] }, undefined],
  ])('%s', (_name, op, want) => {
    expect(run(detectLinkHeader, op)).toEqual(want);
  });
});

describe('detectCursor: a token at any depth of the body, sent back as its parameter', () => {
  it.each<[string, Op, unknown]>([
    [
      'Slack: response_metadata.next_cursor -> cursor',
      { params: ['cursor', 'limit:int'], body: obj({ members: arr(), response_metadata: obj({ next_cursor: str }) }) },
      {
        strategy: 'cursor',
        itemsPath: ['members'],
        cursorParam: 'cursor',
        next: { in: 'body', path: ['response_metadata', 'next_cursor'] },
        hasMorePath: undefined,
      },
    ],
    [
      'Google: nextPageToken -> pageToken',
      { params: ['pageToken', 'pageSize:int'], body: obj({ files: arr(), nextPageToken: str }) },
      {
        strategy: 'cursor',
        itemsPath: ['files'],
        cursorParam: 'pageToken',
        next: { in: 'body', path: ['nextPageToken'] },
        hasMorePath: undefined,
      },
    ],
    [
      'Stripe search: next_page -> a string page, with has_more',
      { params: ['page', 'limit:int', 'query'], body: obj({ data: arr(), has_more: bool, next_page: { type: ['string', 'null'] } }) },
      {
        strategy: 'cursor',
        itemsPath: ['data'],
        cursorParam: 'page',
        next: { in: 'body', path: ['next_page'] },
        hasMorePath: ['has_more'],
      },
    ],
    [
      'Kubernetes: metadata.continue -> continue',
      { params: ['continue', 'limit:int'], body: obj({ items: arr(), metadata: obj({ continue: str, resourceVersion: str }) }) },
      {
        strategy: 'cursor',
        itemsPath: ['items'],
        cursorParam: 'continue',
        next: { in: 'body', path: ['metadata', 'continue'] },
        hasMorePath: undefined,
      },
    ],
    [
      'AWS: NextToken -> NextToken',
      { params: ['NextToken', 'MaxResults:int'], body: obj({ Items: arr(), NextToken: str }) },
      {
        strategy: 'cursor',
        itemsPath: ['Items'],
        cursorParam: 'NextToken',
        next: { in: 'body', path: ['NextToken'] },
        hasMorePath: undefined,
      },
    ],
    [
      'Azure/ADO: continuation_token -> continuation_token',
      { params: ['continuation_token'], body: obj({ value: arr(), continuation_token: str }) },
      {
        strategy: 'cursor',
        itemsPath: ['value'],
        cursorParam: 'continuation_token',
        next: { in: 'body', path: ['continuation_token'] },
        hasMorePath: undefined,
      },
    ],
    [
      'OpenAI: last_id -> after, with has_more',
      { params: ['after', 'limit:int'], body: obj({ data: arr(), first_id: str, last_id: str, has_more: bool }) },
      { strategy: 'cursor', itemsPath: ['data'], cursorParam: 'after', next: { in: 'body', path: ['last_id'] }, hasMorePath: ['has_more'] },
    ],
    [
      'Figma components: meta.cursor.after -> after (numbers)',
      {
        params: ['page_size:number', 'after:number', 'before:number'],
        body: obj({ meta: obj({ components: arr(), cursor: obj({ before: { type: 'number' }, after: { type: 'number' } }) }) }),
      },
      {
        strategy: 'cursor',
        itemsPath: ['meta', 'components'],
        cursorParam: 'after',
        next: { in: 'body', path: ['meta', 'cursor', 'after'] },
        hasMorePath: undefined,
      },
    ],
    [
      'Figma analytics: cursor beside a next_page flag',
      { params: ['cursor', 'group_by'], body: obj({ rows: arr(), next_page: bool, cursor: str }) },
      {
        strategy: 'cursor',
        itemsPath: ['rows'],
        cursorParam: 'cursor',
        next: { in: 'body', path: ['cursor'] },
        hasMorePath: ['next_page'],
      },
    ],
    [
      'a token in a response header (NextPageToken -> pageToken)',
      { params: ['pageToken'], body: arr(), headers: ['NextPageToken'] },
      {
        strategy: 'cursor',
        itemsPath: [],
        cursorParam: 'pageToken',
        next: { in: 'header', name: 'NextPageToken' },
        hasMorePath: undefined,
      },
    ],
    ['a next URL is not a token (next_page_url)', { params: ['page:int'], body: obj({ data: arr(), next_page_url: str }) }, undefined],
    [
      'next_page described as a URL (Figma) is not a token',
      { params: ['page'], body: obj({ data: arr(), next_page: { type: 'string', description: 'A URL that calls the next page.' } }) },
      undefined,
    ],
    ['a string token for a numeric parameter', { params: ['page:int'], body: obj({ data: arr(), next_page: str }) }, undefined],
    [
      'an echoed `cursor` with no has-more flag and no page container',
      { params: ['cursor'], body: obj({ data: arr(), cursor: str }) },
      undefined,
    ],
    ['an auth `token` is not a page token', { params: ['token'], body: obj({ data: arr(), token: str }) }, undefined],
    ['no items array', { params: ['cursor'], body: obj({ next_cursor: str }) }, undefined],
  ])('%s', (_name, op, want) => {
    expect(run(detectCursor, op)).toEqual(want);
  });
});

describe('detectNextUrl: a next URL at any depth of the body', () => {
  const uri = { type: ['string', 'null'], format: 'uri' };
  it.each<[string, Op, unknown]>([
    [
      'Paygate / DRF: next (uri) beside results, the cursor the link carries',
      {
        params: ['page:int', 'page_size:int', 'cursor'],
        body: obj({ data: obj({ count: int, next: uri, previous: uri, results: arr() }) }),
      },
      { strategy: 'nextLink', itemsPath: ['data', 'results'], next: { in: 'body', path: ['data', 'next'] }, tokenParam: 'cursor' },
    ],
    [
      'DRF without a format: next beside previous',
      {
        params: ['page:int'],
        body: obj({ count: int, next: { type: ['string', 'null'] }, previous: { type: ['string', 'null'] }, results: arr() }),
      },
      { strategy: 'nextLink', itemsPath: ['results'], next: { in: 'body', path: ['next'] }, tokenParam: undefined },
    ],
    [
      'JSON:API: links.next',
      { params: ['page[size]:int'], body: obj({ data: arr(), links: obj({ self: str, next: str }) }) },
      { strategy: 'nextLink', itemsPath: ['data'], next: { in: 'body', path: ['links', 'next'] }, tokenParam: undefined },
    ],
    [
      'HAL: _links.next.href',
      { params: ['limit:int'], body: obj({ items: arr(), _links: obj({ self: obj({ href: str }), next: obj({ href: str }) }) }) },
      { strategy: 'nextLink', itemsPath: ['items'], next: { in: 'body', path: ['_links', 'next', 'href'] }, tokenParam: undefined },
    ],
    [
      'OData: @odata.nextLink',
      { params: ['$top:int'], body: obj({ value: arr(), '@odata.nextLink': str }) },
      { strategy: 'nextLink', itemsPath: ['value'], next: { in: 'body', path: ['@odata.nextLink'] }, tokenParam: undefined },
    ],
    [
      'Figma: pagination.next_page, a URL by its description, with a cursor parameter',
      {
        params: ['plan_api_id', 'cursor'],
        body: obj({
          webhooks: arr(),
          pagination: obj({
            prev_page: str,
            next_page: { type: 'string', description: 'A URL that calls the next page of the response.' },
          }),
        }),
      },
      { strategy: 'nextLink', itemsPath: ['webhooks'], next: { in: 'body', path: ['pagination', 'next_page'] }, tokenParam: 'cursor' },
    ],
    [
      'Laravel: next_page_url',
      { params: ['page:int'], body: obj({ data: arr(), next_page_url: str, total: int }) },
      { strategy: 'nextLink', itemsPath: ['data'], next: { in: 'body', path: ['next_page_url'] }, tokenParam: undefined },
    ],
    ['a bare `next` with no sign of a URL and no token parameter', { params: ['q'], body: obj({ data: arr(), next: str }) }, undefined],
    ["no query parameter to send the link's query in", { body: obj({ data: arr(), next: uri }) }, undefined],
    ["a `next` inside the items is not the page's", { params: ['q'], body: obj({ data: arr(obj({ next: uri })) }) }, undefined],
  ])('%s', (_name, op, want) => {
    expect(run(detectNextUrl, op)).toEqual(want);
  });
});

describe("detectLastItem: starting_after = the last item's id (Stripe)", () => {
  it.each<[string, Op, unknown]>([
    [
      'Stripe: data + has_more + starting_after',
      { params: ['limit:int', 'starting_after', 'ending_before'], body: obj({ object: str, data: arr(), has_more: bool, url: str }) },
      { strategy: 'lastItem', itemsPath: ['data'], cursorParam: 'starting_after', idField: 'id', hasMorePath: ['has_more'] },
    ],
    [
      'items of several types (anyOf) that all have an id',
      {
        params: ['starting_after'],
        body: obj({ data: { type: 'array', items: { anyOf: [obj({ id: str, a: str }), obj({ id: str, b: str })] } }, has_more: bool }),
      },
      { strategy: 'lastItem', itemsPath: ['data'], cursorParam: 'starting_after', idField: 'id', hasMorePath: ['has_more'] },
    ],
    ['no has-more flag (Discord): the end would be a guess', { params: ['after', 'limit:int'], body: arr() }, undefined],
    ['items without an id', { params: ['starting_after'], body: obj({ data: arr(obj({ name: str })), has_more: bool }) }, undefined],
    ['no starting_after/after parameter', { params: ['limit:int'], body: obj({ data: arr(), has_more: bool }) }, undefined],
  ])('%s', (_name, op, want) => {
    expect(run(detectLastItem, op)).toEqual(want);
  });
});

describe('detectOffset: offset/limit', () => {
  it.each<[string, Op, unknown]>([
    [
      'offset + limit + total',
      { params: ['offset:int', 'limit:int'], body: obj({ items: arr(), total: int }) },
      {
        strategy: 'offset',
        itemsPath: ['items'],
        offsetParam: 'offset',
        limitParam: 'limit',
        total: { source: { in: 'body', path: ['total'] }, counts: 'items' },
      },
    ],
    [
      'OData $skip/$top, no total: stops at a short or empty page',
      { params: ['$skip:int', '$top:int'], body: obj({ value: arr() }) },
      { strategy: 'offset', itemsPath: ['value'], offsetParam: '$skip', limitParam: '$top', total: undefined },
    ],
    [
      'a total in a header (X-Total-Count)',
      { params: ['offset:int'], body: arr(), headers: ['X-Total-Count'] },
      {
        strategy: 'offset',
        itemsPath: [],
        offsetParam: 'offset',
        limitParam: undefined,
        total: { source: { in: 'header', name: 'X-Total-Count' }, counts: 'items' },
      },
    ],
    [
      'pagination.total_records',
      { params: ['offset:int', 'limit:int'], body: obj({ data: arr(), pagination: obj({ total_records: int }) }) },
      {
        strategy: 'offset',
        itemsPath: ['data'],
        offsetParam: 'offset',
        limitParam: 'limit',
        total: { source: { in: 'body', path: ['pagination', 'total_records'] }, counts: 'items' },
      },
    ],
    ['a string offset', { params: ['offset', 'limit:int'], body: arr() }, undefined],
    ['`start` beside `end` is a range, not a position', { params: ['start:int', 'end:int', 'limit:int'], body: arr() }, undefined],
    ['`start` as a timestamp', { params: ['start:int:A start date/time as a UNIX timestamp', 'limit:int'], body: arr() }, undefined],
  ])('%s', (_name, op, want) => {
    expect(run(detectOffset, op)).toEqual(want);
  });
});

describe('detectPage: page/per_page', () => {
  it.each<[string, Op, unknown]>([
    [
      'GitHub without a Link header: page + per_page',
      { params: ['per_page:int', 'page:int'], body: arr() },
      { strategy: 'page', itemsPath: [], pageParam: 'page', pageSizeParam: 'per_page', firstPage: 1, total: undefined },
    ],
    [
      'page + page_size + total_pages',
      { params: ['page:int', 'page_size:int'], body: obj({ results: arr(), total_pages: int }) },
      {
        strategy: 'page',
        itemsPath: ['results'],
        pageParam: 'page',
        pageSizeParam: 'page_size',
        firstPage: 1,
        total: { source: { in: 'body', path: ['total_pages'] }, counts: 'pages' },
      },
    ],
    [
      'JSON:API page[number] + page[size], meta.total',
      { params: ['page[number]:int', 'page[size]:int'], body: obj({ data: arr(), meta: obj({ total: int }) }) },
      {
        strategy: 'page',
        itemsPath: ['data'],
        pageParam: 'page[number]',
        pageSizeParam: 'page[size]',
        firstPage: 1,
        total: { source: { in: 'body', path: ['meta', 'total'] }, counts: 'items' },
      },
    ],
    [
      'Spring-style content + size, totalElements (the first page from the parameter, 1 when it says nothing)',
      { params: ['page:int', 'size:int'], body: obj({ content: arr(), totalElements: int, number: int }) },
      {
        strategy: 'page',
        itemsPath: ['content'],
        pageParam: 'page',
        pageSizeParam: 'size',
        firstPage: 1,
        total: { source: { in: 'body', path: ['totalElements'] }, counts: 'items' },
      },
    ],
    [
      'EVE ESI: page + X-Pages',
      { params: ['page:int'], body: arr(), headers: ['X-Pages'] },
      {
        strategy: 'page',
        itemsPath: [],
        pageParam: 'page',
        pageSizeParam: undefined,
        firstPage: 1,
        total: { source: { in: 'header', name: 'X-Pages' }, counts: 'pages' },
      },
    ],
    [
      '`count` is a total only beside next/previous (elsewhere it may count the page)',
      { params: ['page:int'], body: obj({ items: arr(), count: int }) },
      { strategy: 'page', itemsPath: ['items'], pageParam: 'page', pageSizeParam: undefined, firstPage: 1, total: undefined },
    ],
    ['a string page is a token, not a number', { params: ['page'], body: arr() }, undefined],
    ['no items array', { params: ['page:int'], body: obj({ name: str }) }, undefined],
  ])('%s', (_name, op, want) => {
    expect(run(detectPage, op)).toEqual(want);
  });

  it('starts at the first page the parameter declares (default or minimum 0, an ...index)', () => {
    const zero = input({ params: ['page:int'], body: arr() });
    zero.query[0]!.schema = { type: 'integer', minimum: 0 };
    expect(detectPage(pageContext(zero)!)).toMatchObject({ firstPage: 0 });
    expect(run(detectPage, { params: ['pageIndex:int'], body: arr() })).toMatchObject({ firstPage: 0 });
  });
});

describe('detectPagination: x-pagination first, then the detectors in order', () => {
  it.each<[string, Op, unknown]>([
    [
      'a Link header wins over page numbers (GitHub)',
      { params: ['page:int', 'per_page:int'], body: arr(), headers: ['Link'] },
      { strategy: 'nextLink', status: '200', declared: false, itemsPath: [], next: { in: 'header', name: 'Link' }, tokenParam: undefined },
    ],
    [
      'a next link wins over page numbers (Paygate: the keyset cursor it carries)',
      { params: ['page:int', 'cursor'], body: obj({ next: { type: 'string', format: 'uri' }, results: arr() }) },
      {
        strategy: 'nextLink',
        status: '200',
        declared: false,
        itemsPath: ['results'],
        next: { in: 'body', path: ['next'] },
        tokenParam: 'cursor',
      },
    ],
    ['only GET is detected', { method: 'post', params: ['page:int'], body: arr() }, undefined],
    ['x-pagination: false turns detection off', { params: ['page:int'], body: arr(), ext: false }, undefined],
    [
      "another tool's x-pagination (no strategy) is left alone",
      { params: ['page:int'], body: arr(), ext: { style: 'pages' } },
      {
        strategy: 'page',
        status: '200',
        declared: false,
        itemsPath: [],
        pageParam: 'page',
        pageSizeParam: undefined,
        firstPage: 1,
        total: undefined,
      },
    ],
    [
      'x-pagination cursor, JSON Pointers',
      {
        params: ['after', 'limit:int'],
        body: obj({ page: obj({ entries: arr(), end: str, more: bool }) }),
        ext: { strategy: 'cursor', items: '/page/entries', cursorParam: 'after', next: '/page/end', hasMore: '/page/more' },
      },
      {
        strategy: 'cursor',
        status: '200',
        declared: true,
        itemsPath: ['page', 'entries'],
        cursorParam: 'after',
        next: { in: 'body', path: ['page', 'end'] },
        hasMorePath: ['page', 'more'],
      },
    ],
    [
      'x-pagination nextLink from a header',
      { params: ['q'], body: arr(), ext: { strategy: 'nextLink', nextHeader: 'Link' } },
      { strategy: 'nextLink', status: '200', declared: true, itemsPath: [], next: { in: 'header', name: 'Link' }, tokenParam: undefined },
    ],
    [
      'x-pagination page with a total header counting pages, on a POST',
      {
        method: 'post',
        params: ['p:int'],
        body: obj({ rows: arr() }),
        ext: { strategy: 'page', pageParam: 'p', firstPage: 0, totalHeader: 'X-Page-Count', totalCounts: 'pages' },
      },
      {
        strategy: 'page',
        status: '200',
        declared: true,
        itemsPath: ['rows'],
        pageParam: 'p',
        pageSizeParam: undefined,
        firstPage: 0,
        total: { source: { in: 'header', name: 'X-Page-Count' }, counts: 'pages' },
      },
    ],
    [
      'x-pagination offset',
      {
        params: ['from:int', 'size:int'],
        body: obj({ hits: obj({ hits: arr(), total: int }) }),
        ext: { strategy: 'offset', items: '/hits/hits', offsetParam: 'from', limitParam: 'size', total: '/hits/total' },
      },
      {
        strategy: 'offset',
        status: '200',
        declared: true,
        itemsPath: ['hits', 'hits'],
        offsetParam: 'from',
        limitParam: 'size',
        total: { source: { in: 'body', path: ['hits', 'total'] }, counts: 'items' },
      },
    ],
    [
      'x-pagination lastItem with its own id field',
      { params: ['since'], body: arr(obj({ number: int })), ext: { strategy: 'lastItem', cursorParam: 'since', idField: 'number' } },
      {
        strategy: 'lastItem',
        status: '200',
        declared: true,
        itemsPath: [],
        cursorParam: 'since',
        idField: 'number',
        hasMorePath: undefined,
      },
    ],
    [
      "Paygate's first form (D124): pageParam + itemsPath + nextField",
      {
        params: ['p:int', 'after'],
        body: obj({ items: arr(), next: str }),
        ext: { pageParam: 'p', cursorParam: 'after', itemsPath: ['items'], nextField: 'next' },
      },
      {
        strategy: 'nextLink',
        status: '200',
        declared: true,
        itemsPath: ['items'],
        next: { in: 'body', path: ['next'] },
        tokenParam: 'after',
      },
    ],
    [
      "Paygate's first form without nextField: page numbers",
      { params: ['p:int', 'n:int'], body: obj({ items: arr() }), ext: { pageParam: 'p', pageSizeParam: 'n', itemsPath: ['items'] } },
      {
        strategy: 'page',
        status: '200',
        declared: true,
        itemsPath: ['items'],
        pageParam: 'p',
        pageSizeParam: 'n',
        firstPage: 1,
        total: undefined,
      },
    ],
  ])('%s', (_name, op, want) => {
    expect(detectPagination(input(op))).toEqual(want);
  });

  it.each<[string, unknown, RegExp]>([
    ['an unknown strategy', { strategy: 'pages' }, /strategy "pages" is not one of cursor, lastItem, nextLink, offset, page/],
    [
      'a parameter the operation lacks',
      { strategy: 'cursor', cursorParam: 'cursor', next: '/n' },
      /cursorParam "cursor" is not a query parameter of this operation \(it has page\)/,
    ],
    ['a strategy without its value', { strategy: 'cursor', cursorParam: 'page' }, /strategy cursor needs x-pagination.next/],
    [
      'a bad totalCounts',
      { strategy: 'page', pageParam: 'page', total: '/t', totalCounts: 'rows' },
      /totalCounts must be "items" or "pages"/,
    ],
  ])('refuses an x-pagination with %s, naming the file, the pointer and the fix', (_name, ext, message) => {
    let caught: unknown;
    try {
      detectPagination(input({ params: ['page:int'], body: arr(), ext }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnsupportedSpecError);
    expect((caught as UnsupportedSpecError).pointer).toBe('#/paths/~1things/get/x-pagination');
    expect((caught as UnsupportedSpecError).message).toMatch(message);
    expect((caught as UnsupportedSpecError).fix.length).toBeGreaterThan(0);
  });

  it('follows $refs to the page schema and its items', () => {
    const components = {
      Page: obj({ data: { $ref: '#/components/schemas/Items' }, has_more: bool }),
      Items: arr({ $ref: '#/components/schemas/Item' }),
      Item: obj({ id: str }),
    };
    expect(detectPagination(input({ params: ['starting_after'], body: { $ref: '#/components/schemas/Page' } }, components))).toMatchObject({
      strategy: 'lastItem',
      itemsPath: ['data'],
    });
  });
});

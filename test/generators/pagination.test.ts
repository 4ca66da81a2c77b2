/**
 * Each page shape end to end (D225 pagination model by strategy; D227 page strategies as data in the client): the fixture test/fixtures/pages (one list per shape, not Paygate's
 * conventions) and Figma's REST API are generated and compiled strictly through the shared harness
 * (support/compile-generated.ts) together with type-level tests (the helper's item type is the spec's schema, no
 * helper where the spec shows no page), then each generated `...All` helper walks three pages a loopback server
 * (node:http on 127.0.0.1) serves in that shape. The server records every query it got: the test checks what the
 * helper sent, not only what it yielded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaginationError, paginate } from '../../packages/client/src/runtime/paginate.js';
import { PaygateApiError } from '../../packages/client/src/runtime/result.js';
import { generateAndCompile, type CompileOutcome } from './support/compile-generated.js';

type Item = { id: string; name: string };
const ITEMS: Item[] = ['i1', 'i2', 'i3', 'i4', 'i5'].map((id) => ({ id, name: `item ${id}` }));
/** The three pages every shape serves: [i1 i2] [i3 i4] [i5]. */
const PAGE = [ITEMS.slice(0, 2), ITEMS.slice(2, 4), ITEMS.slice(4)];

/** Compiled with the generated code: the helpers' item types are the spec's schemas; no helper where no page shape. */
const PAGES_TYPES = `import { expectTypeOf } from 'vitest';
import type { components, PagesClient } from './client/index.js';

type ItemOf<F> = F extends (...args: never[]) => AsyncIterableIterator<infer T> ? T : never;
type Shapes = PagesClient['shapes'];
type Item = components['schemas']['Item'];
expectTypeOf<ItemOf<Shapes['listCursorAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listStripeAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listGithubAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listHalAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listOffsetAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listPageAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listDeclaredAll']>>().toEqualTypeOf<Item>();
expectTypeOf<ItemOf<Shapes['listShortPagesAll']>>().toEqualTypeOf<components['schemas']['Tag']>();

declare const client: PagesClient;
// @ts-expect-error a list without a page shape gets no helper
void client.shapes.listPlainAll;
// @ts-expect-error the helper takes the operation's own arguments: the path parameter first
void client.shapes.listGithubAll({ per_page: 2 });
// @ts-expect-error a required query stays required
void client.shapes.listShortPagesAll();
// @ts-expect-error an undeclared query parameter is refused
void client.shapes.listCursorAll({ limit: 2, page: 3 });
`;

const FIGMA_TYPES = `import { expectTypeOf } from 'vitest';
import { paginate } from '@paygate/client/runtime/paginate.js';
import type { components, FigmaClient } from './client/index.js';

type ItemOf<F> = F extends (...args: never[]) => AsyncIterableIterator<infer T> ? T : never;
expectTypeOf<ItemOf<FigmaClient['webhooks']['getWebhooksAll']>>().toEqualTypeOf<components['schemas']['WebhookV2']>();
expectTypeOf<ItemOf<FigmaClient['files']['getVersionsAll']>>().toEqualTypeOf<components['schemas']['Version']>();
expectTypeOf<ItemOf<FigmaClient['components']['getTeamAll']>>().toEqualTypeOf<components['schemas']['PublishedComponent']>();

declare const figma: FigmaClient;
// @ts-expect-error GET /v2/teams/{team_id}/webhooks declares no page (only \`webhooks\`): no helper
void figma.webhooks.getTeamAll;
// @ts-expect-error Paygate's paginate() does not take Figma's {webhooks, pagination} page: the type says so before run time
void paginate(() => figma.webhooks.getWebhooks());
`;

/** Requests the loopback server got, by route: `<path>?<query>` as sent. */
const seen = new Map<string, string[]>();
let base = '';

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): undefined {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
  return undefined;
}

/** The page index a shape's position names (0, 1, 2). */
const at = (value: string | null, order: (string | null)[]): number => Math.max(0, order.indexOf(value));

function route(req: IncomingMessage, res: ServerResponse): undefined {
  const url = new URL(req.url ?? '/', base);
  const q = url.searchParams;
  const key = url.pathname.startsWith('/github/') ? '/github' : url.pathname;
  seen.set(key, [...(seen.get(key) ?? []), `${url.pathname}${url.search}`]);
  switch (key) {
    case '/cursor': {
      if (q.get('limit') === '99' && q.get('cursor') === 'c1') return json(res, 400, { message: 'limit is too large for page 2' });
      const i = at(q.get('cursor'), [null, 'c1', 'c2']);
      return json(res, 200, { items: PAGE[i], meta: { next_cursor: i < 2 ? `c${i + 1}` : null } });
    }
    case '/stripe': {
      const i = at(q.get('starting_after'), [null, 'i2', 'i4']);
      return json(res, 200, { object: 'list', data: PAGE[i], has_more: i < 2 });
    }
    case '/github': {
      const page = Number(q.get('page') ?? '1');
      const link = (p: number, rel: string) => `<${base}${url.pathname}?per_page=${q.get('per_page')}&page=${p}>; rel="${rel}"`;
      const links = page < 3 ? `${link(page + 1, 'next')}, ${link(3, 'last')}` : link(1, 'first');
      return json(res, 200, PAGE[page - 1], { Link: links });
    }
    case '/hal': {
      const i = at(q.get('since'), [null, 'i2', 'i4']);
      const next = i < 2 ? { next: { href: `/hal?size=2&since=${PAGE[i]!.at(-1)!.id}` } } : {};
      res.writeHead(200, { 'content-type': 'application/hal+json' });
      return void res.end(
        JSON.stringify({ _embedded: { items: PAGE[i] }, _links: { self: { href: url.pathname + url.search }, ...next } }),
      );
    }
    case '/offset': {
      const offset = Number(q.get('offset') ?? '0');
      return json(res, 200, { results: ITEMS.slice(offset, offset + Number(q.get('limit'))), total: ITEMS.length });
    }
    case '/page': {
      const page = Number(q.get('page'));
      return json(res, 200, { data: PAGE[page - 1] ?? [], pagination: { total_pages: 3 } });
    }
    case '/short-pages': {
      const page = Number(q.get('page'));
      return json(
        res,
        200,
        (PAGE[page - 1] ?? []).map((item) => ({ label: item.name })),
      );
    }
    case '/declared': {
      const i = at(q.get('from'), [null, 'f1', 'f2']);
      return json(res, 200, { page: { entries: PAGE[i], continue_from: `f${i + 1}`, more: i < 2 } });
    }
    case '/v2/webhooks': {
      // Figma's GET /v2/webhooks: {webhooks, pagination: {prev_page, next_page}}, next_page a URL carrying the cursor
      const i = at(q.get('cursor'), [null, 'w1', 'w2']);
      const hooks = PAGE[i]!.map((item) => ({ id: item.id, team_id: 'team_1', event_type: 'FILE_UPDATE', status: 'ACTIVE' }));
      const next = i < 2 ? { next_page: `${base}/v2/webhooks?plan_api_id=${q.get('plan_api_id')}&cursor=w${i + 1}` } : {};
      return json(res, 200, { webhooks: hooks, pagination: { prev_page: `${base}/v2/webhooks?cursor=prev`, ...next } });
    }
    case '/v2/teams/team_1/webhooks':
      return json(res, 200, { webhooks: [] });
    default:
      return json(res, 404, { message: 'no such route' });
  }
}

/**
 * Generates and compiles `openapi` with its type tests, then keeps the directory until `afterAll` while the tests
 * import the generated client from it.
 */
function compiled(openapi: string, label: string, typeTests: string) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let ready!: (value: { dir: string; tsc: { code: number; diagnostics: string } }) => void;
  const dir = new Promise<{ dir: string; tsc: { code: number; diagnostics: string } }>((resolve) => (ready = resolve));
  const outcome: Promise<CompileOutcome> = generateAndCompile({
    openapi,
    label,
    targets: ['contract', 'client'],
    extraFiles: { 'generated/page-types.ts': typeTests },
    use: (d, { code, diagnostics }) => {
      ready({ dir: d, tsc: { code, diagnostics } });
      return held;
    },
  });
  outcome.catch(() => undefined);
  return { dir: Promise.race([dir, outcome.then(() => Promise.reject(new Error('compiled without use()')))]), release, outcome };
}

const pagesBuild = compiled('test/fixtures/pages/openapi.yaml', 'pages', PAGES_TYPES);
const figmaBuild = compiled('test/fixtures/realworld/figma/openapi.yaml', 'figma-pages', FIGMA_TYPES);
let server: Server;

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  pagesBuild.release();
  figmaBuild.release();
  await Promise.allSettled([pagesBuild.outcome, figmaBuild.outcome]);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function collect<T>(iterator: AsyncIterableIterator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterator) out.push(item);
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: the generated module is imported at run time from a temporary directory; its types are checked by its own strict compile above
type Loaded = any;

describe('every page shape, generated, compiled strictly and walked over three loopback pages', () => {
  let client: Loaded;

  beforeAll(async () => {
    const { dir, tsc } = await pagesBuild.dir;
    expect(tsc.diagnostics).toBe('');
    expect(tsc.code).toBe(0);
    const mod = await import(pathToFileURL(path.join(dir, 'generated/client/index.ts')).href);
    client = mod.createPagesClient({ baseUrl: base });
  }, 300_000);

  it.each<[string, (c: Loaded) => AsyncIterableIterator<unknown>, string, string[]]>([
    [
      'cursor in the body (meta.next_cursor -> cursor)',
      (c) => c.shapes.listCursorAll({ limit: 2 }),
      '/cursor',
      ['/cursor?limit=2', '/cursor?limit=2&cursor=c1', '/cursor?limit=2&cursor=c2'],
    ],
    [
      "the last item's id (Stripe: starting_after while has_more)",
      (c) => c.shapes.listStripeAll({ limit: 2 }),
      '/stripe',
      ['/stripe?limit=2', '/stripe?limit=2&starting_after=i2', '/stripe?limit=2&starting_after=i4'],
    ],
    [
      'an RFC 8288 Link header (GitHub), the path parameter kept',
      (c) => c.shapes.listGithubAll('octo', { per_page: 2 }),
      '/github',
      ['/github/octo?per_page=2', '/github/octo?per_page=2&page=2', '/github/octo?per_page=2&page=3'],
    ],
    [
      'a next URL at depth (HAL _links.next.href)',
      (c) => c.shapes.listHalAll({ size: 2 }),
      '/hal',
      ['/hal?size=2', '/hal?size=2&since=i2', '/hal?size=2&since=i4'],
    ],
    [
      'offset/limit up to the total',
      (c) => c.shapes.listOffsetAll({ limit: 2 }),
      '/offset',
      ['/offset?limit=2', '/offset?limit=2&offset=2', '/offset?limit=2&offset=4'],
    ],
    [
      'page/per_page up to the page count',
      (c) => c.shapes.listPageAll({ per_page: 2 }),
      '/page',
      ['/page?per_page=2&page=1', '/page?per_page=2&page=2', '/page?per_page=2&page=3'],
    ],
    [
      'x-pagination (a shape no detector knows)',
      (c) => c.shapes.listDeclaredAll(),
      '/declared',
      ['/declared', '/declared?from=f1', '/declared?from=f2'],
    ],
  ])('%s', async (_name, walk, route, requests) => {
    seen.delete(route);
    expect(await collect(walk(client))).toEqual(ITEMS);
    expect(seen.get(route)).toEqual(requests);
  });

  it('page/page_size without a total ends at the short page (no fourth request)', async () => {
    seen.delete('/short-pages');
    expect(await collect(client.shapes.listShortPagesAll({ page: 1, page_size: 2 }))).toEqual(ITEMS.map((i) => ({ label: i.name })));
    expect(seen.get('/short-pages')).toHaveLength(3);
  });

  it('is lazy: one page per request, as the caller iterates', async () => {
    seen.delete('/cursor');
    const iterator = client.shapes.listCursorAll({ limit: 2 });
    expect((await iterator.next()).value).toEqual(ITEMS[0]);
    expect(seen.get('/cursor')).toHaveLength(1);
    await iterator.return?.();
  });

  it("throws PaygateApiError with the API's own error body when a page fails", async () => {
    const got: unknown[] = [];
    let caught: unknown;
    try {
      for await (const item of client.shapes.listCursorAll({ limit: 99 })) got.push(item);
    } catch (error) {
      caught = error;
    }
    expect(got).toEqual(PAGE[0]);
    expect(caught).toBeInstanceOf(PaygateApiError);
    expect(caught).toMatchObject({ status: 400, body: { message: 'limit is too large for page 2' } });
  });

  it('a list without a page shape has no helper', () => {
    expect(client.shapes.listPlain).toBeTypeOf('function');
    expect(client.shapes.listPlainAll).toBeUndefined();
  });
});

describe("Figma's REST API (3.1, written by the vendor): {webhooks, pagination: {next_page}} end to end", () => {
  let figma: Loaded;

  beforeAll(async () => {
    const { dir, tsc } = await figmaBuild.dir;
    expect(tsc.diagnostics).toBe('');
    expect(tsc.code).toBe(0);
    const mod = await import(pathToFileURL(path.join(dir, 'generated/client/index.ts')).href);
    figma = mod.createFigmaClient({ baseUrl: base, auth: { PersonalAccessToken: 'figd_test' } });
  }, 300_000);

  it('GET /v2/webhooks: getWebhooksAll follows pagination.next_page (a URL carrying the cursor) over three pages', async () => {
    seen.delete('/v2/webhooks');
    const hooks = await collect<{ id: string }>(figma.webhooks.getWebhooksAll({ plan_api_id: 'plan_1' }));
    expect(hooks.map((h) => h.id)).toEqual(ITEMS.map((i) => i.id));
    expect(seen.get('/v2/webhooks')).toEqual([
      '/v2/webhooks?plan_api_id=plan_1',
      '/v2/webhooks?plan_api_id=plan_1&cursor=w1',
      '/v2/webhooks?plan_api_id=plan_1&cursor=w2',
    ]);
  });

  it('GET /v2/teams/{team_id}/webhooks declares no page: no helper, and paginate() on it is a PaginationError, not a TypeError', async () => {
    expect(figma.webhooks.getTeamAll).toBeUndefined();
    const result = await figma.webhooks.getTeam('team_1');
    expect(result).toMatchObject({ ok: true, data: { webhooks: [] } });
    await expect(collect(paginate(() => figma.webhooks.getTeam('team_1')))).rejects.toBeInstanceOf(PaginationError);
  });
});

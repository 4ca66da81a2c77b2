/**
 * Routing through the one dispatcher (D141 one dispatch middleware with find-my-way) stays exact on any spec: every declared path and method reaches its
 * operation, the other spelling of a path (trailing slash, case) is 404, an undeclared method on a declared path is 405
 * with `Allow` listing the declared ones. The table is built from each spec's own route table (Paygate's and Shelf's).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocument as paygateDocument, operations as paygateOperations, securitySchemes as paygateSchemes } from '@paygate/contract';
import { requestValidators as paygateValidators } from '../generated/request-validators.gen.js';
import { apiDocument as shelfDocument } from '../../../../test/fixtures/shelf/generated/contract/api-document.gen.js';
import {
  operations as shelfOperations,
  securitySchemes as shelfSchemes,
} from '../../../../test/fixtures/shelf/generated/contract/operations.gen.js';
import { requestValidators as shelfValidators } from '../../../../test/fixtures/shelf/generated/server/request-validators.gen.js';
import { createApiApp, type ApiSpec } from './app.js';
import type { OperationRoute } from './types.js';

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

interface Row {
  label: string;
  method: string;
  url: string;
  /** The operation expected to answer, or the status of an answer no operation gives. */
  expect: { operationId: string } | { status: 404 } | { status: 405; allow: string };
}

/** A concrete URL for a template (every parameter `x1`). */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'x1');

function table(operations: readonly OperationRoute[]): Row[] {
  const byPath = new Map<string, OperationRoute[]>();
  for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  const declared = new Set([...byPath.keys()].map(concrete));
  const rows: Row[] = [];
  for (const [path, ops] of byPath) {
    const url = concrete(path);
    for (const op of ops)
      rows.push({
        label: `${op.method.toUpperCase()} ${path} -> ${op.operationId}`,
        method: op.method.toUpperCase(),
        url,
        expect: { operationId: op.operationId },
      });
    const method = ops[0]!.method.toUpperCase();
    const slash = url.endsWith('/') ? url.slice(0, -1) : `${url}/`;
    if (slash !== '' && !declared.has(slash))
      rows.push({ label: `${method} ${slash} (other trailing slash) -> 404`, method, url: slash, expect: { status: 404 } });
    const upper = url.toUpperCase();
    if (upper !== url && !declared.has(upper))
      rows.push({ label: `${method} ${upper} (other case) -> 404`, method, url: upper, expect: { status: 404 } });
    const allow = ops.map((op) => op.method.toUpperCase()).join(', ');
    for (const other of METHODS.filter((m) => !ops.some((op) => op.method.toUpperCase() === m))) {
      rows.push({ label: `${other} ${path} (undeclared) -> 405 Allow: ${allow}`, method: other, url, expect: { status: 405, allow } });
    }
  }
  return rows;
}

/** Every operation answers 204 naming itself; the scaffold's own errors name the operation they were raised in. */
async function serve(spec: ApiSpec): Promise<{ base: string; server: Server }> {
  const handlers = Object.fromEntries(
    spec.operations.map((op) => [op.operationId, async () => ({ status: 204, headers: { 'x-operation': op.operationId } })]),
  );
  const app = createApiApp(spec, {
    handlers,
    authenticate: () => ({}),
    validateResponses: false,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    errorMapper: (_error, { operation, shaped }) =>
      ({ ...shaped, headers: { ...shaped.headers, 'x-operation': operation?.operationId ?? '' } }) as never,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe.each([
  [
    'Paygate',
    { apiDocument: paygateDocument, operations: paygateOperations, securitySchemes: paygateSchemes, requestValidators: paygateValidators },
  ],
  [
    'Shelf (non-Paygate)',
    { apiDocument: shelfDocument, operations: shelfOperations, securitySchemes: shelfSchemes, requestValidators: shelfValidators },
  ],
] as [string, ApiSpec][])('one dispatch per request, exact routing: %s', (_name, spec) => {
  let running: { base: string; server: Server };
  beforeAll(async () => {
    running = await serve(spec);
  });
  afterAll(() => new Promise<void>((resolve) => running.server.close(() => resolve())));

  it.each(table(spec.operations).map((row) => [row.label, row] as const))('%s', async (_label, row) => {
    const res = await fetch(`${running.base}${row.url}`, { method: row.method });
    await res.arrayBuffer();
    if ('operationId' in row.expect) {
      // answered by the operation itself, or by the scaffold on its behalf (400 for the placeholder values): never 404/405
      expect(res.headers.get('x-operation'), `status ${res.status}`).toBe(row.expect.operationId);
      expect([404, 405]).not.toContain(res.status);
    } else {
      expect(res.status).toBe(row.expect.status);
      expect(res.headers.get('x-operation') ?? '').toBe('');
      if (row.expect.status === 405) expect(res.headers.get('allow')).toBe(row.expect.allow);
    }
  });
});

describe('production answers (validateResponses: false): compiled from the spec, one write (D141, D142)', () => {
  it('Shelf: an undeclared property a handler returns never leaves the server; Content-Type and Content-Length set', async () => {
    const spec = {
      apiDocument: shelfDocument,
      operations: shelfOperations,
      securitySchemes: shelfSchemes,
      requestValidators: shelfValidators,
    };
    const book = { kind: 'book', id: 'itm_00000001', title: 'Dune', metadata: { shelf: 3 } };
    const handlers = Object.fromEntries(
      spec.operations.map((op) => [op.operationId, async () => ({ status: 200, body: { ...book, password_hash: 'never sent' } })]),
    );
    const app = createApiApp(spec, {
      handlers,
      authenticate: () => ({}),
      validateResponses: false,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/items/itm_00000001`);
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(JSON.parse(text)).toEqual(book);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
      expect(res.headers.get('etag')).toBeNull();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/**
 * Every path template real specs use (D410 every path template real specs use is routed), through the dispatcher alone: each row a request and the operation
 * (with its bound parameters) or the status it gets. The templates are the directory's spellings: Google's custom
 * methods, AWS's fragments (by query key and by header value), segments holding several parameters or text around
 * one, and query strings written into the template.
 */
describe('dispatch of every template spelling (D410)', () => {
  const op = (
    operationId: string,
    method: string,
    path: string,
    headerParameters: string[] = [],
    requestMediaTypes: string[] = [],
  ): OperationRoute => ({ operationId, method, path, headerParameters, requestMediaTypes }) as unknown as OperationRoute;
  const aws = [
    { name: 'Operation', in: 'query' },
    { name: 'Action', in: 'query' },
  ];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const routes: {
    operation: OperationRoute;
    parameters?: { name: string; in: string }[];
    acceptsPath?: (params: Record<string, string>) => boolean;
    acceptsQuery?: (query: URLSearchParams) => boolean;
  }[] = [
    { operation: op('getOperation', 'get', '/v1/{name}') },
    { operation: op('cancelOperation', 'post', '/v1/{name}:cancel') },
    { operation: op('waitOperation', 'post', '/v1/{name}:wait') },
    { operation: op('listTags', 'get', '/tags/{resourceArn}') },
    { operation: op('tagResource', 'post', '/tags/{resourceArn}') },
    { operation: op('untagResource', 'delete', '/tags/{resourceArn}#tagKeys'), parameters: [{ name: 'tagKeys', in: 'query' }] },
    { operation: op('createThing', 'post', '/#X-Amz-Target=Svc.CreateThing', ['x-amz-target']) },
    { operation: op('deleteThing', 'post', '/#X-Amz-Target=Svc.DeleteThing', ['x-amz-target']) },
    { operation: op('near', 'get', '/@{lat},{lon}') },
    { operation: op('getDoc', 'get', "/docs('{key}')") },
    { operation: op('getRecord', 'get', '/records/{id}.{format}') },
    { operation: op('getRecordJson', 'get', '/records/{id}.json') },
    { operation: op('searchArticles', 'get', '/search/articles?query={query}'), parameters: [{ name: 'query', in: 'query' }] },
    { operation: op('ridesPage', 'get', '/rides?page={page}&per_page={per_page}') },
    { operation: op('listBooks', 'get', '/items?kind=book') },
    { operation: op('listFilms', 'get', '/items?kind=film') },
    { operation: op('listItems', 'get', '/items') },
    { operation: op('getObject', 'get', '/objects/{key}') },
    { operation: op('cancelJob', 'get', '/#Operation=CancelJob&Action=CancelJob'), parameters: aws },
    { operation: op('createJob', 'get', '/#Operation=CreateJob&Action=CreateJob'), parameters: aws },
    { operation: op('headObject', 'head', '/objects/{key}') },
    // GitLab: a literal path with one method beside a template with others
    { operation: op('putAsana', 'put', '/projects/{id}/services/asana') },
    { operation: op('getService', 'get', '/projects/{id}/services/{slug}') },
    { operation: op('deleteService', 'delete', '/projects/{id}/services/{slug}') },
    // Azure: templates told apart by a label only (`#overload=...`), and by their request bodies
    { operation: op('addImage', 'post', '/lists/{listId}/images') },
    { operation: op('addImageUrl', 'post', '/lists/{listId}/images#overload=url', [], ['application/json']) },
    { operation: op('addImageFile', 'post', '/lists/{listId}/images#overload=stream', [], ['image/png', 'image/jpeg']) },
    // D469: identical templates told apart by their parameters' schemas, and a static segment beside a parameter
    {
      operation: op('getAttachmentById', 'get', '/notes/{noteId}/attachments/{attachmentId}'),
      acceptsPath: (p) => uuid.test(p['attachmentId']!),
    },
    { operation: op('getAttachmentByName', 'get', '/notes/{noteId}/attachments/{fileName}') },
    { operation: op('getFolderById', 'get', '/folders/{folderId}'), acceptsPath: (p) => /^\d+$/.test(p['folderId']!) },
    { operation: op('getFolderByPath', 'get', '/folders/{folderPath}'), acceptsPath: (p) => /^[a-z]+$/.test(p['folderPath']!) },
    { operation: op('getZone', 'get', '/sites/{siteId}/zones/{zoneId}'), acceptsPath: (p) => uuid.test(p['zoneId']!) },
    { operation: op('deleteZone', 'delete', '/sites/{siteId}/zones/{zoneId}'), acceptsPath: (p) => uuid.test(p['zoneId']!) },
    // D469: identical templates told apart by the query keys each declares and requires
    {
      operation: op('getJob', 'get', '/jobs/{jobName}'),
      acceptsQuery: (q) => q.has('projectId') && [...q.keys()].every((k) => k === 'projectId'),
    },
    {
      operation: op('listRuns', 'get', '/jobs/{name}'),
      acceptsQuery: (q) => q.has('filter') && [...q.keys()].every((k) => k === 'filter'),
    },
    {
      operation: op('countVisits', 'get', '/sites/{siteId}/{zoneType}/count'),
      acceptsPath: (p) => ['zones', 'beacons'].includes(p['zoneType']!),
    },
  ];
  const ID = '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71';
  /** `operationId` beside a status: the operation that answered (read from a header: a HEAD answer has no body). */
  type Expect = { operationId: string; params: Record<string, string> } | { status: number; operationId?: string };
  const rows: [string, string, string, Record<string, string>, Expect][] = [
    ['Google: plain', 'GET', '/v1/operations%2Fabc', {}, { operationId: 'getOperation', params: { name: 'operations/abc' } }],
    ['Google: custom verb', 'POST', '/v1/abc:cancel', {}, { operationId: 'cancelOperation', params: { name: 'abc' } }],
    ['Google: another verb', 'POST', '/v1/a:b:wait', {}, { operationId: 'waitOperation', params: { name: 'a:b' } }],
    ['Google: an undeclared verb', 'POST', '/v1/abc:undo', {}, { status: 405 }],
    ['AWS: the plain template', 'GET', '/tags/arn%3Aaws%3Ax', {}, { operationId: 'listTags', params: { resourceArn: 'arn:aws:x' } }],
    ['AWS: a fragment by query', 'DELETE', '/tags/arn1?tagKeys=a', {}, { operationId: 'untagResource', params: { resourceArn: 'arn1' } }],
    // one template for the method: chosen whatever is sent; its own validation answers the missing key (declared 400)
    ['AWS: a fragment, key missing', 'DELETE', '/tags/arn1', {}, { operationId: 'untagResource', params: { resourceArn: 'arn1' } }],
    ['AWS: 405 lists every method', 'PUT', '/tags/arn1', {}, { status: 405 }],
    ['AWS: a fragment by header', 'POST', '/', { 'x-amz-target': 'Svc.DeleteThing' }, { operationId: 'deleteThing', params: {} }],
    ['AWS: the other header value', 'POST', '/', { 'x-amz-target': 'Svc.CreateThing' }, { operationId: 'createThing', params: {} }],
    ['AWS: no header: 400', 'POST', '/', {}, { status: 400 }],
    ['AWS: an unknown value: 400', 'POST', '/', { 'x-amz-target': 'Svc.Other' }, { status: 400 }],
    ['several parameters in a segment', 'GET', '/@51.5,-0.12', {}, { operationId: 'near', params: { lat: '51.5', lon: '-0.12' } }],
    ['text around a parameter', 'GET', "/docs('k1')", {}, { operationId: 'getDoc', params: { key: 'k1' } }],
    ['{id}.{format}', 'GET', '/records/r1.xml', {}, { operationId: 'getRecord', params: { id: 'r1', format: 'xml' } }],
    ['{id}.json beside {id}.{format}', 'GET', '/records/r1.json', {}, { operationId: 'getRecordJson', params: { id: 'r1' } }],
    ['a query string in the template', 'GET', '/search/articles?query=x', {}, { operationId: 'searchArticles', params: {} }],
    [
      'query-part parameters bound',
      'GET',
      '/rides?page=2&per_page=10',
      {},
      { operationId: 'ridesPage', params: { page: '2', per_page: '10' } },
    ],
    ['a fixed query value', 'GET', '/items?kind=film', {}, { operationId: 'listFilms', params: {} }],
    // `kind` names the other templates' key with a value none has, and listItems does not declare it: 400, not listItems
    ['a value no template has', 'GET', '/items?kind=other', {}, { status: 400 }],
    ['the template without a query part', 'GET', '/items?limit=5', {}, { operationId: 'listItems', params: {} }],
    ['unknown path', 'GET', '/v2/x', {}, { status: 404 }],
    // HEAD: a declared HEAD operation answers it (headers, no body); a path that declares GET only answers 405 with
    // `Allow` (docs/request-validation.md, rule 1: only declared operations are served)
    ['a declared HEAD beside GET', 'HEAD', '/objects/k1', {}, { status: 200, operationId: 'headObject' }],
    ['GET beside a declared HEAD', 'GET', '/objects/k1', {}, { operationId: 'getObject', params: { key: 'k1' } }],
    ['HEAD on a path that declares GET only', 'HEAD', '/records/r1.xml', {}, { status: 405 }],
    ['a literal path: its method', 'PUT', '/projects/1/services/asana', {}, { operationId: 'putAsana', params: { id: '1' } }],
    [
      "a literal path: another method is the template's",
      'GET',
      '/projects/1/services/asana',
      {},
      { operationId: 'getService', params: { id: '1', slug: 'asana' } },
    ],
    ['a literal path: a method neither declares', 'PATCH', '/projects/1/services/asana', {}, { status: 405 }],
    ['labels only: no body', 'POST', '/lists/l1/images', {}, { operationId: 'addImage', params: { listId: 'l1' } }],
    [
      'labels only: a JSON body',
      'POST',
      '/lists/l1/images',
      { 'content-type': 'application/json' },
      { operationId: 'addImageUrl', params: { listId: 'l1' } },
    ],
    [
      'labels only: an image',
      'POST',
      '/lists/l1/images',
      { 'content-type': 'image/png' },
      { operationId: 'addImageFile', params: { listId: 'l1' } },
    ],
    [
      'labels only: a body none takes (the first)',
      'POST',
      '/lists/l1/images',
      { 'content-type': 'text/plain' },
      { operationId: 'addImage', params: { listId: 'l1' } },
    ],
    [
      'identical templates: the one whose parameters accept the value',
      'GET',
      `/notes/n1/attachments/${ID}`,
      {},
      { operationId: 'getAttachmentById', params: { noteId: 'n1', attachmentId: ID } },
    ],
    [
      'identical templates: the next one when the first refuses it',
      'GET',
      '/notes/n1/attachments/report.pdf',
      {},
      { operationId: 'getAttachmentByName', params: { noteId: 'n1', fileName: 'report.pdf' } },
    ],
    ['identical templates: digits', 'GET', '/folders/42', {}, { operationId: 'getFolderById', params: { folderId: '42' } }],
    ['identical templates: letters', 'GET', '/folders/docs', {}, { operationId: 'getFolderByPath', params: { folderPath: 'docs' } }],
    // none accepts the value: the first template, whose own validation answers 400
    ['identical templates: none accepts', 'GET', '/folders/a-1', {}, { operationId: 'getFolderById', params: { folderId: 'a-1' } }],
    [
      'a static segment: its template',
      'GET',
      `/sites/s1/zones/${ID}`,
      {},
      { operationId: 'getZone', params: { siteId: 's1', zoneId: ID } },
    ],
    [
      'a static segment refused: the parameter template',
      'GET',
      '/sites/s1/zones/count',
      {},
      { operationId: 'countVisits', params: { siteId: 's1', zoneType: 'zones' } },
    ],
    [
      'identical templates: the one requiring the key sent',
      'GET',
      '/jobs/j1?projectId=p',
      {},
      { operationId: 'getJob', params: { jobName: 'j1' } },
    ],
    ['identical templates: the other key', 'GET', '/jobs/j1?filter=f', {}, { operationId: 'listRuns', params: { name: 'j1' } }],
    ['identical templates: no template takes the keys', 'GET', '/jobs/j1', {}, { operationId: 'getJob', params: { jobName: 'j1' } }],
    [
      'another route lacks the method',
      'DELETE',
      '/sites/s1/zones/count',
      {},
      { operationId: 'deleteZone', params: { siteId: 's1', zoneId: 'count' } },
    ],
  ];

  let base: string;
  let server: Server;
  beforeAll(async () => {
    const { createDispatcher } = await import('./dispatch.js');
    const express = (await import('express')).default;
    const app = express();
    app.use(
      createDispatcher(
        routes.map((route) => ({
          ...route,
          steps: [
            (req, res) =>
              void res
                .set('x-operation', route.operation.operationId)
                .json({ operationId: route.operation.operationId, params: req.params }),
          ],
        })),
      ),
    );
    app.use((_req: unknown, res: import('express').Response) => void res.status(404).end());
    app.use(
      (error: { status?: number; errors?: unknown }, _req: unknown, res: import('express').Response, _next: unknown) =>
        void res.status(error.status ?? 500).json({ errors: error.errors ?? [] }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // the parameter the request sent no template's value of comes first: the one message names it (D467 validation answers name the field in the best string the schema offers)
  it.each([
    ['Action wrong', '/?Operation=CancelJob&Action=Nope', ['/query/Action', '/query/Operation']],
    ['Operation wrong', '/?Operation=Nope&Action=CancelJob', ['/query/Operation', '/query/Action']],
    ['both missing: in template order', '/', ['/query/Operation', '/query/Action']],
  ])('no template chosen, %s: the unmet parameter first', async (_label, url, paths) => {
    const res = await fetch(`${base}${url}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(paths);
  });

  it.each(rows)('%s: %s %s', async (_label, method, url, headers, expected) => {
    const res = await fetch(`${base}${url}`, { method, headers });
    if ('status' in expected) {
      const body = await res.text();
      expect(res.status).toBe(expected.status);
      if (method === 'HEAD') expect(body).toBe('');
      if (expected.operationId !== undefined) expect(res.headers.get('x-operation')).toBe(expected.operationId);
    } else {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(expected);
    }
  });
});

describe('templates only their bodies or query keys tell apart (D485, "Operations told apart by their bodies dispatched by body schema")', () => {
  const op = (
    operationId: string,
    method: string,
    path: string,
    requestMediaTypes: string[] = [],
    security: unknown[] = [],
  ): OperationRoute => ({ operationId, method, path, headerParameters: [], requestMediaTypes, security }) as unknown as OperationRoute;
  type Body = Record<string, unknown>;
  const requires =
    (...names: string[]) =>
    (req: import('express').Request): boolean =>
      typeof req.body === 'object' && req.body !== null && names.every((n) => Object.hasOwn(req.body as Body, n));
  const fit = (known: string[], required: string[]) => (q: URLSearchParams) => ({
    unknown: [...new Set(q.keys())].filter((k) => !known.includes(k)).length,
    missing: required.filter((k) => !q.has(k)).length,
  });
  const accepts = (known: string[], required: string[]) => (q: URLSearchParams) => {
    const f = fit(known, required)(q);
    return f.unknown === 0 && f.missing === 0;
  };
  const json = ['application/json'];
  const routes: {
    operation: OperationRoute;
    bodyAt?: number;
    acceptsBody?: (req: import('express').Request) => boolean;
    acceptsQuery?: (q: URLSearchParams) => boolean;
    queryFit?: (q: URLSearchParams) => { unknown: number; missing: number };
  }[] = [
    // Azure Face: a fragment label (one route), both JSON, different required properties
    { operation: op('verifyFaceToFace', 'post', '/verify', json), bodyAt: 1, acceptsBody: requires('faceId1', 'faceId2') },
    {
      operation: op('verifyFaceToPerson', 'post', '/verify#overload=person', json),
      bodyAt: 1,
      acceptsBody: requires('faceId', 'personId'),
    },
    // Reverb: identical templates under other parameter names
    { operation: op('counterOffer', 'post', '/conversations/{conversation_id}/offer', json), bodyAt: 1, acceptsBody: requires('price') },
    { operation: op('acceptOffer', 'post', '/conversations/{id}/offer', json), bodyAt: 1, acceptsBody: requires('offer_items') },
    // guarded differently: the request was authenticated for the first only, so it is not handed over
    { operation: op('signedImport', 'post', '/imports', json, [{ key: [] }]), bodyAt: 1, acceptsBody: requires('signed') },
    { operation: op('openImport', 'post', '/imports#open', json), bodyAt: 1, acceptsBody: requires('open') },
    // Box: a label-less template and a labelled one requiring `fields`
    { operation: op('getLink', 'get', '/links/{id}'), acceptsQuery: accepts([], []), queryFit: fit([], []) },
    {
      operation: op('getSharedLink', 'get', '/links/{id}#get_shared_link'),
      acceptsQuery: accepts(['fields'], ['fields']),
      queryFit: fit(['fields'], ['fields']),
    },
  ];
  const rows: [string, string, string, Body | undefined, { operationId: string; params: Record<string, string>; heads: number }][] = [
    ['a body for the first', 'POST', '/verify', { faceId1: 'a', faceId2: 'b' }, { operationId: 'verifyFaceToFace', params: {}, heads: 1 }],
    [
      'a body for the labelled one',
      'POST',
      '/verify',
      { faceId: 'a', personId: 'p' },
      { operationId: 'verifyFaceToPerson', params: {}, heads: 1 },
    ],
    ['a body for none: the first', 'POST', '/verify', { other: 1 }, { operationId: 'verifyFaceToFace', params: {}, heads: 1 }],
    [
      'identical templates: the second one, under its own parameter names',
      'POST',
      '/conversations/c1/offer',
      { offer_items: [] },
      { operationId: 'acceptOffer', params: { id: 'c1' }, heads: 1 },
    ],
    [
      'identical templates: the first one',
      'POST',
      '/conversations/c1/offer',
      { price: 1 },
      { operationId: 'counterOffer', params: { conversation_id: 'c1' }, heads: 1 },
    ],
    ['another security: never handed over', 'POST', '/imports', { open: true }, { operationId: 'signedImport', params: {}, heads: 1 }],
    [
      'no template takes every query key: the one knowing more of them',
      'GET',
      '/links/l1?fields=a&unknown=1',
      undefined,
      { operationId: 'getSharedLink', params: { id: 'l1' }, heads: 0 },
    ],
    ['the keys one takes', 'GET', '/links/l1?fields=a', undefined, { operationId: 'getSharedLink', params: { id: 'l1' }, heads: 0 }],
    [
      'none knows more: the first, whose validation names the key',
      'GET',
      '/links/l1?unknown=1',
      undefined,
      { operationId: 'getLink', params: { id: 'l1' }, heads: 0 },
    ],
  ];

  let base: string;
  let server: Server;
  beforeAll(async () => {
    const { createDispatcher } = await import('./dispatch.js');
    const express = (await import('express')).default;
    const parse = express.json();
    const app = express();
    app.use(
      createDispatcher(
        routes.map((route) => ({
          ...route,
          steps: [
            ...(route.bodyAt === undefined
              ? []
              : [
                  (req: import('express').Request, res: import('express').Response, next: import('express').NextFunction) => {
                    res.locals.heads = Number(res.locals.heads ?? 0) + 1;
                    parse(req, res, next);
                  },
                ]),
            (req: import('express').Request, res: import('express').Response) =>
              void res.json({ operationId: res.locals.operation.operationId, params: req.params, heads: Number(res.locals.heads ?? 0) }),
          ],
        })),
      ),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each(rows)('%s: %s %s', async (_label, method, url, body, expected) => {
    const res = await fetch(`${base}${url}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);
  });
});

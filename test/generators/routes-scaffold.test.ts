/**
 * Every path template spelling real specs use (D410 every path template real specs use is routed), served by `createApiApp` from a small non-Paygate spec
 * (test/fixtures/routes30): a Google custom method beside its resource, AWS fragment-qualified templates chosen by a
 * query key and by a header value, a segment holding two parameters, text around a parameter, and query strings written
 * into the path, two adjacent parameters told apart by the second's enum. Each kind twice: the scaffold with no handlers (501 for the operation the request names, the declared
 * 400 when it names none) and handlers receiving the right parameters, called through the generated client, whose URLs
 * are the ones a client must send.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../packages/server/src/runtime/app.js';
import type { Logger } from '../../packages/server/src/runtime/types.js';
import { createRouteSpellingsClient } from '../fixtures/routes30/generated/client/index.js';
import * as contract from '../fixtures/routes30/generated/contract/index.js';
import type { Handlers } from '../fixtures/routes30/generated/server/handlers.gen.js';
import { requestValidators } from '../fixtures/routes30/generated/server/request-validators.gen.js';

const spec = { ...contract, requestValidators };
const warnings: string[] = [];
const logger: Logger = { info: () => undefined, warn: (_f, m) => void warnings.push(m ?? ''), error: () => undefined };
const seen: { operationId?: string; params?: unknown; query?: unknown; body?: unknown }[] = [];

/** Each handler records what it received and answers 200 naming itself (204 for untagResource). */
const record =
  (operationId: string) =>
  async (req: { params: unknown; query: unknown; body?: unknown }): Promise<never> => {
    seen.push({ operationId, params: req.params, query: req.query, body: req.body });
    return (operationId === 'untagResource' ? { status: 204 } : { status: 200, body: { id: operationId } }) as never;
  };
const handlers = Object.fromEntries(spec.operations.map((op) => [op.operationId, record(op.operationId)])) as unknown as Handlers;

const servers: Server[] = [];
let empty: string;
let served: string;

async function listen(app: ReturnType<typeof createApiApp>): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  empty = await listen(createApiApp<Handlers>(spec, { handlers: {}, notImplemented: 'respond', logger, validateResponses: true }));
  served = await listen(createApiApp<Handlers>(spec, { handlers, logger, validateResponses: true }));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, raw: text, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

const target = (op: string) => ({ 'x-amz-target': `Things.${op}` });

describe('the scaffold with no handlers answers every spelling: 501 naming the operation (D410)', () => {
  it.each([
    ['Google resource', 'GET', '/v1/operations%2Fop1', {}, undefined, 'getOperation'],
    ['Google custom verb', 'POST', '/v1/op1:cancel', {}, undefined, 'cancelOperation'],
    ['AWS plain template', 'GET', '/tags/arn1', {}, undefined, 'listTags'],
    ['AWS fragment by query', 'DELETE', '/tags/arn1?tagKeys=env', {}, undefined, 'untagResource'],
    ['AWS fragment by header', 'POST', '/', target('CreateThing'), { name: 'n' }, 'createThing'],
    ['AWS fragment by header (other)', 'POST', '/', target('DeleteThing'), { id: 'i' }, 'deleteThing'],
    ['two parameters in a segment', 'GET', '/@51.5,-0.12', {}, undefined, 'near'],
    ['text around a parameter', 'GET', "/docs('k1')", {}, undefined, 'getDoc'],
    ['two adjacent parameters, the second an enum', 'GET', '/pages/about.json', {}, undefined, 'getPage'],
    ['query string, query parameter', 'GET', '/search/articles?query=owls', {}, undefined, 'searchArticles'],
    ['query string, path-declared parameter', 'GET', '/rides?page=2', {}, undefined, 'listRides'],
  ] as const)('%s: %s %s -> 501', async (_label, method, path, headers, body, operationId) => {
    const answer = await call(empty, method, path, headers, body);
    expect(answer.status, answer.raw).toBe(501);
    expect(answer.raw).toContain(`${operationId} is not implemented yet`);
  });

  it('a request its route cannot choose an operation for gets the declared 400 naming the parameter, never a 5xx', async () => {
    const none = await call(empty, 'POST', '/', {}, { name: 'n' });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ message: expect.stringContaining('x-amz-target') });
    expect(none.raw).toContain('Things.CreateThing, Things.DeleteThing');
    const unknown = await call(empty, 'POST', '/', target('Other'), { name: 'n' });
    expect(unknown.status).toBe(400);
    // one template on the route and method: chosen, and its own validation names the missing query key
    const untag = await call(empty, 'DELETE', '/tags/arn1');
    expect(untag.status).toBe(400);
    expect(untag.raw).toContain('tagKeys');
    // a value the parameter's schema refuses, bound from its segment: 400, not a missing parameter
    const near = await call(empty, 'GET', '/@north,-0.12');
    expect(near.status).toBe(400);
    expect(near.raw).toContain('lat');
    expect(near.raw).not.toContain('required property');
    // 405 lists every method of the route, the fragment's template included
    const put = await fetch(`${empty}/tags/arn1`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, DELETE');
  });

  it('start-up says nothing about an unreachable operation', () => {
    expect(warnings.filter((w) => /never reached/.test(w))).toEqual([]);
  });
});

describe('handlers receive the right operation and parameters, called through the generated client (D410)', () => {
  const client = () => createRouteSpellingsClient({ baseUrl: served });
  const last = () => seen[seen.length - 1];

  it('Google: the resource and its custom method', async () => {
    expect(await client().default.getOperation('operations/op1')).toMatchObject({ ok: true, data: { id: 'getOperation' } });
    expect(last()).toMatchObject({ operationId: 'getOperation', params: { name: 'operations/op1' } });
    expect(await client().default.cancelOperation('op1')).toMatchObject({ ok: true, data: { id: 'cancelOperation' } });
    expect(last()).toMatchObject({ operationId: 'cancelOperation', params: { name: 'op1' } });
  });

  it('AWS: the fragment chosen by its query key and by its header value', async () => {
    expect(await client().default.listTags('arn:aws:x')).toMatchObject({ ok: true });
    expect(last()).toMatchObject({ operationId: 'listTags', params: { resourceArn: 'arn:aws:x' } });
    expect(await client().default.untagResource('arn1', { tagKeys: 'env' })).toMatchObject({ ok: true, status: 204 });
    expect(last()).toMatchObject({ operationId: 'untagResource', params: { resourceArn: 'arn1' }, query: { tagKeys: 'env' } });
    const create = await client().default.createThing({ name: 'n' }, { headers: { 'X-Amz-Target': 'Things.CreateThing' } });
    expect(create).toMatchObject({ ok: true, data: { id: 'createThing' } });
    expect(last()).toMatchObject({ operationId: 'createThing', body: { name: 'n' } });
    const remove = await client().default.deleteThing({ id: 'i' }, { headers: { 'X-Amz-Target': 'Things.DeleteThing' } });
    expect(remove).toMatchObject({ ok: true, data: { id: 'deleteThing' } });
    expect(last()).toMatchObject({ operationId: 'deleteThing', body: { id: 'i' } });
  });

  it('segments holding two parameters or text around one bind every parameter, coerced by its schema', async () => {
    expect(await client().default.near(51.5, -0.12)).toMatchObject({ ok: true, data: { id: 'near' } });
    expect(last()).toMatchObject({ operationId: 'near', params: { lat: 51.5, lon: -0.12 } });
    expect(await client().default.getDoc('k1')).toMatchObject({ ok: true, data: { id: 'getDoc' } });
    expect(last()).toMatchObject({ operationId: 'getDoc', params: { key: 'k1' } });
    expect(await client().default.getPage('about.us', '.html')).toMatchObject({ ok: true, data: { id: 'getPage' } });
    expect(last()).toMatchObject({ operationId: 'getPage', params: { pageName: 'about.us', mediaTypeExtension: '.html' } });
  });

  it('query strings written into the path: the query parameter, and a path-declared one bound from its key', async () => {
    expect(await client().default.searchArticles({ query: 'owls & bats' })).toMatchObject({ ok: true, data: { id: 'searchArticles' } });
    expect(last()).toMatchObject({ operationId: 'searchArticles', params: {}, query: { query: 'owls & bats' } });
    expect(await client().default.listRides(2)).toMatchObject({ ok: true, data: { id: 'listRides' } });
    expect(last()).toMatchObject({ operationId: 'listRides', params: { page: 2 } });
  });

  it('every answer above went through response validation: no operation degraded to unvalidated', () => {
    expect(warnings.filter((w) => /not validated/.test(w))).toEqual([]);
  });
});

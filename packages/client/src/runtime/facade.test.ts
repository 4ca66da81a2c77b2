import { describe, expect, expectTypeOf, it } from 'vitest';
import { call, init, toFormData, toUrlEncoded, type FetchInit } from './facade.js';
import type { PaygateResult } from './result.js';

describe('facade helpers (what client.gen.ts calls)', () => {
  it('init: params always, body / serializer / parseAs / signal only when given', () => {
    expect(init({ order_id: 'OD1' }, undefined, undefined) as FetchInit).toEqual({ params: { path: { order_id: 'OD1' }, query: undefined, header: undefined } });
    const signal = new AbortController().signal;
    const value = init(undefined, { page: 2 }, { headers: { 'X-Merchant-ID': '1' }, signal }, { a: 1 }, toFormData as never, 'text') as FetchInit;
    expect(value).toEqual({ params: { path: undefined, query: { page: 2 }, header: { 'X-Merchant-ID': '1' } }, body: { a: 1 }, bodySerializer: toFormData, parseAs: 'text', signal });
  });

  it.each([
    ['strings and numbers', { a: 'x', n: 1 }, [['a', 'x'], ['n', '1']]],
    ['arrays repeat the field', { tag: ['a', 'b'] }, [['tag', 'a'], ['tag', 'b']]],
    ['null and undefined are left out', { a: null, b: undefined, c: 'y' }, [['c', 'y']]],
  ])('toUrlEncoded / toFormData: %s', (_name, body, pairs) => {
    expect([...toUrlEncoded(body as Record<string, unknown>)]).toEqual(pairs);
    expect([...toFormData(body as Record<string, unknown>)]).toEqual(pairs);
  });

  it('toFormData keeps Blobs as file parts', async () => {
    const form = toFormData({ file: new Blob(['%PDF'], { type: 'application/pdf' }), document_type: 'invoice' });
    const file = form.get('file');
    expect(file).toBeInstanceOf(Blob);
    expect(await (file as Blob).text()).toBe('%PDF');
  });

  it('call: the openapi-fetch response as a result typed by the error codes', async () => {
    const ok = await call<{ id: string }, 'ERR_X'>(Promise.resolve({ data: { id: '1' }, response: new Response('{}', { status: 200 }) }));
    expectTypeOf(ok).toEqualTypeOf<PaygateResult<{ id: string }, 'ERR_X'>>();
    expect(ok).toMatchObject({ ok: true, status: 200, data: { id: '1' } });
    const error = { success: false, error: { code: 'ERR_X', message: 'm' } };
    const failed = await call<never, 'ERR_X'>(Promise.resolve({ error, response: new Response('{}', { status: 404 }) }));
    expect(failed).toMatchObject({ ok: false, status: 404, error });
  });
});

import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  PaygateApiError,
  isErrorEnvelope,
  toResult,
  unwrap,
  type ApiResult,
  type ErrorEnvelope,
  type OpenApiFetchResponse,
  type PaygateResult,
  type UnexpectedResponseError,
} from './result.js';

const res = (status: number, body = '') => new Response(status === 204 ? null : body, { status });

describe('toResult', () => {
  it('maps success', async () => {
    const r = await toResult(Promise.resolve({ data: { order_id: 'OD1' }, response: res(200) }));
    expect(r).toMatchObject({ ok: true, status: 200, data: { order_id: 'OD1' } });
    expectTypeOf(r).toEqualTypeOf<ApiResult<{ order_id: string }, ErrorEnvelope | UnexpectedResponseError>>();
  });

  it('keeps a Paygate error envelope (with details) and types the code union', async () => {
    const env: ErrorEnvelope<'ERR_VALIDATION_400'> = {
      success: false,
      error: { code: 'ERR_VALIDATION_400', message: 'Invalid request', details: { amount: 'must match ^\\d+\\.\\d{2}$' } },
    };
    const p = Promise.resolve(
      Math.random() > 2 ? { data: { id: 'x' }, response: res(200) } : { error: env, response: res(400) },
    ) as Promise<
      | { data: { id: string }; error?: never; response: Response }
      | { data?: never; error: ErrorEnvelope<'ERR_VALIDATION_400'>; response: Response }
    >;
    const r = await toResult(p);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expectTypeOf(r.error.error.code).toEqualTypeOf<'ERR_VALIDATION_400' | 'ERR_UNEXPECTED_RESPONSE'>();
      expect(r.status).toBe(400);
      expect(r.error).toEqual(env);
    }
  });

  it('synthesises ERR_UNEXPECTED_RESPONSE for non-envelope error bodies', async () => {
    const r = await toResult(Promise.resolve({ error: '<html>Bad Gateway</html>' as string | ErrorEnvelope<'ERR_X'>, response: res(502) }));
    expectTypeOf(r).toEqualTypeOf<ApiResult<never, ErrorEnvelope<'ERR_X'> | UnexpectedResponseError>>();
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.error.code).toBe('ERR_UNEXPECTED_RESPONSE');
      expect(r.error.error.message).toContain('HTTP 502');
      expect(r.error.error.message).toContain('Bad Gateway');
    }
    const empty = await toResult(Promise.resolve({ error: undefined as unknown, response: res(404) }));
    expect(!empty.ok && empty.error.error.code).toBe('ERR_UNEXPECTED_RESPONSE');
  });

  it('keeps openapi-typescript style envelopes (success: boolean, details as index signature)', async () => {
    type Generated = { success: boolean; error: { code: 'ERR_ORDER_404'; message: string; details?: { [key: string]: string } } };
    const p = Promise.resolve({
      error: { success: false, error: { code: 'ERR_ORDER_404', message: 'Order not found' } },
      response: res(404),
    }) as Promise<{ data: { id: string }; error?: never; response: Response } | { data?: never; error: Generated; response: Response }>;
    const r = await toResult(p);
    if (!r.ok) expectTypeOf(r.error.error.code).toEqualTypeOf<'ERR_ORDER_404' | 'ERR_UNEXPECTED_RESPONSE'>();
    expect(!r.ok && r.error.error.code).toBe('ERR_ORDER_404');
  });

  it('treats 204 as success with undefined data', async () => {
    const r = await toResult(Promise.resolve({ data: undefined, response: res(204) }));
    expect(r).toMatchObject({ ok: true, status: 204, data: undefined });
  });
});

describe('isErrorEnvelope / PaygateApiError / unwrap', () => {
  it('recognises envelopes', () => {
    expect(isErrorEnvelope({ success: false, error: { code: 'X', message: 'y' } })).toBe(true);
    expect(isErrorEnvelope({ success: false, error: { code: 'X', message: 'y', details: { a: 'b' } } })).toBe(true);
    expect(isErrorEnvelope({ success: false, error: { code: 1, message: 'y' } })).toBe(false);
    expect(isErrorEnvelope({ success: false, error: { code: 'X', message: 'y', details: ['a'] } })).toBe(false);
    expect(isErrorEnvelope('nope')).toBe(false);
    expect(isErrorEnvelope(null)).toBe(false);
  });

  it('PaygateApiError carries status, code and details', () => {
    const err = new PaygateApiError({
      status: 422,
      error: { success: false, error: { code: 'ERR_REFUND_422', message: 'too much', details: { refund_amount: 'exceeds' } } },
    });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('PaygateApiError');
    expect(err.status).toBe(422);
    expect(err.code).toBe('ERR_REFUND_422');
    expect(err.details).toEqual({ refund_amount: 'exceeds' });
    expect(err.message).toBe('ERR_REFUND_422 (HTTP 422): too much');
    expect(new PaygateApiError({ status: 502, error: 'oops' }).code).toBe('ERR_UNEXPECTED_RESPONSE');
  });

  it('unwrap returns data or throws', () => {
    const response = res(200);
    expect(unwrap({ ok: true, status: 200, data: 5, response })).toBe(5);
    expect(() =>
      unwrap({ ok: false, status: 404, error: { success: false, error: { code: 'ERR_ORDER_404', message: 'nope' } }, response }),
    ).toThrow(PaygateApiError);
  });
});

// Compile-time check of the pattern the generated client uses (templates/client/client.hbs): generic T, literal codes.
export function generatedCallPattern<T>(
  promise: Promise<{ response: Response }>,
): Promise<PaygateResult<T, 'ERR_ORDER_404' | 'ERR_AUTH_000'>> {
  return toResult(promise as Promise<OpenApiFetchResponse<T, ErrorEnvelope<'ERR_ORDER_404' | 'ERR_AUTH_000'>>>);
}

import type { Request, RequestHandler, Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { HttpError } from '../errors.js';
import type { OperationRoute } from '../types.js';
import type { Authentication } from './authenticate.js';
import { guardStep } from './rate-limit.js';

const operation = { operationId: 'createOrder' } as OperationRoute;
const authentication = (authenticates: boolean, principal: () => Promise<string>): Authentication<string> => ({
  authenticates: () => authenticates,
  principal,
  refused: (error) => (error instanceof HttpError ? error : new HttpError(401, 'ERR_AUTH_000', 'Invalid credentials')),
});

/** Runs a step; resolves with what it passed to next() and the response's locals. */
function run(step: RequestHandler): Promise<{ error: unknown; locals: Record<string, unknown> }> {
  const res = { locals: {} } as Response;
  return new Promise((resolve) => {
    void step({} as Request, res, (error?: unknown) => resolve({ error, locals: res.locals }));
  });
}

describe('rate-limit step (one guard with authenticate)', () => {
  it('no step at all for an operation needing neither authentication nor a rate limit', () => {
    expect(guardStep(operation, authentication(false, vi.fn()), undefined)).toBeUndefined();
  });

  it('authenticates, then gives the rate limit the principal; both are on res.locals', async () => {
    const order: string[] = [];
    const rateLimit = vi.fn(() => {
      order.push('limit');
    });
    const step = guardStep(
      operation,
      authentication(true, async () => {
        order.push('authenticate');
        return 'partner-1';
      }),
      rateLimit,
    )!;
    const { error, locals } = await run(step);
    expect(error).toBeUndefined();
    expect(order).toEqual(['authenticate', 'limit']);
    expect(rateLimit).toHaveBeenCalledWith(expect.objectContaining({ operation, principal: 'partner-1' }));
    expect(locals).toEqual({ operation, principal: 'partner-1' });
  });

  it('a public operation is still limited, with an undefined principal', async () => {
    const rateLimit = vi.fn();
    const { error } = await run(guardStep(operation, authentication(false, vi.fn()), rateLimit)!);
    expect(error).toBeUndefined();
    expect(rateLimit).toHaveBeenCalledWith(expect.objectContaining({ principal: undefined }));
  });

  it("the limit's 429 goes to the error step; a refused authentication never reaches the limit", async () => {
    const tooMany = new HttpError(429, 'ERR_RATE_429', 'slow down', undefined, { 'Retry-After': '1' });
    const limited = await run(guardStep(operation, authentication(false, vi.fn()), () => Promise.reject(tooMany))!);
    expect(limited.error).toBe(tooMany);
    const rateLimit = vi.fn();
    const refused = new HttpError(401, 'ERR_AUTH_000', 'Missing credentials');
    const unauthenticated = await run(
      guardStep(
        operation,
        authentication(true, () => Promise.reject(refused)),
        rateLimit,
      )!,
    );
    expect(unauthenticated.error).toBe(refused);
    expect(rateLimit).not.toHaveBeenCalled();
    const failing = await run(
      guardStep(
        operation,
        authentication(true, () => Promise.reject(new Error('db down'))),
        rateLimit,
      )!,
    );
    expect((failing.error as HttpError).status).toBe(401);
  });
});

import { HttpError, mapError } from '@paygate/server';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../core/errors.js';
import { authenticationError, toHttpError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './errors.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('toHttpError (D91, D92)', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a terminated backend', withCode('57P01', 'terminating connection due to administrator command')],
    ['a connection cut mid-request', new Error('Connection terminated unexpectedly')],
    ['no free connection in time', new Error('timeout exceeded when trying to connect')],
    // honest storage failures (D361 running out of a resource classified): a full disk or another exhausted resource is an outage, never a 500
    ['a full disk (53100)', withCode('53100', 'could not extend file "base/5/16400": No space left on device')],
    ['out of memory (53200)', withCode('53200', 'out of memory')],
    ['too many connections (53300)', withCode('53300', 'sorry, too many clients already')],
    ['Node ENOSPC', withCode('ENOSPC', 'ENOSPC: no space left on device, write')],
    ["PGlite's file system error (Emscripten ErrnoError ENOSPC)", Object.assign(new Error('FS error'), { name: 'ErrnoError', errno: 51 })],
  ])('%s -> 503 ERR_UNAVAILABLE_503 with Retry-After, the cause only for the log', (_what, err) => {
    const mapped = toHttpError(err);
    expect(mapped).toBeInstanceOf(HttpError);
    const sent = mapError(mapped);
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
    expect(sent.body).toEqual({
      success: false,
      error: { code: 'ERR_UNAVAILABLE_503', message: 'Service temporarily unavailable; retry after 1 second' },
    });
    expect(JSON.stringify(sent.body)).not.toContain((err as Error).message);
    expect((mapped as Error & { cause?: unknown }).cause).toBe(err);
  });

  it('a DomainError keeps its status and code; anything else passes through (500 in the scaffold)', () => {
    expect(mapError(toHttpError(new DomainError('ERR_ORDER_404', 'Order not found'))).status).toBe(404);
    const bug = new TypeError('x is undefined');
    expect(toHttpError(bug)).toBe(bug);
    const http = new HttpError(418, 'X', 'y');
    expect(toHttpError(http)).toBe(http);
  });
});

describe('authenticationError (D94): 401 only for a refused credential', () => {
  it.each([
    ['missing credentials', new DomainError('ERR_AUTH_000', 'Missing credentials'), 401, 'ERR_AUTH_000'],
    ['a wrong secret', new DomainError('ERR_AUTH_000', 'Invalid credentials'), 401, 'ERR_AUTH_000'],
    ['a value the database cannot compare (22021)', withCode('22021', 'invalid byte sequence'), 401, 'ERR_AUTH_000'],
    ['the database refusing connections', withCode('ECONNREFUSED'), 503, 'ERR_UNAVAILABLE_503'],
    ['the connection lost during the check', new Error('Connection terminated unexpectedly'), 503, 'ERR_UNAVAILABLE_503'],
    ['too many connections', withCode('53300', 'sorry, too many clients already'), 503, 'ERR_UNAVAILABLE_503'],
    ['a bug in the check', new TypeError("Cannot read properties of undefined (reading 'kind')"), 500, 'ERR_INTERNAL_500'],
  ])('%s -> %i %s', (_what, err, status, code) => {
    const sent = mapError(authenticationError(err));
    expect(sent.status).toBe(status);
    expect(sent.body.error.code).toBe(code);
    if (status === 401) expect(sent.body.error.message).toBe('Missing credentials'); // one answer for every refusal
  });
});

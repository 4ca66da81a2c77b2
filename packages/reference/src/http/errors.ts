import { HttpError, mapError } from '@paygate/server';
import type { ErrorCode } from '@paygate/contract';
import { DomainError } from '../core/errors.js';
import { sqlState } from '../db/db.js';
import { isResourceExhaustedError } from '../db/resource-exhausted.js';
import { isUnavailableError } from '../db/unavailable.js';

/** Seconds a client is asked to wait after a 503 (D92 Retry-After 1 on every 503): a lost connection is replaced by the next request's. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

const UNAVAILABLE_CODE: ErrorCode = 'ERR_UNAVAILABLE_503';

/**
 * The 503 of an infrastructure failure (D91 infrastructure failures named in one place: 503): the error envelope with `Retry-After`; `cause` (the database error) goes
 * only to the log, which the scaffold writes for every 5xx.
 */
export function unavailableError(cause?: unknown): HttpError {
  const seconds = UNAVAILABLE_RETRY_AFTER_SECONDS;
  const message = `Service temporarily unavailable; retry after ${seconds} second${seconds === 1 ? '' : 's'}`;
  const error = new HttpError(503, UNAVAILABLE_CODE, message, undefined, { 'Retry-After': String(seconds) });
  return cause === undefined ? error : Object.assign(error, { cause });
}

/**
 * The one place a service's DomainError becomes the HttpError the server scaffold renders as the error envelope
 * (its `mapError` writes the body), and a database that is away (D91 infrastructure failures named in one place: 503) or out of space or another resource (a full
 * disk, SQLSTATE class 53, ENOSPC: honest storage failures, D361) becomes 503 ERR_UNAVAILABLE_503. Every handler
 * is wrapped with it (../app.ts), and so are authentication and the routes outside the generated operations; anything
 * else passes through unchanged (a 500 unless it is an HttpError).
 */
export function toHttpError(err: unknown): unknown {
  if (err instanceof DomainError) return new HttpError(err.status, err.code, err.message, err.details);
  if (!(err instanceof HttpError) && (isUnavailableError(err) || isResourceExhaustedError(err))) return unavailableError(err);
  return err;
}

/**
 * What a failed credential check answers (D94 401 only when the credential is refused): 401 ERR_AUTH_000 only when the credential itself is refused (the
 * check's DomainError: missing, unknown, revoked, expired, wrong; or a value the database cannot even compare, SQLSTATE
 * class 22), one message for all of them; 503 when the database cannot answer (D91 infrastructure failures named in one place: 503); 500 for anything else (a bug,
 * logged with its cause), never a verdict on the credential.
 */
export function authenticationError(err: unknown): HttpError {
  if (err instanceof DomainError || sqlState(err)?.startsWith('22')) return new HttpError(401, 'ERR_AUTH_000', 'Missing credentials');
  const mapped = toHttpError(err);
  if (mapped instanceof HttpError) return mapped;
  return Object.assign(new HttpError(500, 'ERR_INTERNAL_500', 'Internal server error'), { cause: err });
}

/** Service errors that escaped a handler still become HttpErrors (every handler runs through this). */
export async function withErrorMapping<TResult>(next: () => Promise<TResult>): Promise<TResult> {
  try {
    return await next();
  } catch (err) {
    throw toHttpError(err);
  }
}

/** The error envelope the scaffold would send for this status, code and message (for routes outside the API). */
export function errorBody(status: number, code: string, message: string, details?: Record<string, string>) {
  return mapError(new HttpError(status, code, message, details)).body;
}

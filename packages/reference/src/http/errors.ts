import { HttpError } from '@paygate/server';
import { DomainError } from '../core/errors.js';

/**
 * The one place a service's DomainError becomes the HttpError the server scaffold renders as the error envelope
 * (its `mapError` writes the body). Every handler is wrapped with it (../app.ts), and so are the routes outside the
 * generated operations; anything that is not a DomainError passes through unchanged (a 500 unless it is an HttpError).
 */
export function toHttpError(err: unknown): unknown {
  if (err instanceof DomainError) return new HttpError(err.status, err.code, err.message, err.details);
  return err;
}

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpError, mapError } from '@paygate/server';
import { ID_PATTERN } from '../core/ids.js';
import { htmlHeaders } from './html.js';
import { renderSessionErrorPage, SESSION_ERROR_PAGE_CSP } from './session-error.js';

/** The paths whose `{session_id}` is the caller's credential (the seed: a malformed one is `ERR_AUTH_000`). */
const SESSION_PATHS = [/^\/checkout\/([^/]*)$/, /^\/sandbox\/checkout\/([^/]*)\/complete$/];

/**
 * A checkout session id is a credential, so the seed answers every invalid one alike: `ERR_AUTH_000` with
 * `details.session_id`. Without this guard the request validator would answer an id over the spec's 256 characters
 * (or one that is not a session id at all) with a 400 `ERR_VALIDATION_400`, telling a prober which ids are
 * well-formed. Runs before the generated routes, so it covers every length and shape.
 */
export function rejectMalformedSessionIds(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    for (const pattern of SESSION_PATHS) {
      const raw = pattern.exec(req.path)?.[1];
      if (raw === undefined) continue;
      let id: string | undefined;
      try {
        id = decodeURIComponent(raw);
      } catch {
        id = undefined;
      }
      if (id !== undefined && ID_PATTERN.session.test(id)) break;
      const mapped = mapError(new HttpError(401, 'ERR_AUTH_000', 'Missing credentials', { session_id: 'is malformed' }));
      // a shopper's browser gets a page in words (D75 bad checkout session answered with an HTML page); API clients the envelope
      if (req.path.startsWith('/checkout/') && req.accepts(['application/json', 'text/html']) === 'text/html') {
        res.status(mapped.status).set(htmlHeaders(SESSION_ERROR_PAGE_CSP)).type('text/html').send(renderSessionErrorPage('invalid'));
        return;
      }
      res.status(mapped.status).set(mapped.headers).json(mapped.body);
      return;
    }
    next();
  };
}

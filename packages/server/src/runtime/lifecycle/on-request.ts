/**
 * Step `onRequest`: the first thing every request meets. The scaffold's own first steps (an answer sent while a body
 * is still arriving closes the connection, D96; a `+` in the query string is a space), then the app's `onRequest`
 * hook.
 */
import type { Request, RequestHandler } from 'express';
import { closeOnEarlyAnswer } from '../body-limits.js';

/**
 * A query string is `application/x-www-form-urlencoded`, where `+` is a space (what `URLSearchParams` writes, and
 * what our own `next` links contain). A raw `+` would otherwise be an unencoded reserved character, so spell it `%20`
 * before anything reads the query (docs/request-validation.md, section 4).
 */
export const formEncodedQuerySpaces: RequestHandler = (req, _res, next) => {
  spaceQuery(req);
  next();
};

function spaced(url: string): string {
  const start = url.indexOf('?');
  return start === -1 || !url.includes('+', start) ? url : url.slice(0, start) + url.slice(start).replaceAll('+', '%20');
}

/** {@link formEncodedQuerySpaces} without the middleware around it. */
function spaceQuery(req: Request): void {
  // Validation reads `originalUrl`, Express routing reads `url`.
  req.url = spaced(req.url);
  req.originalUrl = spaced(req.originalUrl);
}

/**
 * The scaffold's first steps, `closeConnectionOnEarlyAnswer` then {@link formEncodedQuerySpaces}, as ONE
 * Express layer (D166: every layer is a path match and a `next()` of Express's router per request).
 */
const firstSteps: RequestHandler = (req, res, next) => {
  closeOnEarlyAnswer(req, res);
  spaceQuery(req);
  next();
};

/**
 * The `onRequest` step as one Express layer: the first steps, then the app's hook. With `sameLayer` (the route step,
 * read when a request arrives: it is put together after this layer is registered), the route step runs in this
 * layer too once the hook calls `next()` (D180 onRequest hook and the one-layer scaffold: each layer of Express's
 * router is a path match, a params merge and a `next()` per request).
 */
export function onRequestStep(onRequest: RequestHandler | undefined, sameLayer?: () => RequestHandler): RequestHandler {
  if (onRequest === undefined) return firstSteps;
  return (req, res, next) => {
    closeOnEarlyAnswer(req, res);
    spaceQuery(req);
    if (sameLayer === undefined) {
      onRequest(req, res, next);
      return;
    }
    onRequest(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        next(error);
        return;
      }
      // what Express's layer does for a handler: a synchronous throw goes to the error handler (`onRequest` may
      // call this later, outside the layer's own try)
      try {
        sameLayer()(req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    });
  };
}

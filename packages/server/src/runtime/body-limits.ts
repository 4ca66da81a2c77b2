import { AsyncResource } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import bytes from 'bytes';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpError, RUNTIME_ERROR_CODES } from './errors.js';

/**
 * What a request body may cost the server before it is refused (decision D96): a body that cannot be accepted is never
 * read to its end, and a connection whose body is still arriving is not kept for it.
 */

/** A body limit as body-parser takes it (`'1mb'`, `102400`) in bytes. */
export function limitInBytes(limit: string | number): number {
  const parsed = typeof limit === 'number' ? limit : bytes.parse(limit);
  if (parsed === null || !Number.isFinite(parsed) || parsed < 0) throw new Error(`invalid body limit ${JSON.stringify(limit)}`);
  return parsed;
}

/** The envelope body-parser's own 413 maps to (`details.body` names the limit). */
export function bodyTooLarge(limitBytes: number): HttpError {
  return new HttpError(413, RUNTIME_ERROR_CODES.tooLarge, 'Request body too large', { body: `must be at most ${limitBytes} bytes` });
}

/** Whether the request announces a body (a Content-Length above 0, or Transfer-Encoding). */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isMultipart(req: IncomingMessage): boolean {
  return /^multipart\//i.test(req.headers['content-type'] ?? '');
}

/**
 * How long an early answer waits for the rest of a body that is still arriving (D96 early answers close the connection, bodies counted). A client that is writing its
 * body at a normal pace finishes within it and then reads the answer on a connection kept alive (closing at once made
 * it fail with EPIPE/ECONNRESET while writing, never reading the 401: seen with an upload and a wrong credential); a
 * body still not in after it is a slow client, and the connection is closed.
 */
export const EARLY_ANSWER_GRACE_MS = 250;

/**
 * An answer sent while the request body is still arriving (401 before authentication could read it, 413, 415, 429,
 * any error, or a 2xx of an operation that reads no body) does not hold the connection for a slow client: the rest of
 * the body is discarded for at most EARLY_ANSWER_GRACE_MS; a body complete by then gets the answer on a kept-alive
 * connection, one still arriving gets it with `Connection: close` and Node destroys the socket once it is flushed.
 * A 413 reads nothing more: it closes at once.
 * Node would otherwise keep the socket to drain the rest of the body, so a client sending it slowly held a connection
 * (and a slot of PAYGATE_MAX_CONNECTIONS) until the request timeout for an answer it already had.
 */
export const closeConnectionOnEarlyAnswer: RequestHandler = (req, res, next) => {
  closeOnEarlyAnswer(req, res);
  next();
};

/** {@link closeConnectionOnEarlyAnswer} without the middleware around it (the scaffold's first layer runs it, D166). */
export function closeOnEarlyAnswer(req: Request, res: Response): void {
  if (declaresBody(req)) {
    const end = res.end;
    // why the cast: end's overloads cannot be re-declared by a function expression; the arguments pass through
    const endNow = (self: Response, args: unknown[]) => (end as (...a: unknown[]) => Response).apply(self, args);
    res.end = function (this: Response, ...args: unknown[]) {
      if (req.complete || this.headersSent) return endNow(this, args);
      if (this.statusCode === 413) {
        // too large: not a byte more is read; decided one event-loop turn later, when the rest of a packet already
        // here has been handed over
        setImmediate(() => {
          if (!req.complete && !this.headersSent) this.setHeader('Connection', 'close');
          endNow(this, args);
        });
        return this;
      }
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.off('end', finish);
        if (!req.complete && !this.headersSent) this.setHeader('Connection', 'close');
        endNow(this, args);
      };
      const timer = setTimeout(finish, EARLY_ANSWER_GRACE_MS);
      req.once('end', finish);
      req.resume(); // discard the rest: the answer is decided
      return this;
    } as Response['end'];
  }
}

/**
 * 413 from the Content-Length alone, before a byte of the body is read (body-parser reads an oversize body to its end
 * before answering). `multipartLimitBytes` bounds multipart requests (files and fields together); without it they are
 * left to the multipart parser's own limits.
 */
export function rejectDeclaredOversize(limitBytes: number, multipartLimitBytes?: number): RequestHandler {
  return (req, _res, next) => {
    const declared = req.headers['content-length'];
    if (declared === undefined) {
      next();
      return;
    }
    const multipart = isMultipart(req);
    if (multipart && multipartLimitBytes === undefined) {
      next();
      return;
    }
    const limit = multipart ? multipartLimitBytes! : limitBytes;
    next(Number(declared) > limit ? bodyTooLarge(limit) : undefined);
  };
}

/**
 * A body-parser middleware that stops at `limitBytes` on a body of unknown length (chunked): body-parser notices the
 * limit too, but then reads the rest of the request before it answers. Here the 413 goes out as soon as the limit is
 * passed (and closes the connection, see closeConnectionOnEarlyAnswer); body-parser's late callback is ignored.
 * Compressed bodies are counted as they arrive: one larger than the limit of its decoded form is refused too.
 */
export function readingAtMost(parser: RequestHandler, limitBytes: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let settled = false;
    const once: NextFunction = (err?: unknown) => {
      if (settled) return;
      settled = true;
      next(err);
    };
    const listening = req.listenerCount('data');
    parser(req, res, once);
    // Only a parser that has started reading (it added its 'data' listener synchronously, so this one sees the same
    // chunks from the first) of a body without Content-Length (checked before) needs watching.
    if (settled || req.headers['content-length'] !== undefined || req.listenerCount('data') === listening) return;
    let received = 0;
    const count = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) {
        req.off('data', count);
        once(bodyTooLarge(limitBytes));
      }
    };
    req.on('data', count);
    req.once('end', () => req.off('data', count));
  };
}

/** The Content-Type values the JSON fast path takes (lower-cased): JSON in UTF-8, spelled as clients send it. */
const PLAIN_JSON_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);

/**
 * Whether {@link readPlainJson} takes the request (D182 body parsers are one step): `application/json` in UTF-8 (no other parameter), a
 * Content-Length of 1 to `limitBytes` bytes, no Transfer-Encoding and no Content-Encoding (or `identity`). Anything
 * else (compressed, chunked, another charset, `+json`, an empty body, a form) goes through body-parser as before.
 */
export function isPlainJson(req: IncomingMessage, limitBytes: number): boolean {
  const headers = req.headers;
  const type = headers['content-type'];
  if (type === undefined || (type !== 'application/json' && !PLAIN_JSON_TYPES.has(type.toLowerCase()))) return false;
  if (headers['transfer-encoding'] !== undefined) return false;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const length = headers['content-length'];
  if (length === undefined || !/^[0-9]{1,15}$/.test(length)) return false;
  const n = Number(length);
  return n > 0 && n <= limitBytes;
}

/** An error body-parser would have passed on, with its `type` (classifyError answers from it) and status. */
function bodyParserError(message: string, type: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new SyntaxError(message), { status: 400, statusCode: 400, expose: true, type, ...extra });
}

/**
 * body-parser's `json()` (strict, UTF-8) for a request {@link isPlainJson} takes, without its per-request machinery
 * (D182: type-is, content-type, raw-body, iconv-lite's decoder, on-finished, http-errors; about a tenth of a hosted
 * order's CPU). The same answers: the bytes decoded as UTF-8 (invalid sequences replaced, a leading BOM dropped, as
 * iconv-lite does), `{}` for an empty text, any JSON value at the top (body-parser's `strict: false`, D431), a
 * `JSON.parse` error as `entity.parse.failed`, an aborted request as `request.aborted`. Node's HTTP parser hands over
 * exactly Content-Length bytes, so no limit needs counting here (the length was checked against it).
 */
export function readPlainJson(req: Request, next: NextFunction): void {
  if (!('body' in (req as object))) req.body = undefined; // as body-parser does
  // the request goes on in the async context it came in with (an AsyncLocalStorage entered around the app, a
  // tracer's span), not in the socket's that emits the body's events: raw-body binds its callback the same way
  const context = new AsyncResource('paygate.plainJson');
  const chunks: Buffer[] = [];
  let done = false;
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
  };
  const finish = (err?: Error) => {
    if (done) return;
    done = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onAbort);
    req.off('close', onClose);
    context.runInAsyncScope(next, null, err);
  };
  const onEnd = () => {
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    let text = bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0) {
      req.body = {};
      finish();
      return;
    }
    try {
      req.body = JSON.parse(text);
    } catch (err) {
      finish(bodyParserError((err as Error).message, 'entity.parse.failed', { body: text }));
      return;
    }
    finish();
  };
  const onAbort = () => finish(bodyParserError('request aborted', 'request.aborted'));
  const onClose = () => {
    if (!req.complete) onAbort();
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onAbort);
  req.on('close', onClose);
}

/**
 * Step `send`: status, headers and body written in one `res.end` (D141 one dispatch middleware with find-my-way), or
 * through Express's `res.send` when it has work to do (ETag, conditional GET, HEAD, statuses without a body).
 */
import type { Request, Response } from 'express';
import { sendableMediaType } from '../media-type.js';
import type { ResponseSerializers } from '../response-serializers.js';
import type { OperationRoute } from '../types.js';
import { declaredMediaTypes, type HandlerResult, isJsonMediaType, jsonBody, type RenderedResponse } from './serialize.js';

/** `Content-Type` as Express's `res.send` writes it for a text body: the declared type with `charset=utf-8`. */
const textContentTypes = new Map<string, string>();
function textContentType(contentType: string): string {
  let value = textContentTypes.get(contentType);
  if (value === undefined) {
    value = `${contentType.replace(/;\s*charset=[^;]*/i, '')}; charset=utf-8`;
    if (textContentTypes.size < 256) textContentTypes.set(contentType, value);
  }
  return value;
}

/**
 * Whether a response can be written directly, in one `res.end` (D141 one dispatch middleware with find-my-way): anything Express's `res.send` would change is
 * left to it: an automatic ETag (the app's `etag` setting), a conditional GET (304 from `req.fresh`), HEAD, and the
 * statuses without a body.
 */
function writesDirectly(req: Request, status: number): boolean {
  return (
    !req.app.settings['etag fn'] &&
    req.headers['if-none-match'] === undefined &&
    req.headers['if-modified-since'] === undefined &&
    req.method !== 'HEAD' &&
    status !== 204 &&
    status !== 304 &&
    (status >= 200 || status < 100)
  );
}

/** Status, headers and body in one write (`res.end`), or through Express's `res.send` when it has work to do. */
function writeBody(
  req: Request,
  res: Response,
  status: number,
  headers: Readonly<Record<string, unknown>> | undefined,
  contentType: string,
  body: string | Buffer,
): void {
  if (headers !== undefined)
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
    }
  res.statusCode = status;
  if (!writesDirectly(req, status)) {
    res.type(sendableMediaType(contentType)).send(body);
    return;
  }
  if (typeof body === 'string') {
    res.setHeader('Content-Type', textContentType(sendableMediaType(contentType)));
    res.setHeader('Content-Length', Buffer.byteLength(body));
  } else {
    res.setHeader('Content-Type', sendableMediaType(contentType));
    res.setHeader('Content-Length', body.length);
  }
  res.end(body);
}

/**
 * Sends a handler result: JSON serialised once (`renderResult` writes the same text), anything else as is. `observed`:
 * response validation watches `res.json` (development), so JSON goes through it.
 */
export function sendResult(
  serializers: ResponseSerializers | undefined,
  operation: OperationRoute,
  req: Request,
  res: Response,
  result: HandlerResult,
  observed: boolean,
): void {
  if (typeof result !== 'object' || result === null || !Number.isInteger(result.status)) {
    throw new Error(`Handler ${operation.operationId} returned no { status }`);
  }
  if (result.body === undefined) {
    if (result.headers !== undefined)
      for (const name in result.headers) {
        const value = result.headers[name];
        if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
      }
    res.statusCode = result.status;
    res.end();
    return;
  }
  const contentType = result.contentType ?? declaredMediaTypes(operation, result.status)[0] ?? 'application/json';
  if (observed && isJsonMediaType(contentType)) {
    for (const [name, value] of Object.entries(result.headers ?? {}))
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
    // the validator checks what the handler returned (the serializer would coerce a wrong type and hide the lie); the
    // compiled serializer writes production's answers
    res.status(result.status).type(sendableMediaType(contentType)).json(result.body);
  } else if (isJsonMediaType(contentType))
    writeBody(
      req,
      res,
      result.status,
      result.headers,
      contentType,
      jsonBody(req.app, serializers, operation, result.status, contentType, result.body),
    );
  else if (typeof result.body === 'string') writeBody(req, res, result.status, result.headers, contentType, result.body);
  else if (result.body instanceof Uint8Array)
    writeBody(
      req,
      res,
      result.status,
      result.headers,
      contentType,
      Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength),
    );
  else {
    // neither text nor bytes under a non-JSON media type: what Express's `res.send` makes of it, as before
    for (const [name, value] of Object.entries(result.headers ?? {}))
      if (value !== undefined) res.setHeader(name, typeof value === 'number' ? value : String(value));
    res.status(result.status).type(sendableMediaType(contentType)).send(result.body);
  }
}

export function sendRendered(req: Request, res: Response, rendered: RenderedResponse): void {
  if (rendered.body === undefined || rendered.contentType === null) {
    res.status(rendered.status).set(rendered.headers);
    res.end();
    return;
  }
  const body =
    typeof rendered.body === 'string'
      ? rendered.body
      : Buffer.from(rendered.body.buffer, rendered.body.byteOffset, rendered.body.byteLength);
  writeBody(req, res, rendered.status, rendered.headers, rendered.contentType, body);
}

/**
 * Step `parseBody`: the JSON, urlencoded and text body parsers (multipart is parsed per operation by the validate
 * step, with the upload limits), 413 before reading a body declared too large (D96 early answers close the
 * connection, bodies counted), and the NUL check on what was parsed (run by the handle step, once the query is read).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { isPlainJson, limitInBytes, readPlainJson, readingAtMost, rejectDeclaredOversize } from '../body-limits.js';
import { HttpError, RUNTIME_ERROR_CODES, VALIDATION_MESSAGE } from '../errors.js';
import { jsonBodyTypes, ndjsonBodyTypes } from '../json-media.js';
import { ndjsonParser } from '../ndjson-body.js';
import type { OperationRoute } from '../types.js';
import type { UploadLimits } from './options.js';

/** The upload limits with their defaults, and the largest multipart body they can accept. */
export function uploadLimitsOf(limits: UploadLimits): { uploadLimits: Required<UploadLimits>; multipartLimitBytes: number } {
  const uploadLimits = {
    fileSize: limits.fileSize ?? 5 * 1024 * 1024,
    files: limits.files ?? 1,
    fields: limits.fields ?? 20,
    fieldSize: limits.fieldSize ?? 64 * 1024,
  };
  // The largest multipart body the upload limits can accept: every file and field at its limit, plus 64 KiB of part
  // headers and boundaries. A Content-Length above it is 413 before reading (D96 early answers close the connection, bodies counted); a chunked body is 413 the moment it
  // passes it (D362 multipart bodies counted like the others).
  const multipartLimitBytes = uploadLimits.files * uploadLimits.fileSize + uploadLimits.fields * uploadLimits.fieldSize + 64 * 1024;
  return { uploadLimits, multipartLimitBytes };
}

/**
 * The JSON, ndjson, urlencoded and text body parsers every operation route runs (multipart is parsed per operation):
 * 413 from the Content-Length before reading, and no byte read past the limit of a chunked body (D96 early answers
 * close the connection, bodies counted). `operations`: the spec's, whose request media types JSON by name (`text/json`)
 * are read as JSON and the newline-delimited ones line by line (D484, "JSON bodies by media type name, ndjson line by
 * line").
 */
export function bodyParsers(
  limit: string | number,
  multipartLimitBytes?: number,
  operations: readonly Pick<OperationRoute, 'requestMediaTypes'>[] = [],
): RequestHandler[] {
  const declared = operations.flatMap((op) => op.requestMediaTypes);
  const limitBytes = limitInBytes(limit);
  const oversize = rejectDeclaredOversize(limitBytes, multipartLimitBytes);
  const ndjson = ndjsonBodyTypes(declared);
  const chain = [
    // A JSON body is any JSON value (RFC 8259), not only an object or array: the operation's schema says which it
    // takes (`type: string` under application/json), and refuses the others naming the reason (D431 a JSON body may be any JSON value)
    readingAtMost(express.json({ limit, type: jsonBodyTypes(declared), strict: false }), limitBytes),
    ...(ndjson.length === 0 ? [] : [readingAtMost(ndjsonParser(limit, ndjson), limitBytes)]),
    readingAtMost(express.urlencoded({ limit, extended: false }), limitBytes),
    readingAtMost(express.text({ limit, type: 'text/*' }), limitBytes),
  ];
  // ONE step (D182 body parsers are one step): plain JSON with a Content-Length is read by readPlainJson (body-parser's answers without its
  // per-request machinery); everything else goes through body-parser's three parsers as before
  return [
    (req, res, next) =>
      oversize(req, res, (error?: unknown) => {
        if (error !== undefined) next(error);
        else if (!req.readableEnded && isPlainJson(req, limitBytes)) readPlainJson(req, next);
        else runChain(chain, req, res, next);
      }),
  ];
}

/** `handlers` in order, as Express would run them; an error skips the rest. */
function runChain(handlers: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const step = (error?: unknown): void => {
    const handler = handlers[index++];
    if ((error !== undefined && error !== null) || handler === undefined) done(error);
    else void handler(req, res, step);
  };
  step();
}

/**
 * The parse-body step of an operation: the body parsers, or none. An operation that declares no request body does
 * not read one: whatever is sent (oversize, compressed, not JSON) is drained unread, so no status the operation does
 * not declare (413, 415) can come from it.
 */
export function parseBodySteps(operation: OperationRoute, parsers: RequestHandler[]): RequestHandler[] {
  return operation.requestMediaTypes.length > 0 ? parsers : [];
}

/** The JSON path of the first string holding a NUL character, or undefined. */
export function findNulCharacter(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = findNulCharacter(child, path === '' ? key : Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * No field of this API needs a NUL character, and PostgreSQL text cannot store one: answer 400 naming the field
 * instead of letting the database fail the request with a 500. Runs on parsed fields (JSON, form, multipart
 * fields and the query), never on uploaded file bytes.
 */
export function assertNoNulCharacters(req: Request, query: unknown): void {
  const where = findNulCharacter(req.body) ?? findNulCharacter(query);
  if (where !== undefined) {
    throw new HttpError(400, RUNTIME_ERROR_CODES.validation, VALIDATION_MESSAGE, {
      [where || 'body']: 'must not contain NUL (\\u0000) characters',
    });
  }
}

/**
 * Step `error`: the one error handler. Every error of every step ends here: classified (errors.ts), shaped as the spec
 * declares (error-shapes.ts, D119) or by the app's `errorMapper` hook, `Allow` on 405, internals only to the log.
 */
import type { Application, NextFunction, Request, Response } from 'express';
import { sendableMediaType } from '../media-type.js';
import { classifyError, HttpErrorWithPage } from '../errors.js';
import { reportNeutrallyFilled, reportUnfillable, SpecErrorShapes, type ErrorResponse, type RuntimeError } from '../error-shapes.js';
import type { ApiDocument, Logger, OperationRoute } from '../types.js';
import type { ErrorMapper } from './options.js';
import { isJsonMediaType, jsonText, RenderedResponse } from './serialize.js';

/**
 * The error shapes, built once before any route (handler hooks render errors with them too), and the start-up report
 * of the declared error schemas the scaffold cannot fill. 429 and 501 are the runtime's own answers only with a
 * `rateLimit` hook and with operations it does not serve.
 */
export function errorShapes(
  apiDocument: ApiDocument,
  answers: { tooManyRequests: boolean; notImplemented: boolean },
  errorMapper: ErrorMapper<unknown> | undefined,
  logger: Logger,
): SpecErrorShapes {
  const shapes = new SpecErrorShapes(apiDocument);
  const notAnswered = new Set([...(answers.tooManyRequests ? [] : ['429']), ...(answers.notImplemented ? [] : ['501'])]);
  const unfillable = shapes.check().map((p) => (p.runtime && notAnswered.has(p.status) ? { ...p, runtime: false } : p));
  reportUnfillable(unfillable, errorMapper !== undefined, logger);
  reportNeutrallyFilled(shapes.neutrallyFilled(), logger);
  return shapes;
}

/** A response-validation failure (express-openapi-validator: status 500, `errors[].path` JSON pointers). */
function responseValidationErrors(err: unknown): { path: string; message: string }[] | undefined {
  if (typeof err !== 'object' || err === null || (err as { status?: unknown }).status !== 500) return undefined;
  const errors = (err as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0 || !String((errors[0] as { path?: unknown }).path ?? '').startsWith('/response'))
    return undefined;
  return errors.map((e: { path?: unknown; message?: unknown }) => ({ path: String(e.path ?? ''), message: String(e.message ?? '') }));
}

/**
 * The one error handler: the error classified (errors.ts), shaped as the spec declares (error-shapes.ts, or the
 * app's `errorMapper`), `Allow` on 405, internals only to the log.
 */
export function errorHandler(
  logger: Logger,
  shapes: SpecErrorShapes,
  errorMapper?: ErrorMapper<unknown>,
  requestLogFields?: (req: Request, res: Response) => Record<string, unknown>,
) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const error = classifyError(err);
    const operation = res.locals.operation as OperationRoute | undefined;
    if (error.internal) {
      const invalidResponse = responseValidationErrors(err);
      if (invalidResponse !== undefined) {
        logger.error(
          {
            ...requestLogFields?.(req, res),
            err,
            operationId: operation?.operationId,
            method: req.method,
            path: req.path,
            errors: invalidResponse,
          },
          `response of ${operation?.operationId ?? req.path} does not match the spec`,
        );
      } else {
        logger.error(
          { ...requestLogFields?.(req, res), err, method: req.method, path: req.path, operationId: operation?.operationId },
          'request failed',
        );
      }
    }
    if (err instanceof HttpErrorWithPage && req.accepts(['application/json', err.page.contentType]) === err.page.contentType) {
      res.status(error.status).set(error.headers).type(sendableMediaType(err.page.contentType)).send(err.page.text);
      return;
    }
    const response = shapedError(req, error, operation, shapes, errorMapper);
    res.status(response.status).set(response.headers);
    // no body where the status is declared without content (D423 a status declared without content answers without a body); text under a text/* media type (D424 error answers in the declared media type)
    if (response.contentType === null || response.body === undefined) res.end();
    else if (!isJsonMediaType(response.contentType) && typeof response.body === 'string')
      res.type(sendableMediaType(response.contentType)).send(response.body);
    else res.type(sendableMediaType(response.contentType)).json(response.body);
  };
}

/** The error in the spec's shape, or the app's `errorMapper`'s. */
function shapedError(
  req: Request,
  error: RuntimeError,
  operation: OperationRoute | undefined,
  shapes: SpecErrorShapes,
  errorMapper?: ErrorMapper<unknown>,
): ErrorResponse {
  const shaped = shapes.respond(error, operation, { path: req.path });
  const own = errorMapper?.(error, { operation, req, shaped }) as
    | { status: number; body?: unknown; contentType?: string; headers?: Record<string, unknown> }
    | undefined;
  if (own === undefined) return shaped;
  return {
    status: own.status,
    body: own.body,
    // the declared content type of the mapper's status (D215 error schema filled by role), not the problem+json of a schema the scaffold could not fill
    contentType: own.contentType ?? shapes.declaredMediaType(own.status, operation) ?? 'application/json',
    headers: { ...shaped.headers, ...(own.headers as Record<string, string> | undefined) },
  };
}

/** What the error handler sends for an error, rendered (a hook records it, e.g. an idempotent 4xx). */
export function renderError(
  app: Application,
  req: Request,
  error: RuntimeError,
  operation: OperationRoute | undefined,
  shapes: SpecErrorShapes,
  errorMapper?: ErrorMapper<unknown>,
): RenderedResponse {
  const response = shapedError(req, error, operation, shapes, errorMapper);
  return new RenderedResponse(response.status, response.contentType, response.headers, errorBodyText(app, response));
}

/**
 * The bytes of an error answer: none where the status is declared without content (D423 a status declared without content answers without a body), the text itself under a
 * `text/*` media type (D424 error answers in the declared media type), else JSON.
 */
function errorBodyText(app: Application, response: ErrorResponse): string | undefined {
  if (response.contentType === null || response.body === undefined) return undefined;
  if (!isJsonMediaType(response.contentType) && typeof response.body === 'string') return response.body;
  return jsonText(app, response.body);
}

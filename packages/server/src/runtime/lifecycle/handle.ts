/**
 * Step `handle`: the typed request (params, query, headers, body with its files) goes to the operation's handler,
 * through the app's `around` hook when there is one; its result is serialized and sent. An operation without a
 * handler (`notImplemented: 'respond'`, D218) or that the generator could not serve answers 501 instead.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { classifyError, HttpError, RUNTIME_ERROR_CODES } from '../errors.js';
import type { SpecErrorShapes } from '../error-shapes.js';
import type { ResponseSerializers } from '../response-serializers.js';
import type { HandlerContext, Logger, OperationRoute, UploadedFile } from '../types.js';
import { renderError } from './error.js';
import type { ApiSpec, CreateAppOptions, ErrorMapper, HandlerCall } from './options.js';
import { assertNoNulCharacters } from './parse-body.js';
import { sendRendered, sendResult } from './send.js';
import { type HandlerResult, RenderedResponse, renderResult } from './serialize.js';

/** A handler as the scaffold calls it (the generated `Handlers` type checks each one's own types). */
export type AnyHandler<TPrincipal> = (req: unknown, ctx: HandlerContext<TPrincipal>) => Promise<HandlerResult>;
/** The `around` hook as the scaffold calls it. */
export type AnyHook<TPrincipal> = (call: HandlerCall<unknown, HandlerResult, TPrincipal>) => Promise<HandlerResult | RenderedResponse>;

/**
 * Which operations have a handler: the others refuse the start (the default, naming them) or, with `notImplemented:
 * 'respond'`, answer 501 (D218 missing handlers refused or answered 501). Operations whose parameters the scaffold
 * cannot parse were skipped by the generator: answered 501, no handler needed.
 */
export function handlerPlan<TPrincipal>(
  spec: ApiSpec,
  options: Pick<CreateAppOptions<object, TPrincipal>, 'handlers' | 'notImplemented'>,
): { handlers: Record<string, AnyHandler<TPrincipal> | undefined>; skipped: Map<string, string>; notImplemented: Set<string> } {
  // why the cast: THandlers maps each operation id to its own typed handler; dispatching by id at run time needs one
  // common signature, which TypeScript cannot derive from the per-key types (the generated Handlers type checks them)
  const handlers = options.handlers as unknown as Record<string, AnyHandler<TPrincipal> | undefined>; // see above
  const skipped = new Map(
    spec.operations.flatMap((op) => {
      const reason = spec.requestValidators[op.operationId]?.unsupported;
      return reason === undefined ? [] : [[op.operationId, reason] as const];
    }),
  );
  const missing = spec.operations
    .filter((op) => !skipped.has(op.operationId) && typeof handlers[op.operationId] !== 'function')
    .map((op) => op.operationId);
  const notImplemented = new Set(options.notImplemented === 'respond' ? missing : []);
  if (missing.length > 0 && options.notImplemented !== 'respond')
    throw new Error(
      `createApp: missing handler(s) for ${missing.join(', ')}. Write them, or pass \`notImplemented: 'respond'\` to answer them 501 until they are written.`,
    );
  return { handlers, skipped, notImplemented };
}

function withFiles(operation: OperationRoute, req: Request): unknown {
  const files = collectFiles(operation, req);
  return Object.keys(files).length > 0 ? { ...(req.body as object), ...files } : req.body;
}

function collectFiles(operation: OperationRoute, req: Request): Record<string, UploadedFile | UploadedFile[]> {
  const files = (req as Request & { files?: UploadedFile[] }).files;
  const out: Record<string, UploadedFile | UploadedFile[]> = {};
  if (!Array.isArray(files)) return out;
  for (const field of operation.fileFields) {
    const matching = files.filter((f) => f.fieldname === field.name);
    if (field.multiple) out[field.name] = matching;
    else if (matching[0] !== undefined) out[field.name] = matching[0];
  }
  return out;
}

/** The typed request a handler receives (after validation): params, query, lower-cased headers, body with files. */
export function handlerRequest(
  operation: OperationRoute,
  req: Request,
): { params: Record<string, unknown>; query: Record<string, unknown>; headers: Request['headers']; body: unknown } {
  // Express 5 parses the query string again on every read of `req.query`: read once, and not at all when there is no
  // query string and validation did not pin one (D166: it would parse the URL for an empty object)
  const query = Object.hasOwn(req, 'query') || req.url.includes('?') ? req.query : {};
  assertNoNulCharacters(req, query);
  const body = operation.fileFields.length === 0 ? req.body : withFiles(operation, req);
  return { params: { ...req.params }, query: { ...(query as object) }, headers: req.headers, body };
}

/** What the handle step needs besides the operation and its handler. */
export interface HandleContext<TPrincipal> {
  around: AnyHook<TPrincipal> | undefined;
  serializers: ResponseSerializers | undefined;
  shapes: SpecErrorShapes;
  errorMapper: ErrorMapper<unknown> | undefined;
  validateResponses: boolean;
  logger: Logger;
}

/** The handle step of an operation: the handler (through `around`), then serialize and send. */
export function handleStep<TPrincipal>(
  operation: OperationRoute,
  handler: AnyHandler<TPrincipal>,
  { around, serializers, shapes, errorMapper, validateResponses, logger }: HandleContext<TPrincipal>,
): RequestHandler {
  const run = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      const request = handlerRequest(operation, req);
      const ctx: HandlerContext<TPrincipal> = { principal: res.locals.principal as TPrincipal, operation, req, res, logger };
      const result =
        around === undefined
          ? await handler(request, ctx)
          : await around({
              operationId: operation.operationId,
              operation,
              request,
              ctx,
              next: () => handler(request, ctx),
              render: (outcome) =>
                'result' in outcome
                  ? renderResult(req.app, serializers, operation, outcome.result)
                  : renderError(req.app, req, classifyError(outcome.error), operation, shapes, errorMapper),
            });
      if (result instanceof RenderedResponse) sendRendered(req, res, result);
      else sendResult(serializers, operation, req, res, result, validateResponses);
    } catch (error) {
      next(error);
    }
  };
  return run;
}

/** An operation without a handler yet: authenticated and validated like the others, then 501 (D218 missing handlers refused or answered 501). */
export const notImplementedStep =
  (operation: OperationRoute): RequestHandler =>
  (_req, _res, next) =>
    next(new HttpError(501, RUNTIME_ERROR_CODES.notImplemented, `${operation.operationId} is not implemented yet`));

/** An operation the generator skipped (its parameters cannot be parsed): 501 naming why. */
export const notServedStep =
  (operation: OperationRoute, reason: string): RequestHandler =>
  (_req, _res, next) =>
    next(new HttpError(501, RUNTIME_ERROR_CODES.notImplemented, `${operation.operationId} is not served by this scaffold: ${reason}`));

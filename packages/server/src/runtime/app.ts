import type { Express, RequestHandler } from 'express';
import { ResponseSerializers } from './response-serializers.js';
import {
  allowByPath,
  type AnyHook,
  type ApiSpec,
  bodyParsers,
  checkValidators,
  createAuthentication,
  type CreateAppOptions,
  defaultLogger,
  type ErrorMapper,
  errorHandler,
  errorShapes,
  guardStep,
  handlerPlan,
  handleStep,
  notFound,
  notImplementedStep,
  notServedStep,
  onRequestStep,
  type OperationSteps,
  parseBodySteps,
  routedApp,
  routeStep,
  uploadLimitsOf,
  validateResponseSteps,
  validateSteps,
  warnNotValidated,
} from './lifecycle/index.js';

// The public types of the options and steps (lifecycle/options.ts, serialize.ts), where `@paygate/server` and the
// scaffold's tests import them.
export type {
  ApiSpec,
  AuthenticateInput,
  CommonAppOptions,
  CreateAppOptions,
  DeclaredErrorResult,
  ErrorMapper,
  HandlerCall,
  HandlerHook,
  NotImplementedMode,
  RateLimitInput,
  UploadLimits,
} from './lifecycle/options.js';
export { consoleLogger } from './lifecycle/options.js';
export { RenderedResponse } from './lifecycle/serialize.js';

/**
 * Builds the Express app for a generated spec: the request lifecycle of lifecycle/index.ts, put together once. Per
 * operation: authenticate + rate limit -> parse body -> validate -> handle (through `around`) -> serialize -> send;
 * then 405/404 for other requests and one error handler.
 */
export function createApiApp<THandlers extends object, TPrincipal = unknown, TScheme extends string = string>(
  spec: ApiSpec,
  options: CreateAppOptions<THandlers, TPrincipal, TScheme>,
): Express {
  const logger = options.logger ?? defaultLogger();
  const validateResponses = options.validateResponses ?? process.env.NODE_ENV !== 'production';
  const { handlers, skipped, notImplemented } = handlerPlan<TPrincipal>(spec, options);

  const app = routedApp();
  // Step 1, onRequest: first, so that every answer (the app's own routes included) sent while a body is still
  // arriving closes the connection (D96 early answers close the connection, bodies counted). Without `before`, the
  // onRequest step and the route step are ONE Express layer (D180 onRequest hook and the one-layer scaffold): the
  // route step is read when a request arrives, once it is put together below.
  let route: RequestHandler | undefined;
  const oneLayer = options.before === undefined && options.onRequest !== undefined;
  app.use(onRequestStep(options.onRequest, oneLayer ? () => route! : undefined));
  options.before?.(app);

  // Steps 3-4, authenticate and rate limit (one guard per operation, before any body is read).
  const authentication = createAuthentication<TPrincipal>(spec.operations, spec.securitySchemes, options, logger);
  // Step 5, parse body: the parsers per media type (multipart is parsed per operation, with the upload limits).
  const { uploadLimits, multipartLimitBytes } = uploadLimitsOf(options.uploadLimits ?? {});
  const parsers = bodyParsers(options.bodyLimit ?? '1mb', multipartLimitBytes, spec.operations);
  // Step 6, validate: precompiled, always.
  checkValidators(spec);
  const allowOf = new Map(allowByPath(spec.operations).map((p) => [p.path, p.allow]));
  // The error step's shapes are built before any route: handler hooks render errors with them too.
  const errorMapper = options.errorMapper as ErrorMapper<unknown> | undefined;
  const shapes = errorShapes(
    spec.apiDocument,
    { tooManyRequests: options.rateLimit !== undefined, notImplemented: notImplemented.size + skipped.size > 0 },
    errorMapper,
    logger,
  );
  // Steps 7-9, handle, serialize and send. Why the cast: the hook is generic per operation id; dispatching by id at
  // run time calls it with the one common signature (the generated Handlers type checks each handler, the hook's type
  // checks what it returns). Responses are serialised by their schemas (D142 compiled response serializers in
  // production), except under response validation, which checks (and sends) what the handler returned.
  const around = options.around as unknown as AnyHook<TPrincipal> | undefined; // see above
  const serializers = validateResponses ? undefined : new ResponseSerializers(spec.apiDocument, logger);
  const handle = { around, serializers, shapes, errorMapper, validateResponses, logger };

  for (const [operationId, reason] of skipped) logger.warn({ operationId }, `${operationId} is not served (501): ${reason}`);
  warnNotValidated(spec, logger);
  if (notImplemented.size > 0)
    logger.warn(
      { operations: [...notImplemented] },
      `notImplemented: 'respond': ${notImplemented.size} operation(s) without a handler answer 501: ${[...notImplemented].join(', ')}`,
    );
  // Per operation, the steps it needs, put together once; the route step finds the operation and runs them.
  const routes = spec.operations.map((operation): OperationSteps => {
    const guard = guardStep(operation, authentication, options.rateLimit);
    const guarded = guard === undefined ? [] : [guard];
    const reason = skipped.get(operation.operationId);
    if (reason !== undefined) return { operation, steps: [...guarded, notServedStep(operation, reason)] };
    const validate = validateSteps(spec, operation, { allow: allowOf.get(operation.path)!, uploadLimits, multipartLimitBytes });
    const validateResponse = validateResponseSteps(spec, operation, validateResponses, logger);
    const parse = parseBodySteps(operation, parsers);
    return {
      operation,
      ...(parse.length === 0 ? {} : { bodyAt: guarded.length + parse.length }),
      steps: [
        ...guarded,
        ...parse,
        ...validate,
        ...(notImplemented.has(operation.operationId)
          ? [notImplementedStep(operation)]
          : [...validateResponse, handleStep(operation, handlers[operation.operationId]!, handle)]),
      ],
    };
  });
  // Step 2, route (in the onRequest step's layer when `oneLayer`, D180).
  route = routeStep(spec.apiDocument, spec.operations, spec.requestValidators, routes, parsers, logger);
  if (!oneLayer) app.use(route);

  // Unknown routes, then the error step.
  app.use(notFound);
  app.use(errorHandler(logger, shapes, errorMapper, options.requestLogFields));
  return app;
}

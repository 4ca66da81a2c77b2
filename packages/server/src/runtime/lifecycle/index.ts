/**
 * The scaffold's request lifecycle: the steps every request goes through, in order, one module each (its test beside
 * it), and the one hook (an option of `createApiApp`, options.ts) each step offers. `createApiApp` (../app.ts) puts
 * them together (D480 the scaffold's request lifecycle as named steps).
 *
 * 1. onRequest (on-request.ts), hook `onRequest` (and `before`, for the app's own routes): an answer sent while a body
 *    is still arriving closes the connection (D96 early answers close the connection, bodies counted); a `+` in the
 *    query string is a space.
 * 2. route (route.ts), no hook: the operation of the request (D141 one dispatch middleware with find-my-way), paths
 *    exactly as the spec writes them, 400 for a path that does not decode, 405 with `Allow`, 404.
 * 3. authenticate (authenticate.ts), hook `authenticators` or `authenticate`: the principal from the spec's security
 *    schemes (D120 one authenticator per security scheme; D219 invalid versus missing credentials).
 * 4. rateLimit (rate-limit.ts), hook `rateLimit`: the app's limit, per principal; one guard step with authenticate.
 * 5. parseBody (parse-body.ts), hooks `bodyLimit` and `uploadLimits`: JSON, form and text bodies within their limits
 *    (D182 body parsers are one step), only for operations that declare a body; the NUL check.
 * 6. validate (validate.ts), hook `validateResponses`: the precompiled request validators (D160 request validators stay
 *    one ts-nocheck module); response validation in development.
 * 7. handle (handle.ts), hook `around`: the typed request to the handler; 501 without one (D218 missing handlers refused
 *    or answered 501).
 * 8. serialize (serialize.ts), `around`'s `render`: the result as bytes, JSON by the response's compiled serializer
 *    (D142 compiled response serializers in production).
 * 9. send (send.ts), no hook: status, headers and body in one write.
 * -  error (error.ts), hook `errorMapper`: every step's error, shaped as the spec declares (D119 scaffold shapes its
 *    answers from the spec).
 *
 * D180 onRequest hook and the one-layer scaffold: without `before`, steps 1 and 2 run in ONE Express layer (each
 * layer of Express's router costs a path match, a params merge and a `next()` per request).
 */
export { createAuthentication } from './authenticate.js';
export { errorHandler, errorShapes } from './error.js';
export { handlerPlan, handleStep, notImplementedStep, notServedStep, type AnyHook } from './handle.js';
export { onRequestStep } from './on-request.js';
export { defaultLogger, type ApiSpec, type CreateAppOptions, type ErrorMapper } from './options.js';
export { bodyParsers, parseBodySteps, uploadLimitsOf } from './parse-body.js';
export { guardStep } from './rate-limit.js';
export { allowByPath, notFound, routedApp, routeStep, type OperationSteps } from './route.js';
export { checkValidators, validateResponseSteps, validateSteps, warnNotValidated } from './validate.js';

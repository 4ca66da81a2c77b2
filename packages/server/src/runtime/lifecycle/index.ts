/**
 * The scaffold's request lifecycle: the steps every request goes through, in order, one module each (its test beside
 * it), and the one hook (an option of `createApiApp`, options.ts) each step offers. `createApiApp` (../app.ts) puts
 * them together.
 *
 * | # | step         | module           | what it does                                                          | hook                          |
 * |---|--------------|------------------|-----------------------------------------------------------------------|-------------------------------|
 * | 1 | onRequest    | on-request.ts    | early answers close the connection (D96), `+` in the query is a space | `onRequest` (and `before`)    |
 * | 2 | route        | route.ts         | the operation of the request (D141), 400 bad path encoding, 405, 404  | -                             |
 * | 3 | authenticate | authenticate.ts  | the principal from the spec's security schemes (D120, D219)           | `authenticators` / `authenticate` |
 * | 4 | rateLimit    | rate-limit.ts    | the app's limit, per principal (one step with authenticate)           | `rateLimit`                   |
 * | 5 | parseBody    | parse-body.ts    | JSON / form / text bodies within their limits (D96, D182)             | `bodyLimit`, `uploadLimits`   |
 * | 6 | validate     | validate.ts      | precompiled request validation (D160), optional response validation  | `validateResponses`           |
 * | 7 | handle       | handle.ts        | the typed handler, 501 without one (D218)                             | `around`                      |
 * | 8 | serialize    | serialize.ts     | the result as bytes, JSON by the response's schema (D142)             | (`around`'s `render`)         |
 * | 9 | send         | send.ts          | status, headers and body in one write                                 | -                             |
 * | - | error        | error.ts         | every step's error, shaped as the spec declares (D119)                | `errorMapper`                 |
 *
 * The steps as modules, createApiApp their composition (D480 the scaffold's request lifecycle as named steps).
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

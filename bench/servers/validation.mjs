// @ts-check
/**
 * Validation overhead: the same GET /pg/orders/:order_id answered by a trivial handler returning the Order envelope,
 * mode (argv[2]):
 * - `plain`     plain Express route with the same body parsers as the scaffold (no validator);
 * - `request`   `createApp` from @paygate/server, request validation only (validateResponses: false);
 * - `response`  `createApp`, request + response validation.
 * - `request-memo`, `response-memo`: the same with path-to-regexp compilation memoized (see below): the proposed fix.
 * No authentication hook, no database: only the scaffold + express-openapi-validator differ from `plain`.
 * Plain JavaScript on bare `node` (imports the built @paygate/server from dist/).
 */
import { createRequire } from 'node:module';
import express from 'express';

const mode = process.argv[2] ?? 'plain';

if (mode.endsWith('-memo')) {
  // express-openapi-validator 5.6 `lookupRoute` calls pathToRegexp(expressRoute) for EVERY route on EVERY request
  // (dist/middlewares/openapi.metadata.js:57-73). Memoize it on the exact module instance the validator loads,
  // before the validator is imported. Same results, compiled once per (route, options).
  const require = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const ptr = require('path-to-regexp');
  const original = ptr.pathToRegexp;
  const cache = new Map();
  ptr.pathToRegexp = (path, options = {}) => {
    if (typeof path !== 'string') return original(path, options);
    const key = `${path}\0${JSON.stringify(options)}`;
    let hit = cache.get(key);
    if (hit === undefined) cache.set(key, (hit = original(path, options)));
    return hit;
  };
}
const { createApp, operations } = await import('@paygate/server');
const order = JSON.parse(process.env['BENCH_BODY'] ?? '{}');

/** @type {import('express').Express} */
let app;
if (mode === 'plain') {
  app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ limit: '1mb', extended: false }));
  app.use(express.text({ limit: '1mb', type: 'text/*' }));
  app.get('/pg/orders/:order_id', (_req, res) => {
    res.json(order);
  });
} else if (['request', 'response', 'request-memo', 'response-memo'].includes(mode)) {
  /** @type {Record<string, () => Promise<{ status: number, body?: unknown }>>} */
  const handlers = {};
  for (const op of operations) handlers[op.operationId] = async () => ({ status: 500 });
  handlers['getOrder'] = async () => ({ status: 200, body: order });
  app = createApp({ handlers: /** @type {any} */ (handlers), validateResponses: mode.startsWith('response') });
} else {
  throw new Error(`unknown mode ${mode}`);
}
app.listen(Number(process.env['PORT']), '127.0.0.1', () => console.log('LISTENING'));
process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile

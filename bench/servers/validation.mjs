// @ts-check
/**
 * Validation overhead: the same GET /pg/orders/:order_id answered by a trivial handler returning the Order envelope,
 * mode (argv[2]):
 * - `plain`     plain Express route with the same body parsers as the scaffold (no validator);
 * - `request`   `createApp` from @paygate/server, request validation only (the precompiled validators;
 *               validateResponses: false);
 * - `response`  `createApp`, request validation plus response validation (express-openapi-validator, one instance
 *               per operation over that operation's part of the document).
 * No authentication hook, no database: only the scaffold and validation differ from `plain`.
 * Plain JavaScript on bare `node` (imports the built @paygate/server from dist/).
 */
import express from 'express';

const mode = process.argv[2] ?? 'plain';

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
} else if (mode === 'request' || mode === 'response') {
  /** @type {Record<string, () => Promise<{ status: number, body?: unknown }>>} */
  const handlers = {};
  for (const op of operations) handlers[op.operationId] = async () => ({ status: 500 });
  handlers['getOrder'] = async () => ({ status: 200, body: order });
  // Validation is what is measured: served without authentication on purpose (D120's opt-out), logging off as before.
  const silent = { info() {}, warn() {}, error() {} };
  app = createApp({
    handlers: /** @type {any} */ (handlers),
    validateResponses: mode === 'response',
    allowUnauthenticated: true,
    logger: silent,
  });
} else {
  throw new Error(`unknown mode ${mode}`);
}
app.listen(Number(process.env['PORT']), '127.0.0.1', () => console.log('LISTENING'));
process.on('SIGTERM', () => process.exit(0)); // lets --cpu-prof write its profile

// @ts-check
/**
 * Cold start broken into stages, on the BUILT code (run after `npm run build`):
 *   node bench/tools/coldstart-stages.mjs <PGlite data dir> [order id]
 * Needs PAYGATE_PARTNER_CLIENT_ID / PAYGATE_PARTNER_CLIENT_SECRET of that data dir when an order id is given.
 * Prints ms since process start for: module imports (app graph, runtime graph), openReference (PGlite open + migrate +
 * clock + partner credential), createReferenceApp, listen, first GET order (lazy validator compile), second GET order.
 */
const t0 = performance.timeOrigin;
const at = () => (performance.timeOrigin + performance.now() - t0).toFixed(0).padStart(5);
const stamp = (label) => console.log(`${at()} ms  ${label}`);
stamp('process start -> script');
const dir = process.argv[2];
const orderId = process.argv[3];
if (dir) process.env['PAYGATE_DATA_DIR'] = dir;
process.env['LOG_LEVEL'] ??= 'warn';
const appMod = await import('../../packages/reference/dist/app.js');
stamp('imported app.js (express, validator, handlers)');
const { openReference } = await import('../../packages/reference/dist/runtime.js');
const { loadConfig } = await import('../../packages/reference/dist/core/config.js');
const { createLogger } = await import('../../packages/reference/dist/http/logger.js');
stamp('imported runtime.js (PGlite, pg)');
const logger = createLogger();
const rt = await openReference(loadConfig(), { logger });
stamp('openReference (open + migrate + clock + credential)');
const app = appMod.createReferenceApp(rt, { logger });
stamp('createReferenceApp');
const server = await new Promise((resolve) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
});
stamp('listening');
const base = `http://127.0.0.1:${server.address().port}`;
const headers = {
  'X-Client-ID': process.env['PAYGATE_PARTNER_CLIENT_ID'] ?? '',
  'X-Client-Secret': process.env['PAYGATE_PARTNER_CLIENT_SECRET'] ?? '',
};
for (const n of ['first', 'second']) {
  const r = await fetch(`${base}${orderId ? `/pg/orders/${orderId}` : '/healthz'}`, { headers });
  await r.arrayBuffer();
  stamp(`${n} request -> ${r.status}`);
}
server.close();
await rt.close();

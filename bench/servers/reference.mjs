// @ts-check
/**
 * The reference gateway wired as `paygate serve` wires it (openReference + createReferenceApp + worker, pino access
 * log at LOG_LEVEL to stdout), from the BUILT code (packages/reference/dist) on bare `node`, with one difference:
 * the per-credential rate limit is raised (BENCH_RATE_LIMIT, default 1e9) so a load test is not answered with 429s.
 * The rate-limit upsert still runs on every request, as in production.
 */
import { loadConfig } from '../../packages/reference/dist/core/config.js';
import { createReferenceApp } from '../../packages/reference/dist/app.js';
import { createLogger } from '../../packages/reference/dist/http/logger.js';
import { openReference } from '../../packages/reference/dist/runtime.js';

const logger = createLogger();
const runtime = await openReference(loadConfig(), { logger });
runtime.worker.start();
const app = createReferenceApp(runtime, { logger, rateLimit: { limit: Number(process.env['BENCH_RATE_LIMIT'] ?? 1e9) } });
const server = app.listen(Number(process.env['PORT']), '127.0.0.1', () => console.error('LISTENING'));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void runtime.close().then(() => process.exit(0));
});

import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { loadConfig } from '../core/config.js';
import { markStartupStage, recordStartupStages, takeStartupStages } from '../core/startup-stages.js';
import { useCompactJsHeap } from '../db/compact-heap.js';
import type { Db } from '../db/db.js';
import { createLogger, heldDestination } from '../http/logger.js';
import type { ReferenceRuntime } from '../runtime.js';
import { shutdownTimeoutMs } from '../supervisor/options.js';
import { gracefulStop } from './drain.js';
import { createGatewayHttpServer, listenOn, parsePort } from './http-server.js';
import { lateBoundRuntime } from './late-bound-runtime.js';
import { describeDatabase, startupHint } from './messages.js';
import { loadOrCreateSandboxPartner, sandboxPartnerLines, type SandboxPartner } from './sandbox-partner.js';

/** serve()'s start-up was stopped before it listened, on purpose (its `signal` aborted; D360). */
export class StartAbortedError extends Error {
  constructor() {
    super('the start-up was stopped before listening');
    this.name = 'StartAbortedError';
  }
}

/** `paygate serve`: resolves once the server is listening; exits the process on SIGINT/SIGTERM after a graceful stop. */
export async function serve(
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  options: {
    /** Run the scheduled jobs (default true; one worker of a --workers fleet, D101). */
    scheduledJobs?: boolean;
    /** Aborted: stop the start-up before listening (closing what was opened) with a StartAbortedError (D360 drain reaches workers still starting). */
    signal?: AbortSignal;
  } = {},
): Promise<{ server: Server; runtime: ReferenceRuntime; stop: () => Promise<void> }> {
  recordStartupStages();
  markStartupStage('cli modules loaded');
  const config = loadConfig(env);
  const drainMs = shutdownTimeoutMs(env);
  const port = parsePort(env['PORT']);
  const mode = config.sandbox ? 'sandbox' : 'production';
  out(`Paygate reference gateway, ${mode} mode`);
  if (config.trustProxy === true) {
    // refused in production mode (D98 trust-everything proxy setting refused in production); the sandbox allows it, loudly
    out('  WARNING: PAYGATE_TRUST_PROXY=true believes X-Forwarded-For from anyone: every client can choose the address its');
    out("  rate limit and the logs see. Set the number of proxy hops (e.g. 1) or your proxies' subnets instead.");
  }

  let partner: SandboxPartner | undefined;
  if (!config.partnerClientId && !config.partnerClientSecret && config.sandbox) {
    partner = await loadOrCreateSandboxPartner(config.dataDir);
  }
  markStartupStage('configuration read');

  out(`- opening the database: ${describeDatabase(config)}`);
  out('- applying migrations');
  // Lines logged while starting (the sandbox's first start logs its new master key) wait until the banner below is
  // complete: one human block, then JSON lines (D134 paygate serve prints one human block first).
  const logOutput = heldDestination();
  const logger = createLogger({ destination: logOutput });
  // D173: the database starts opening first, before the module graphs of the app (express, validators, handlers)
  // and of the runtime (services, worker) load: PGlite's WebAssembly compiles on V8's background threads and its files
  // are read while those modules load, and PGlite's start-up garbage is collected while the heap is still small
  // (less CPU and less time to the first answer than opening it after them: docs/benchmarks.md#database-opened-first). This file imports
  // nothing of @paygate/server for the same reason. Production without a master key opens nothing: openReference
  // refuses that start before touching the database, as before.
  let dbOpening: Promise<Db> | undefined;
  if (config.masterKey || config.sandbox) {
    // the data dir as resolveMasterKey makes it for the sandbox key file (0700), before PGlite's open could make it
    if (!config.masterKey && !config.databaseUrl && !config.dataDir.startsWith('memory://'))
      await mkdir(path.resolve(config.dataDir), { recursive: true, mode: 0o700 });
    // the driver's modules alone first (not interleaved with the other graphs'), so that PGlite starts at once
    const { loadDriver, openConfiguredDb } = await import('../db/open.js');
    await loadDriver(config.databaseUrl);
    dbOpening = openConfiguredDb(config);
    dbOpening.catch(() => undefined); // taken over by openReference below; never an unhandled rejection meanwhile
  }
  // The app is built while the database opens, so the validator's spec loading and pre-processing overlaps PGlite's
  // start-up. The app gets the runtime late-bound: it only dereferences it per request, and no request arrives before
  // `listen`, which waits for the database.
  let opened: ReferenceRuntime | undefined;
  const appReady = import('../app.js').then(({ createReferenceApp }) => {
    markStartupStage('app modules loaded');
    const app = createReferenceApp(
      lateBoundRuntime(() => opened),
      { logger, trustProxy: config.trustProxy },
    );
    markStartupStage('app built');
    return app;
  });
  appReady.catch(() => undefined); // awaited below; never an unhandled rejection while the database opens
  let runtime: ReferenceRuntime;
  try {
    const { openReference } = await import('../runtime.js').catch(async (err: unknown) => {
      await dbOpening?.then(
        (db) => db.close(),
        () => undefined,
      );
      throw err;
    });
    markStartupStage('runtime modules loaded');
    runtime = await openReference(config, {
      logger,
      scheduledJobs: options.scheduledJobs ?? true,
      ...(dbOpening ? { db: dbOpening } : {}),
    });
  } catch (err) {
    logOutput.release();
    throw new Error(startupHint(err, config), { cause: err });
  }
  opened = runtime;
  let app: Awaited<typeof appReady>;
  try {
    if (partner) {
      const { ensurePartnerCredential } = await import('../credentials/service.js');
      await ensurePartnerCredential(runtime.deps, { clientId: partner.clientId, clientSecret: partner.clientSecret });
      markStartupStage('sandbox partner credential stored');
    }
    app = await appReady;
  } catch (err) {
    logOutput.release();
    await runtime.close();
    throw err;
  }

  out(
    `- starting the background worker (every ${config.workerIntervalMs} ms: expiries, ${config.sandbox ? 'sandbox automation, ' : ''}webhook deliveries)`,
  );
  runtime.worker.start();

  if (config.redisUrl) {
    out('- connecting to Redis for shared rate limits (REDIS_URL)');
    if (!(await runtime.rateLimiter.ready())) out('  Redis is not reachable yet: limits are per process until it is (see the log)');
  }

  const http = await createGatewayHttpServer(app, config, logger);
  const host = env['HOST'] || '127.0.0.1';
  if (options.signal?.aborted) {
    // drain asked for while starting (D360 drain reaches workers still starting): nothing was answered yet, so nothing is listened for
    logOutput.release();
    await runtime.close();
    throw new StartAbortedError();
  }
  out(`- listening on ${host}:${port}`);
  try {
    await listenOn(http, port, host, config.http.maxConnections);
  } catch (err) {
    logOutput.release();
    await runtime.close();
    throw err;
  }
  markStartupStage('listening');
  logger.debug(
    { processStartedAt: performance.timeOrigin, startupStages: takeStartupStages() },
    'start-up stages (ms and CPU ms since the process started)',
  );
  // The embedded database's compact heap, now that start-up is over (D86 named prepared statements on PostgreSQL).
  if (!config.databaseUrl) useCompactJsHeap();

  const base = config.publicBaseUrl;
  out('');
  out(`Paygate is running (${mode}).`);
  out(`  Base URL:  ${base}`);
  out(`  Docs:      ${base}/docs/`);
  out(`  Health:    ${base}/healthz`);
  out(`  Checkout:  ${base}/sdk/checkout.js`);
  if (config.partnerClientId) {
    out(`  Partner credentials: X-Client-ID ${config.partnerClientId} (secret from PAYGATE_PARTNER_CLIENT_SECRET)`);
  } else if (partner) {
    for (const line of sandboxPartnerLines(partner)) out(line);
  } else {
    out('  WARNING: production mode without PAYGATE_PARTNER_CLIENT_ID / PAYGATE_PARTNER_CLIENT_SECRET:');
    out('  no partner credential is configured, so only credentials already in the database can call the API.');
  }
  if (!base.includes(`:${port}`) && base.startsWith('http://localhost')) {
    out(`  Note: PAYGATE_PUBLIC_URL (${base}) does not name port ${port}; links in responses use it as given.`);
  }
  out('Press Ctrl+C to stop.');
  logOutput.release();

  const stop = gracefulStop(http, drainMs, { markDraining: () => runtime.readiness.markDraining(), closeRest: () => runtime.close() });
  return { server: http, runtime, stop };
}

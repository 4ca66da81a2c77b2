/**
 * `paygate serve --workers N` in the primary process (D100 worker processes under a supervisor): checks what N processes need, prepares what they must
 * share (the sandbox partner credential file, each worker's share of the connection budget), forks them through
 * ./primary.ts and turns SIGTERM/SIGINT into a drain. The workers run cli.ts's `paygate serve` (one gateway each).
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { loadConfig, defaultPoolSize } from '../core/config.js';
import { parsePort } from '../startup/http-server.js';
import { loadOrCreateSandboxPartner, sandboxPartnerLines, type SandboxPartner } from '../startup/sandbox-partner.js';
import { createLogger } from '../http/logger.js';
import { clusterRefusal, shutdownTimeoutMs } from './options.js';
import { startSupervisor } from './primary.js';

/** Margin on top of the workers' own bounds for the webhook worker's flush and closing the database. */
const DRAIN_MARGIN_MS = 5_000;

/** Runs the supervisor; resolves 1 when it cannot start, else undefined (the process exits when the fleet has stopped). */
export async function runSupervisor(workers: number, env: NodeJS.ProcessEnv, workerModule: string): Promise<number | undefined> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  let partner: SandboxPartner | undefined;
  let port: number;
  let drainBoundMs: number;
  let config: ReturnType<typeof loadConfig>;
  try {
    const refusal = clusterRefusal(workers, env);
    if (refusal) throw new Error(refusal);
    config = loadConfig(env);
    port = parsePort(env['PORT']);
    drainBoundMs = shutdownTimeoutMs(env) + config.webhookTimeoutMs + DRAIN_MARGIN_MS;
    // Created here, once, before any worker starts: N workers racing to create the file would fail all but one.
    if (config.sandbox && !config.partnerClientId && !config.partnerClientSecret)
      partner = await loadOrCreateSandboxPartner(config.dataDir);
  } catch (err) {
    process.stderr.write(`paygate: ${(err as Error).message}\n`);
    return 1;
  }

  // Each worker has its own PostgreSQL pool: by default they split what one process would have had (4 per core).
  const workerEnv: NodeJS.ProcessEnv = {};
  if (!env['PAYGATE_DB_POOL_SIZE'])
    workerEnv['PAYGATE_DB_POOL_SIZE'] = String(defaultPoolSize(Math.ceil(availableParallelism() / workers)));
  const poolSize = Number(workerEnv['PAYGATE_DB_POOL_SIZE'] ?? env['PAYGATE_DB_POOL_SIZE']);

  const mode = config.sandbox ? 'sandbox' : 'production';
  out(`Paygate reference gateway, ${mode} mode: a supervisor (pid ${process.pid}) and ${workers} worker processes`);
  out(
    `- starting ${workers} workers on ${env['HOST'] || '127.0.0.1'}:${port} (node:cluster, one port), ${poolSize} PostgreSQL connections each`,
  );
  const logger = createLogger();
  cluster.setupPrimary({ exec: workerModule, args: ['serve'] });
  const supervisor = startSupervisor({
    workers,
    cluster,
    logger,
    env: workerEnv,
    drainBoundMs,
    onRunning(pids, address) {
      const base = config.publicBaseUrl;
      out('');
      out(`Paygate is running (${mode}), ${workers} workers (pids ${pids.join(', ')}) on port ${address.port}.`);
      out(`  Base URL:  ${base}`);
      out(`  Docs:      ${base}/docs/`);
      out(`  Health:    ${base}/healthz (liveness), ${base}/readyz (readiness)`);
      if (config.partnerClientId)
        out(`  Partner credentials: X-Client-ID ${config.partnerClientId} (secret from PAYGATE_PARTNER_CLIENT_SECRET)`);
      else if (partner) for (const line of sandboxPartnerLines(partner)) out(line);
      out('  A worker that dies is restarted; Ctrl+C (SIGINT) or SIGTERM drains every worker, then stops.');
    },
  });

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      process.stderr.write(`paygate: ${signal} again, killing the workers now\n`);
      supervisor.killNow();
      return;
    }
    out(`\n${signal} received: draining ${workers} workers (they finish in-flight requests; at most ${drainBoundMs} ms)...`);
    supervisor.stop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  void supervisor.done.then((code) => {
    out(code === 0 ? 'Stopped.' : 'Stopped (see the log above for what failed).');
    process.exit(code);
  });
  return undefined;
}

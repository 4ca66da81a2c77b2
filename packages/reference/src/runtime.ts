import type { ReferenceConfig } from './config.js';
import type { Db } from './db/db.js';
import { openDb } from './db/open.js';
import { ensurePartnerCredential } from './services/credentials.js';
import { sequenceIds, type ServiceDeps } from './services/deps.js';
import { createDocumentStore, type DocumentStore } from './services/documents.js';
import { loadSandboxClock, type SandboxClock } from './services/sandbox-clock.js';
import { createWorker, type Worker, type WorkerLogger } from './worker/worker.js';

/** Everything the HTTP layer needs, wired from the configuration. */
export interface ReferenceRuntime {
  config: ReferenceConfig;
  db: Db;
  clock: SandboxClock;
  deps: ServiceDeps;
  documents: DocumentStore;
  worker: Worker;
  /** Stop the worker (waiting for its pass) and close the database. */
  close(): Promise<void>;
}

/**
 * Open the database (migrating it), load the sandbox clock, seed the partner credential from the config and build
 * the worker (not started: call `runtime.worker.start()`).
 */
export async function openReference(config: ReferenceConfig, options: { logger?: WorkerLogger } = {}): Promise<ReferenceRuntime> {
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const clock = await loadSandboxClock(db);
    const deps: ServiceDeps = { db, clock, ids: sequenceIds };
    if (config.partnerClientId && config.partnerClientSecret) {
      await ensurePartnerCredential(deps, { clientId: config.partnerClientId, clientSecret: config.partnerClientSecret });
    } else if (config.partnerClientId || config.partnerClientSecret) {
      throw new Error('Set both PAYGATE_PARTNER_CLIENT_ID and PAYGATE_PARTNER_CLIENT_SECRET, or neither');
    }
    const worker = createWorker({
      deps,
      intervalMs: config.workerIntervalMs,
      deliveryTimeoutMs: config.webhookTimeoutMs,
      retrySchedule: config.webhookRetrySchedule,
      sandbox: config.sandbox,
      beforeTick: () => clock.refresh(),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return {
      config,
      db,
      clock,
      deps,
      documents: createDocumentStore(config.dataDir, config.publicBaseUrl),
      worker,
      async close() {
        await worker.flush();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

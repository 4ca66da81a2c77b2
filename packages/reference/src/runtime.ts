import { randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MASTER_KEY_REQUIRED_MESSAGE, type ReferenceConfig } from './core/config.js';
import { withTransactionScopes } from './db/ambient.js';
import { createStorageHealth, watchStorage } from './db/storage-health.js';
import { createTenantShare, defaultTenantShare, TENANT_WAIT_MS, type TenantShare } from './http/tenant-share.js';
import type { HandlerServices } from './http/handler-kit.js';
import type { Db } from './db/db.js';
import { openConfiguredDb } from './db/open.js';
import { createSecretBox, generateMasterKey, MASTER_KEY_HINT, parseMasterKey, SecretBoxError, type SecretBox } from './core/secret-box.js';
import { formatIso } from './core/clock.js';
import { ensurePartnerCredential } from './credentials/service.js';
import { randomIds, type ServiceDeps } from './core/deps.js';
import { createDocumentStore } from './core/documents.js';
import { systemClock } from './core/clock.js';
import { createRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { createReadiness, type Readiness } from './http/readiness.js';
import { createWorker, type Worker, type WorkerLogger } from './worker.js';
import { CREDENTIAL_POLL_MS, CredentialCache } from './credentials/cache.js';
import { markStartupStage } from './core/startup-stages.js';
import { insertInto, sql, VALUE } from './db/insert.js';

/** Everything the HTTP layer needs, wired from the configuration: what handlers get, plus the worker and lifecycle. */
export interface ReferenceRuntime extends HandlerServices {
  /** Where the master key came from (never the key itself), e.g. for a start-up line. */
  masterKey: { source: MasterKeySource['source']; file: string | undefined; created: boolean };
  worker: Worker;
  /** Per credential / client address: in memory, or shared through Redis (REDIS_URL). */
  rateLimiter: RateLimiter;
  /** Credential verification, cached per process and invalidated everywhere on change (PAYGATE_CREDENTIAL_CACHE_TTL_MS, D67). */
  credentials: CredentialCache;
  /** GET /readyz: database and (REDIS_URL) Redis reachable, not draining (D102 liveness and readiness health routes). */
  readiness: Readiness;
  /** Each tenant's share of the PostgreSQL pool (D363 tenant share of the database pool); absent on PGlite (one connection) or when switched off. */
  tenantShare?: TenantShare;
  /** Stop the worker (waiting for its pass) and close the database. */
  close(): Promise<void>;
}

export interface MasterKeySource {
  key: Buffer;
  /** `env`: PAYGATE_MASTER_KEY; `file`: the sandbox key file; `memory`: a per-process key (in-memory data dir). */
  source: 'env' | 'file' | 'memory';
  file?: string;
  created?: boolean;
}

/**
 * The master key: PAYGATE_MASTER_KEY (config.masterKey); else, in sandbox mode only, `<dataDir>/master.key`
 * (base64, mode 0600), created on first start. Several processes may start together: the key is written to a
 * private temporary file and hard-linked into place, so the file appears complete or not at all and exactly one
 * process's key wins; the others read it. A `memory://` data dir gets a per-process key. Production without
 * PAYGATE_MASTER_KEY fails.
 */
export async function resolveMasterKey(config: Pick<ReferenceConfig, 'masterKey' | 'sandbox' | 'dataDir'>): Promise<MasterKeySource> {
  if (config.masterKey) return { key: config.masterKey, source: 'env' };
  if (!config.sandbox) throw new Error(MASTER_KEY_REQUIRED_MESSAGE);
  if (config.dataDir.startsWith('memory://')) return { key: parseMasterKey(generateMasterKey()), source: 'memory' };
  const dir = path.resolve(config.dataDir);
  const file = path.join(dir, 'master.key');
  const readExisting = async (): Promise<MasterKeySource> => {
    const stat = await lstat(file);
    if (!stat.isFile()) throw new Error(`${file} is not a regular file; remove it or set PAYGATE_MASTER_KEY`);
    if ((stat.mode & 0o077) !== 0) await chmod(file, 0o600).catch(() => undefined);
    try {
      return { key: parseMasterKey(await readFile(file, 'utf8')), source: 'file', file, created: false };
    } catch (err) {
      if (err instanceof SecretBoxError) throw new Error(`${file} does not hold a valid master key. ${MASTER_KEY_HINT}`);
      throw err;
    }
  };
  try {
    return await readExisting();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.master.key.${process.pid}.${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, `${generateMasterKey()}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file);
    return { ...(await readExisting()), created: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readExisting(); // another process created it first
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

const CHECK_CONTEXT = 'master_key_check';
const CHECK_TEXT = 'paygate master key check';

/** The master key's canary, written once: the master_key_check row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_CANARY = insertInto(
  'master_key_check',
  { id: sql('1'), sealed: VALUE, created_at: VALUE },
  { tail: 'ON CONFLICT (id) DO NOTHING' },
);

/**
 * Start-up check: the database's sealed canary must open with this key, so a wrong or lost key fails here, loudly,
 * rather than at the first callback or delivery. The first start seals the canary.
 */
export async function checkMasterKey(db: Db, secrets: SecretBox, now: string): Promise<void> {
  // D172: every start but the first finds the canary sealed: one read, no write transaction
  const sealed = (await db.query<{ sealed: string }>('SELECT sealed FROM master_key_check WHERE id = $1', [1])).rows[0]?.sealed;
  if (sealed !== undefined) return openCanary(secrets, sealed);
  return db.transaction(async (tx) => {
    await tx.query(INSERT_CANARY.text, INSERT_CANARY.values({ sealed: secrets.seal(CHECK_TEXT, CHECK_CONTEXT), created_at: now }));
    const { rows } = await tx.query<{ sealed: string }>('SELECT sealed FROM master_key_check WHERE id = 1');
    openCanary(secrets, rows[0]?.sealed ?? '');
  });
}

/** The canary must open with this key to CHECK_TEXT, else the start fails saying what to do. */
function openCanary(secrets: SecretBox, sealed: string): void {
  let opened: string | undefined;
  try {
    opened = secrets.open(sealed, CHECK_CONTEXT);
  } catch {
    opened = undefined;
  }
  if (opened !== CHECK_TEXT) {
    throw new Error(
      'The master key does not match the one this database was sealed with (PAYGATE_MASTER_KEY, or <data dir>/master.key ' +
        'in sandbox mode, or a per-process key for an in-memory data dir). Start with the original key: stored webhook ' +
        'secrets, merchant encryption keys and idempotent responses cannot be read without it. A throwaway sandbox ' +
        'database can instead be recreated empty.',
    );
  }
}

/**
 * Open the database (migrating it), check the master key, seed the partner credential from the config and build
 * the worker (not started: call `runtime.worker.start()`).
 */
export async function openReference(
  config: ReferenceConfig,
  options: {
    logger?: WorkerLogger /** Run the scheduled jobs (production settlement runs); default true. D101. */;
    scheduledJobs?: boolean;
    /**
     * The configured database, already opening (`openConfiguredDb(config)`): paygate serve starts it before loading
     * the rest (D173 database opened while modules load). Taken over here: closed if the start fails. Default: opened here, after the master key.
     */
    db?: Promise<Db>;
  } = {},
): Promise<ReferenceRuntime> {
  let master: MasterKeySource;
  try {
    master = await resolveMasterKey(config);
  } catch (err) {
    await options.db?.then(
      (db) => db.close(),
      () => undefined,
    );
    throw err;
  }
  const secrets = createSecretBox(master.key);
  markStartupStage('master key read');
  if (master.source === 'file' && master.created) {
    options.logger?.info(
      { file: master.file },
      'sandbox: generated a master key for stored secrets (keep this file; set PAYGATE_MASTER_KEY in production)',
    );
  }
  // Honest storage failures (D361 running out of a resource classified): every failed statement is shown to the storage health, which /readyz reads.
  const storage = createStorageHealth(options.logger ? { logger: options.logger } : {});
  const db = withTransactionScopes(watchStorage(await (options.db ?? openConfiguredDb(config)), storage));
  try {
    // the gateway's clock; each merchant's sandbox clock is an offset from it, read where it is used (D38 per-merchant sandbox clocks)
    const clock = systemClock;
    await checkMasterKey(db, secrets, formatIso(clock.now()));
    markStartupStage('master key checked');
    const deps: ServiceDeps = { db, clock, ids: randomIds(), secrets };
    if (config.partnerClientId && config.partnerClientSecret) {
      await ensurePartnerCredential(deps, { clientId: config.partnerClientId, clientSecret: config.partnerClientSecret });
    } else if (config.partnerClientId || config.partnerClientSecret) {
      throw new Error('Set both PAYGATE_PARTNER_CLIENT_ID and PAYGATE_PARTNER_CLIENT_SECRET, or neither');
    }
    markStartupStage('partner credential stored');
    const worker = createWorker({
      deps,
      intervalMs: config.workerIntervalMs,
      deliveryTimeoutMs: config.webhookTimeoutMs,
      batchSize: config.webhookConcurrency,
      settlementBatchSize: config.settlementBatchSize,
      perEndpointConcurrency: config.webhookEndpointConcurrency,
      // one worker of a `--workers N` fleet runs the scheduled settlements; every worker drains the queues (D101 every worker process runs the background queues)
      ...(config.sandbox || options.scheduledJobs === false ? {} : { settlementIntervalSeconds: config.settlementIntervalSeconds }),
      retrySchedule: config.webhookRetrySchedule,
      sandbox: config.sandbox,
      allowPrivateDestinations: config.webhookPrivateDestinations,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const credentials = new CredentialCache(db, {
      ttlMs: config.credentialCacheTtlMs,
      now: () => clock.now(),
      // PostgreSQL without a direct URL for LISTEN: DATABASE_URL may be a transaction pooler, where notifications are
      // lost without an error, so credential changes are polled as well (D352 notifications through a pooler: direct or polling)
      ...(config.databaseUrl && !config.databaseDirectUrl ? { pollMs: CREDENTIAL_POLL_MS } : {}),
    });
    await credentials.start();
    markStartupStage('credential cache listening');
    const rateLimiter = createRateLimiter({
      defaults: { limit: config.rateLimit, windowSeconds: config.rateWindowSeconds },
      redisUrl: config.redisUrl,
      redisTimeoutMs: config.redisTimeoutMs,
      keyPrefix: config.redisKeyPrefix,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const readiness = createReadiness({ db, storage, redisUrl: config.redisUrl, ...(options.logger ? { logger: options.logger } : {}) });
    // Bounded waits per tenant (D363 tenant share of the database pool): a tenant's share of this process's pool, waiting at most as long as a pool
    // checkout does. PGlite has one connection and serialises transactions: no request waits there on another's lock.
    const tenantShareSize = config.tenantShare.share ?? defaultTenantShare(config.dbPoolSize);
    const tenantShare =
      db.kind === 'postgres' && tenantShareSize > 0
        ? createTenantShare({ share: tenantShareSize, queue: config.tenantShare.queue, waitMs: TENANT_WAIT_MS })
        : undefined;
    return {
      config,
      db,
      ...(tenantShare ? { tenantShare } : {}),
      clock,
      deps,
      masterKey: { source: master.source, file: master.file, created: master.created ?? false },
      documents: createDocumentStore(config.dataDir, config.publicBaseUrl),
      worker,
      rateLimiter,
      credentials,
      readiness,
      async close() {
        readiness.markDraining();
        await worker.flush();
        await credentials.stop();
        await rateLimiter.close();
        await readiness.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}

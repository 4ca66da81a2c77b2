import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from './core/config.js';
import { purgeExpiredIdempotencyKeys } from './idempotency/store.js';
import type { ServiceDeps } from './core/deps.js';
import { expireDueOrders } from './orders/service.js';
import { processDueRefunds, SANDBOX_REFUND_SECONDS } from './refunds/service.js';
import { processDueS2sCollections, S2S_AUTO_COMPLETE_SECONDS } from './payments/s2s.js';
import { runSettlements } from './settlements/service.js';
import {
  claimDueDeliveries,
  recordAttempts,
  sendDelivery,
  type AttemptOutcome,
  type AttemptResult,
  type ClaimedDelivery,
} from './webhooks/deliveries.js';
import { fanOutEvents } from './webhooks/fanout.js';
import { endpointBackoffSeconds, noteEndpointHealth } from './webhooks/endpoint-health.js';
import { createWebhookTransport, type WebhookTransport } from './webhooks/transport.js';

/** Minimal logger (pino-compatible). Never receives secrets. */
export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface WorkerOptions {
  deps: ServiceDeps;
  /** Poll interval (default 1000 ms). */
  intervalMs?: number;
  /** Webhook retry delays in seconds (default: the brief's 5 s .. 10 h schedule). */
  retrySchedule?: readonly number[];
  /** +- fraction applied to each delay (default 0.1). */
  jitter?: number;
  /** Run sandbox automation: refunds PROCESSED after 60 s, success@/failure@paygate collections after 5 s. */
  sandbox?: boolean;
  refundAfterSeconds?: number;
  s2sAfterSeconds?: number;
  /** Called at the start of each tick. */
  beforeTick?: () => Promise<unknown>;
  /**
   * Production: run settlements for every merchant this often (seconds; unset = never, as in the sandbox, where
   * POST /sandbox/settlements/run does it). Several processes may run it: the run locks what it settles.
   */
  settlementIntervalSeconds?: number;
  /** Payments per batch transaction of the scheduled settlement run (default 1000, D112). */
  settlementBatchSize?: number;
  /** Most deliveries in flight in this process (default 256, D114). */
  batchSize?: number;
  /** Most deliveries of one endpoint in flight in this process (default 32): a slow endpoint holds only these (D114 transactional outbox kept over a job queue). */
  perEndpointConcurrency?: number;
  deliveryTimeoutMs?: number;
  /**
   * How deliveries are sent (default: one built from `allowPrivateDestinations`). A transport given here is the caller's
   * to close.
   */
  transport?: WebhookTransport;
  /** Without `transport`: whether deliveries may reach private, loopback, link-local and metadata addresses (D35 webhooks never reach private addresses). */
  allowPrivateDestinations?: boolean;
  logger?: WorkerLogger;
}

export interface TickReport {
  expiredOrders: number;
  processedRefunds: number;
  completedCollections: number;
  fannedOutEvents: number;
  /** Settlements created by the scheduled run in this pass. */
  settlements: number;
  deliveries: { succeeded: number; retry: number; failed: number };
}

export interface Worker {
  /** Start polling (idempotent). */
  start(): void;
  /** Run one pass now (awaits any pass already running first). */
  tick(): Promise<TickReport>;
  /** Graceful shutdown: stop polling and wait for the pass in progress (and its deliveries) to finish. */
  flush(): Promise<void>;
  readonly running: boolean;
}

const HOUSEKEEPING_EVERY_TICKS = 60;
/** NOTIFY channel of new events and deliveries (migration 013's triggers). */
export const WEBHOOK_CHANNEL = 'paygate_webhooks';
export const DEFAULT_DELIVERY_CONCURRENCY = 256;
export const DEFAULT_ENDPOINT_CONCURRENCY = 32;
/** Events fanned out per statement. */
const FANOUT_BATCH = 500;
/** Attempts recorded per statement at most. */
const RECORD_BATCH = 200;

/**
 * Attempts are recorded in batches (D114 transactional outbox kept over a job queue): results that finish together share one statement (recordAttempts), so the
 * database sees one commit per batch, not one transaction per delivery. A result waits at most for the statement in
 * progress; nothing is acknowledged before it is recorded.
 */
export function createAttemptRecorder(
  write: (items: { d: ClaimedDelivery; result: AttemptResult }[]) => Promise<AttemptOutcome[]>,
  maxBatch = RECORD_BATCH,
): { record(d: ClaimedDelivery, result: AttemptResult): Promise<AttemptOutcome> } {
  type Waiting = { d: ClaimedDelivery; result: AttemptResult; resolve: (o: AttemptOutcome) => void; reject: (e: unknown) => void };
  let queue: Waiting[] = [];
  let writing = false;
  async function drain(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      try {
        const outcomes = await write(batch.map(({ d, result }) => ({ d, result })));
        batch.forEach((w, i) => w.resolve(outcomes[i] ?? 'failed'));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    writing = false;
  }
  return {
    record(d, result) {
      return new Promise<AttemptOutcome>((resolve, reject) => {
        queue.push({ d, result, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}

export function createWorker(options: WorkerOptions): Worker {
  const { deps } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const schedule = options.retrySchedule ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const log = options.logger;
  const ownTransport = options.transport
    ? undefined
    : createWebhookTransport({ allowPrivateDestinations: options.allowPrivateDestinations ?? false });
  const transport = options.transport ?? (ownTransport as WebhookTransport);
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<TickReport> | undefined;
  let stopped = true;
  let ticks = 0;

  let lastSettlementRun: number | undefined;
  async function scheduledSettlements(): Promise<number> {
    const every = options.settlementIntervalSeconds;
    if (every === undefined) return 0;
    const now = deps.clock.now() / 1_000_000;
    if (lastSettlementRun !== undefined && now - lastSettlementRun < every) return 0;
    lastSettlementRun = now;
    const created = await runSettlements(deps, null, options.settlementBatchSize ? { batchSize: options.settlementBatchSize } : {});
    if (created.length > 0) log?.info({ settlements: created.length }, 'scheduled settlement run');
    return created.length;
  }

  /** Deliveries being sent now, and how many per endpoint (the per-endpoint cap, D114). */
  const inFlight = new Set<Promise<void>>();
  const busy = new Map<string, number>();
  const maxInFlight = options.batchSize ?? DEFAULT_DELIVERY_CONCURRENCY;
  const perEndpoint = Math.min(options.perEndpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY, maxInFlight);
  const jitter = options.jitter ?? 0.1;
  const backoffSeconds = endpointBackoffSeconds(schedule, jitter);
  const recorder = createAttemptRecorder(async (items) => {
    // endpoint-level backoff first (D342 fair webhook claim across endpoints): while these deliveries are still claimed, no claim can pick the endpoint's
    // other due work between the failure being recorded and the endpoint being marked failing
    await noteEndpointHealth(deps, items, backoffSeconds).catch((err: unknown) =>
      log?.warn({ err }, 'webhook endpoint health not recorded'),
    );
    return recordAttempts(deps, items, schedule, jitter);
  });

  function deliver(d: ClaimedDelivery, report?: TickReport): Promise<void> {
    busy.set(d.endpoint_id, (busy.get(d.endpoint_id) ?? 0) + 1);
    const sending = (async () => {
      const result = await sendDelivery(deps, d, { transport, timeoutMs: options.deliveryTimeoutMs ?? 10_000 });
      const outcome = await recorder.record(d, result);
      if (report) report.deliveries[outcome]++;
      log?.info(
        {
          delivery_id: d.id,
          event_id: d.event_id,
          attempt: d.attempt,
          status_code: result.statusCode,
          outcome,
          ...(result.ok ? {} : { error: result.error }),
        },
        'webhook delivery attempt',
      );
    })().catch((err: unknown) => log?.error({ err, delivery_id: d.id }, 'webhook delivery failed to record'));
    inFlight.add(sending);
    void sending.finally(() => {
      inFlight.delete(sending);
      const n = (busy.get(d.endpoint_id) ?? 1) - 1;
      if (n > 0) busy.set(d.endpoint_id, n);
      else busy.delete(d.endpoint_id);
      // a slot is free: claim what may wait for it (wake-ups coalesce while a pump runs, so this is one pump per burst;
      // waking only when the last claim looked room-limited lost the wake of a slot freed during that claim)
      if (!stopped) wake();
    });
    return sending;
  }

  /**
   * Fan out new events and claim due deliveries while there is room (D114 transactional outbox kept over a job queue), in batches: woken by NOTIFY on new events
   * and deliveries, by a finished delivery, and by the poll (retries falling due). Sends are not awaited here.
   */
  async function pump(report?: TickReport): Promise<Promise<void>[]> {
    const sends: Promise<void>[] = [];
    for (;;) {
      const fanned = await fanOutEvents(deps, FANOUT_BATCH);
      if (report) report.fannedOutEvents += fanned;
      if (fanned === FANOUT_BATCH) continue;
      break;
    }
    for (;;) {
      const room = maxInFlight - inFlight.size;
      if (room <= 0) break;
      const claimed = await claimDueDeliveries(deps, room, { perEndpointCap: perEndpoint, busy });
      for (const d of claimed) sends.push(deliver(d, report));
      // fewer than asked: nothing else is due, or what is due belongs to endpoints at their cap (claimed when they free)
      if (claimed.length < room) break;
    }
    return sends;
  }

  let pumping: Promise<void> | undefined;
  let again = false;
  /** Run the pump now, or once more after the run in progress (wake-ups coalesce). */
  function wake(): void {
    if (pumping !== undefined) {
      again = true;
      return;
    }
    pumping = (async () => {
      do {
        again = false;
        await pump().catch((err: unknown) => log?.error({ err }, 'webhook pump failed'));
      } while (again && !stopped);
    })().finally(() => {
      pumping = undefined;
    });
  }

  let stopListening: (() => Promise<void>) | undefined;
  async function listenForWork(): Promise<void> {
    try {
      const stop = await deps.db.listen(WEBHOOK_CHANNEL, { onNotify: () => wake(), onReady: () => wake(), onLost: () => undefined });
      if (stopped) await stop();
      else stopListening = stop;
    } catch (err) {
      log?.warn({ err }, 'webhook wake-ups unavailable: deliveries follow the poll interval');
    }
  }

  /**
   * One pass: housekeeping moves, then the webhook pump. `waitForDeliveries` (tick(), tests, shutdown) awaits this
   * pass's sends; the background loop does not, so one receiver that hangs until the timeout holds up nothing else.
   */
  async function pass(waitForDeliveries: boolean): Promise<TickReport> {
    await options.beforeTick?.();
    const report: TickReport = {
      expiredOrders: await expireDueOrders(deps),
      processedRefunds: options.sandbox ? await processDueRefunds(deps, options.refundAfterSeconds ?? SANDBOX_REFUND_SECONDS) : 0,
      completedCollections: options.sandbox
        ? await processDueS2sCollections(deps, options.s2sAfterSeconds ?? S2S_AUTO_COMPLETE_SECONDS)
        : 0,
      fannedOutEvents: 0,
      settlements: await scheduledSettlements(),
      deliveries: { succeeded: 0, retry: 0, failed: 0 },
    };
    if (waitForDeliveries) {
      while (pumping !== undefined) await pumping;
      await Promise.all(await pump(report));
    } else {
      wake();
    }
    if (++ticks % HOUSEKEEPING_EVERY_TICKS === 0) {
      await purgeExpiredIdempotencyKeys(deps.db, deps.clock);
    }
    return report;
  }

  async function runPass(waitForDeliveries: boolean): Promise<TickReport> {
    while (current) await current.catch(() => undefined);
    const run = pass(waitForDeliveries);
    current = run;
    try {
      return await run;
    } finally {
      if (current === run) current = undefined;
    }
  }

  const tick = (): Promise<TickReport> => runPass(true);

  function scheduleNext(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      runPass(false)
        .catch((err: unknown) => log?.error({ err }, 'worker pass failed'))
        .finally(scheduleNext);
    }, intervalMs);
    timer.unref?.();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      void listenForWork();
      scheduleNext();
    },
    tick,
    async flush() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await stopListening?.();
      stopListening = undefined;
      while (current) await current.catch(() => undefined);
      while (pumping !== undefined) await pumping;
      await Promise.all(inFlight);
      ownTransport?.close();
    },
    get running() {
      return !stopped;
    },
  };
}

import { DEFAULT_WEBHOOK_RETRY_SCHEDULE } from './core/config.js';
import { purgeExpiredIdempotencyKeys } from './http/idempotency.js';
import type { ServiceDeps } from './core/deps.js';
import { expireDueOrders } from './orders/service.js';
import { processDueRefunds, SANDBOX_REFUND_SECONDS } from './refunds/service.js';
import { processDueS2sCollections, S2S_AUTO_COMPLETE_SECONDS } from './payments/s2s.js';
import { runSettlements } from './settlements/service.js';
import { claimDueDeliveries, recordAttempt, sendDelivery, type ClaimedDelivery } from './webhooks/deliveries.js';
import { fanOutEvents } from './webhooks/fanout.js';
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
  /** Deliveries claimed per tick (default 20), sent concurrently. */
  batchSize?: number;
  deliveryTimeoutMs?: number;
  /**
   * How deliveries are sent (default: one built from `allowPrivateDestinations`). A transport given here is the caller's
   * to close.
   */
  transport?: WebhookTransport;
  /** Without `transport`: whether deliveries may reach private, loopback, link-local and metadata addresses (D35). */
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

export function createWorker(options: WorkerOptions): Worker {
  const { deps } = options;
  const intervalMs = options.intervalMs ?? 1000;
  const schedule = options.retrySchedule ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const log = options.logger;
  const ownTransport = options.transport ? undefined : createWebhookTransport({ allowPrivateDestinations: options.allowPrivateDestinations ?? false });
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
    const created = await runSettlements(deps);
    if (created.length > 0) log?.info({ settlements: created.length }, 'scheduled settlement run');
    return created.length;
  }

  /** Deliveries being sent now; the background loop never waits for a slow receiver before claiming more. */
  const inFlight = new Set<Promise<void>>();
  const maxInFlight = options.batchSize ?? 20;

  function deliver(d: ClaimedDelivery, report: TickReport): Promise<void> {
    const sending = (async () => {
      const result = await sendDelivery(deps, d, { transport, timeoutMs: options.deliveryTimeoutMs ?? 10_000 });
      const outcome = await recordAttempt(deps, d, result, schedule, options.jitter ?? 0.1);
      report.deliveries[outcome]++;
      log?.info(
        { delivery_id: d.id, event_id: d.event_id, attempt: d.attempt, status_code: result.statusCode, outcome, ...(result.ok ? {} : { error: result.error }) },
        'webhook delivery attempt',
      );
    })().catch((err: unknown) => log?.error({ err, delivery_id: d.id }, 'webhook delivery failed to record'));
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
    return sending;
  }

  /**
   * One pass: housekeeping moves, fan-out, then claim as many due deliveries as there is room for. `waitForDeliveries`
   * (tick(), tests, shutdown) awaits this pass's sends; the background loop does not, so one receiver that hangs
   * until the timeout holds up nothing else.
   */
  async function pass(waitForDeliveries: boolean): Promise<TickReport> {
    await options.beforeTick?.();
    const report: TickReport = {
      expiredOrders: await expireDueOrders(deps),
      processedRefunds: options.sandbox ? await processDueRefunds(deps, options.refundAfterSeconds ?? SANDBOX_REFUND_SECONDS) : 0,
      completedCollections: options.sandbox ? await processDueS2sCollections(deps, options.s2sAfterSeconds ?? S2S_AUTO_COMPLETE_SECONDS) : 0,
      fannedOutEvents: 0,
      settlements: await scheduledSettlements(),
      deliveries: { succeeded: 0, retry: 0, failed: 0 },
    };
    report.fannedOutEvents = await fanOutEvents(deps);
    const room = maxInFlight - inFlight.size;
    const claimed = room > 0 ? await claimDueDeliveries(deps, room) : [];
    const sends = claimed.map((d) => deliver(d, report));
    if (waitForDeliveries) await Promise.all(sends);
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
      scheduleNext();
    },
    tick,
    async flush() {
      stopped = true;
      if (timer) clearTimeout(timer);
      while (current) await current.catch(() => undefined);
      await Promise.all(inFlight);
      ownTransport?.close();
    },
    get running() {
      return !stopped;
    },
  };
}

/**
 * The supervisor of `paygate serve --workers N` (D100 worker processes under a supervisor): the `node:cluster` primary. It opens no database and serves
 * no request; it forks N workers that share one listening port, restarts a worker that dies (backing off as
 * ./restart-policy.ts says, logged), and on SIGTERM/SIGINT tells every worker to drain and exits after them (a worker
 * still starting is sent SIGTERM instead, which it cannot miss: D360).
 *
 * Exit code (the promise `done`): 0 after a drain in which every worker stopped cleanly within the bound; 1 when a
 * worker could not start, when workers kept dying (the crash-loop bound), or when a worker had to be killed or failed
 * while draining.
 */
import type { Address, Worker as ClusterWorker } from 'node:cluster';
import { createRestartPolicy, type RestartPolicy } from './restart-policy.js';

/** The message a worker drains on (sent by the primary; see ./worker.ts). */
export const DRAIN_MESSAGE = { paygate: 'drain' } as const;
/** The environment variable that tells a worker its slot (0..N-1). Slot 0 runs the scheduled jobs (D101 every worker process runs the background queues). */
export const WORKER_SLOT_ENV = 'PAYGATE_WORKER_SLOT';

/** What the supervisor uses of `node:cluster` (the tests give it a fake). */
export interface ClusterLike {
  fork(env?: NodeJS.ProcessEnv): Pick<ClusterWorker, 'process' | 'send' | 'on' | 'once'>;
}

/** pino's shape; the supervisor's own lines (never a secret). `pid` is pino's own (the supervisor's): workers are `worker_pid`. */
export interface SupervisorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SupervisorOptions {
  workers: number;
  cluster: ClusterLike;
  logger: SupervisorLogger;
  /** Extra environment of every worker (the slot is added). */
  env?: NodeJS.ProcessEnv;
  /** How long the workers get to drain after the primary asks them to; then they are killed (SIGKILL). */
  drainBoundMs: number;
  policy?: RestartPolicy;
  timers?: Timers;
  /** Every worker of the first start is listening (once). */
  onRunning?: (pids: number[], address: Address) => void;
}

export interface Supervisor {
  /** Resolves with the exit code once every worker has exited after a stop (or a give-up). */
  readonly done: Promise<number>;
  /** Drain: no more restarts, every worker asked to finish its in-flight requests and exit. Idempotent. */
  stop(reason: string): void;
  /** Kill every worker now (a second signal). */
  killNow(): void;
  /** Pids of the workers alive now, by slot. */
  pids(): Map<number, number>;
}

type Phase = 'starting' | 'running' | 'stopping';
type Live = {
  worker: ReturnType<ClusterLike['fork']>;
  pid: number;
  listening: boolean;
  /** Stopped by the supervisor's drain before it listened (SIGTERM): its exit by that signal is clean. */
  stoppedStarting: boolean;
};

export function startSupervisor(options: SupervisorOptions): Supervisor {
  const { cluster, logger, workers } = options;
  const policy = options.policy ?? createRestartPolicy();
  const timers: Timers = options.timers ?? {
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
  const live = new Map<number, Live>();
  const pendingRestart = new Map<number, unknown>();
  let phase: Phase = 'starting';
  let exitCode = 0;
  let drainTimer: unknown;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));

  function finishIfDrained(): void {
    if (phase !== 'stopping' || live.size > 0) return;
    if (drainTimer !== undefined) timers.clearTimeout(drainTimer);
    drainTimer = undefined;
    resolveDone(exitCode);
  }

  function fork(slot: number): void {
    const worker = cluster.fork({ ...options.env, [WORKER_SLOT_ENV]: String(slot) });
    const pid = worker.process.pid ?? -1;
    const entry: Live = { worker, pid, listening: false, stoppedStarting: false };
    live.set(slot, entry);
    policy.started(slot);
    worker.on('listening', (address: Address) => {
      entry.listening = true;
      if (phase === 'stopping') {
        // A drain always drains (D360 drain reaches workers still starting): a worker that was starting when the drain began got SIGTERM, which it honours
        // once it can (its handlers are registered before it starts); the message is sent as well, in case it started
        // listening before that signal's handler could run.
        sendDrain(entry);
        return;
      }
      if (phase === 'running') logger.info({ slot, worker_pid: pid }, 'supervisor: worker is serving');
      if (phase === 'starting' && [...live.values()].length === workers && [...live.values()].every((w) => w.listening)) {
        phase = 'running';
        logger.info({ workers, worker_pids: [...live.values()].map((w) => w.pid) }, 'supervisor: every worker is serving');
        options.onRunning?.(
          [...live.values()].map((w) => w.pid),
          address,
        );
      }
    });
    worker.once('exit', (code: number | null, signal: string | null) => {
      if (live.get(slot)?.worker === worker) live.delete(slot);
      if (phase === 'stopping') {
        const clean = code === 0 || (entry.stoppedStarting && !entry.listening && signal === 'SIGTERM');
        if (!clean) exitCode = 1;
        logger.info({ slot, worker_pid: pid, code, signal }, 'supervisor: worker stopped');
        finishIfDrained();
        return;
      }
      if (phase === 'starting' && !entry.listening) {
        // The first start failed (a wrong DATABASE_URL, a port in use...): the worker said why on stderr; restarting
        // it would print the same thing again and again.
        logger.error(
          { slot, worker_pid: pid, code, signal },
          'supervisor: a worker could not start; stopping (its error is printed above)',
        );
        exitCode = 1;
        stop('a worker could not start');
        return;
      }
      const decision = policy.died(slot);
      if (decision.action === 'give-up') {
        logger.error(
          { slot, worker_pid: pid, code, signal, deaths: decision.deaths, window_ms: decision.windowMs },
          'supervisor: workers keep dying (crash loop); giving up: draining the others and exiting 1',
        );
        exitCode = 1;
        stop('crash loop');
        return;
      }
      logger.warn(
        { slot, worker_pid: pid, code, signal, restart_in_ms: decision.delayMs, attempt: decision.attempt },
        'supervisor: worker died; restarting it',
      );
      pendingRestart.set(
        slot,
        timers.setTimeout(() => {
          pendingRestart.delete(slot);
          if (phase !== 'stopping') fork(slot);
        }, decision.delayMs),
      );
    });
  }

  function stop(reason: string): void {
    if (phase === 'stopping') return;
    phase = 'stopping';
    for (const handle of pendingRestart.values()) timers.clearTimeout(handle);
    pendingRestart.clear();
    logger.info({ reason, workers: live.size, bound_ms: options.drainBoundMs }, 'supervisor: draining the workers');
    for (const entry of live.values()) {
      if (entry.listening) sendDrain(entry);
      else {
        // Drain that always drains (D360 drain reaches workers still starting): a worker still starting (a restart after a death, the first start) may not
        // be listening for the drain message yet (it is lost then, and the worker would serve after the drain began):
        // a signal reaches it whatever it is doing. Before its handlers exist SIGTERM ends it (it has answered nothing);
        // after, it stops before listening, or drains if it already listens.
        entry.stoppedStarting = true;
        try {
          entry.worker.process.kill('SIGTERM');
        } catch {
          /* already gone */
        }
      }
    }
    drainTimer = timers.setTimeout(() => {
      drainTimer = undefined;
      if (live.size === 0) return;
      logger.error(
        { worker_pids: [...live.values()].map((w) => w.pid), bound_ms: options.drainBoundMs },
        'supervisor: workers did not stop in time; killing them',
      );
      exitCode = 1;
      killNow();
    }, options.drainBoundMs);
    finishIfDrained();
  }

  function sendDrain(entry: Live): void {
    try {
      entry.worker.send(DRAIN_MESSAGE);
    } catch {
      /* its channel is already closed: it is exiting */
    }
  }

  function killNow(): void {
    exitCode = 1;
    if (phase !== 'stopping') stop('killed');
    // straight to the process: cluster's worker.kill() disconnects first and waits for the worker to agree
    for (const { worker } of live.values()) worker.process.kill('SIGKILL');
  }

  for (let slot = 0; slot < workers; slot++) fork(slot);

  return {
    done,
    stop,
    killNow,
    pids: () => new Map([...live].map(([slot, w]) => [slot, w.pid])),
  };
}

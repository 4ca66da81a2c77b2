import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createRestartPolicy } from './restart-policy.js';
import { DRAIN_MESSAGE, startSupervisor, WORKER_SLOT_ENV, type ClusterLike, type Timers } from './primary.js';

/** A worker process as the supervisor sees it; the test makes it listen, exit, or answer a drain. */
class FakeWorker extends EventEmitter {
  readonly messages: unknown[] = [];
  readonly signals: string[] = [];
  readonly process: { pid: number; kill: (signal: string) => boolean };
  constructor(
    readonly pid: number,
    readonly env: NodeJS.ProcessEnv,
  ) {
    super();
    this.process = { pid, kill: (signal) => (this.signals.push(signal), true) };
  }
  send(message: unknown): boolean {
    this.messages.push(message);
    return true;
  }
  listen(): void {
    this.emit('listening', { address: '127.0.0.1', port: 8080, addressType: 4 });
  }
  exit(code: number | null, signal: string | null = null): void {
    this.emit('exit', code, signal);
  }
}

/** Fake cluster, timers the test fires by hand, and a clock. */
function harness(workers: number, policyOptions: Parameters<typeof createRestartPolicy>[0] = {}) {
  let now = 0;
  let nextPid = 100;
  const forked: FakeWorker[] = [];
  const cluster: ClusterLike = {
    fork(env) {
      const w = new FakeWorker(nextPid++, env ?? {});
      forked.push(w);
      return w as unknown as ReturnType<ClusterLike['fork']>;
    },
  };
  const pending = new Map<number, { at: number; fn: () => void; ms: number }>();
  let nextTimer = 1;
  const timers: Timers = {
    setTimeout(fn, ms) {
      const id = nextTimer++;
      pending.set(id, { at: now + ms, fn, ms });
      return id;
    },
    clearTimeout(id) {
      pending.delete(id as number);
    },
  };
  const logs: { level: string; msg: string; obj: object }[] = [];
  const log = (level: string) => (obj: object, msg?: string) => logs.push({ level, msg: msg ?? '', obj });
  const running: number[][] = [];
  const supervisor = startSupervisor({
    workers,
    cluster,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    drainBoundMs: 15_000,
    policy: createRestartPolicy({ ...policyOptions, now: () => now }),
    timers,
    onRunning: (pids) => running.push(pids),
  });
  /** Move the clock and fire what is due, in order. */
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= now && pending.delete(id)) t.fn();
    }
  };
  const exitCode = async () => Promise.race([supervisor.done, new Promise<'running'>((r) => setTimeout(() => r('running'), 20))]);
  return { supervisor, forked, pending, advance, logs, running, exitCode };
}

describe('supervisor (the node:cluster primary of paygate serve --workers N, D100)', () => {
  it('forks one worker per slot and reports running once every worker listens', () => {
    const h = harness(3);
    expect(h.forked.map((w) => w.env[WORKER_SLOT_ENV])).toEqual(['0', '1', '2']);
    h.forked[0]!.listen();
    h.forked[1]!.listen();
    expect(h.running).toEqual([]);
    h.forked[2]!.listen();
    expect(h.running).toEqual([[100, 101, 102]]);
  });

  it('restarts a worker that dies, in the same slot, after the backoff, and logs it', async () => {
    const h = harness(2);
    for (const w of h.forked) w.listen();
    h.advance(60_000);
    h.forked[1]!.exit(null, 'SIGKILL');
    expect(h.logs.at(-1)).toMatchObject({
      level: 'warn',
      msg: 'supervisor: worker died; restarting it',
      obj: { slot: 1, worker_pid: 101, signal: 'SIGKILL', restart_in_ms: 200 },
    });
    h.advance(199);
    expect(h.forked).toHaveLength(2);
    h.advance(1);
    expect(h.forked).toHaveLength(3);
    expect(h.forked[2]!.env[WORKER_SLOT_ENV]).toBe('1');
    expect(h.supervisor.pids()).toEqual(
      new Map([
        [0, 100],
        [1, 102],
      ]),
    );
    // dies again quickly: twice the wait
    h.advance(50);
    h.forked[2]!.exit(1);
    expect(h.logs.at(-1)?.obj).toMatchObject({ slot: 1, restart_in_ms: 400, attempt: 2 });
    expect(await h.exitCode()).toBe('running');
  });

  it('stops and exits 1 when a worker cannot start (nothing restarts it)', async () => {
    const h = harness(2);
    h.forked[0]!.listen();
    h.forked[1]!.exit(1);
    expect(h.forked[0]!.messages).toEqual([DRAIN_MESSAGE]);
    h.forked[0]!.exit(0);
    expect(await h.exitCode()).toBe(1);
    expect(h.forked).toHaveLength(2);
    expect(h.logs.some((l) => l.level === 'error' && /could not start/.test(l.msg))).toBe(true);
  });

  it('gives up on a crash loop: drains the rest and exits 1', async () => {
    const h = harness(2, { maxRestarts: 3, windowMs: 60_000 });
    for (const w of h.forked) w.listen();
    for (let i = 0; i < 3; i++) {
      h.forked.at(-1)!.exit(1);
      h.advance(10_000); // past any backoff: the restart happens
      h.forked.at(-1)!.listen();
    }
    expect(h.forked).toHaveLength(5);
    h.forked.at(-1)!.exit(1); // the 4th death within a minute
    expect(h.logs.at(-2)).toMatchObject({ level: 'error', msg: expect.stringMatching(/crash loop/), obj: { deaths: 4 } });
    h.advance(10_000);
    expect(h.forked).toHaveLength(5); // no restart
    expect(h.forked[0]!.messages).toEqual([DRAIN_MESSAGE]);
    h.forked[0]!.exit(0);
    expect(await h.exitCode()).toBe(1);
  });

  it('drains on stop: every worker is asked, nothing restarts, exit 0 when all stop cleanly', async () => {
    const h = harness(2);
    for (const w of h.forked) w.listen();
    h.forked[0]!.exit(null, 'SIGKILL');
    expect(h.pending.size).toBe(1); // a restart is scheduled...
    h.supervisor.stop('SIGTERM');
    expect(h.pending.size).toBe(1); // ...and cancelled; only the drain bound is pending
    expect(h.forked[1]!.messages).toEqual([DRAIN_MESSAGE]);
    h.advance(10_000);
    expect(h.forked).toHaveLength(2);
    expect(await h.exitCode()).toBe('running');
    h.forked[1]!.exit(0);
    expect(await h.exitCode()).toBe(0);
  });

  it('kills the workers that outlive the drain bound, and exits 1', async () => {
    const h = harness(2);
    for (const w of h.forked) w.listen();
    h.supervisor.stop('SIGTERM');
    h.forked[0]!.exit(0);
    h.advance(15_000);
    expect(h.forked[1]!.signals).toEqual(['SIGKILL']);
    h.forked[1]!.exit(null, 'SIGKILL');
    expect(await h.exitCode()).toBe(1);
  });

  it('exits 1 when a worker fails while draining', async () => {
    const h = harness(2);
    for (const w of h.forked) w.listen();
    h.supervisor.stop('SIGINT');
    h.forked[0]!.exit(0);
    h.forked[1]!.exit(1);
    expect(await h.exitCode()).toBe(1);
  });

  it('a drain that begins while a worker restarts stops that worker by signal, and exits 0 (D360)', async () => {
    const h = harness(2);
    for (const w of h.forked) w.listen();
    h.advance(60_000);
    h.forked[0]!.exit(null, 'SIGKILL');
    h.advance(200); // the replacement is forked...
    const replacement = h.forked[2]!;
    expect(replacement.env[WORKER_SLOT_ENV]).toBe('0');
    h.supervisor.stop('SIGTERM'); // ...and the drain begins before it listens
    expect(replacement.signals).toEqual(['SIGTERM']); // a signal reaches it whatever it is doing
    expect(h.forked[1]!.messages).toEqual([DRAIN_MESSAGE]);
    h.forked[1]!.exit(0);
    replacement.exit(null, 'SIGTERM'); // ended before its handlers existed: it had answered nothing
    expect(await h.exitCode()).toBe(0);
  });

  it('a starting worker that listens after the drain began is told to drain at once (D360)', async () => {
    const h = harness(2);
    h.forked[0]!.listen();
    h.supervisor.stop('SIGTERM');
    expect(h.forked[1]!.signals).toEqual(['SIGTERM']);
    expect(h.forked[1]!.messages).toEqual([]);
    h.forked[1]!.listen(); // it was already past the point where it could stop before listening
    expect(h.forked[1]!.messages).toEqual([DRAIN_MESSAGE]);
    expect(h.running).toEqual([]); // not reported as running
    h.forked[0]!.exit(0);
    h.forked[1]!.exit(0);
    expect(await h.exitCode()).toBe(0);
  });

  it('a worker that dies by another cause while draining still makes the exit 1', async () => {
    const h = harness(2);
    h.forked[0]!.listen();
    h.supervisor.stop('SIGTERM');
    h.forked[0]!.exit(0);
    h.forked[1]!.exit(1); // stopped while starting, but failed instead of stopping
    expect(await h.exitCode()).toBe(1);
  });
});

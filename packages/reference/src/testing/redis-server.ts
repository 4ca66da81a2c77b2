import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A throwaway `redis-server` on a free loopback port, for tests that must take Redis away and bring it back (the
 * machine's shared Redis on 6379 is never stopped by a test). Nothing is persisted: a restart starts empty, as the
 * rate limiter's counters may.
 */
export interface ThrowawayRedis {
  readonly port: number;
  readonly url: string;
  /** Kill -9 the server (an outage as a crash, not a clean shutdown). */
  kill(): Promise<void>;
  /** Start it again on the same port (after `kill`). */
  restart(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open (a stalled host, a GC pause, a frozen VM). */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.once('error', (err) =>
      reject(new Error(`redis-server could not start (${err.message}): install it (apt-get install -y redis-server)`)),
    );
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${String(code)}): ${out}`)));
  });
  return child;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freeLoopbackPort();
  let child: ChildProcess | undefined = await startServer(port);
  const kill = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (c === undefined || c.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGKILL'); // also ends a paused (SIGSTOP) server
    await gone;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async restart() {
      await kill();
      child = await startServer(port);
    },
  };
}

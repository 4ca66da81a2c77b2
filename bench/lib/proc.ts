/** Child processes for servers under test: each runs alone so the load generator never shares its event loop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Child {
  proc: ChildProcess;
  pid: number;
  port: number;
  url: string;
  /** Everything the child wrote (for error messages). */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface SpawnOptions {
  args: string[];
  env?: Record<string, string | undefined>;
  cwd: string;
  port: number;
}

/** Start `node <args>` (no shell, so `pid` is the server process itself). */
export function spawnNode(o: SpawnOptions): Child {
  let out = '';
  const proc = spawn(process.execPath, o.args, {
    cwd: o.cwd,
    env: { ...process.env, NODE_ENV: 'production', ...o.env, PORT: String(o.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    out += chunk.toString();
    if (out.length > 64_000) out = out.slice(-32_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    proc,
    pid: proc.pid!,
    port: o.port,
    url: `http://127.0.0.1:${o.port}`,
    output: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Poll `probe` until it resolves true; returns milliseconds since `since` (performance.now()). Throws with the
 * child's output if it exits or `timeoutMs` passes.
 */
export async function waitUntil(
  child: Child,
  probe: () => Promise<boolean>,
  since: number,
  timeoutMs = 30_000,
  everyMs = 5,
): Promise<number> {
  for (;;) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(`server exited (${child.proc.exitCode ?? child.proc.signalCode}):\n${child.output()}`);
    }
    try {
      if (await probe()) return performance.now() - since;
    } catch {
      /* not listening yet */
    }
    if (performance.now() - since > timeoutMs) throw new Error(`server not ready after ${timeoutMs} ms:\n${child.output()}`);
    await sleep(everyMs);
  }
}

/** A probe answering true on a 2xx for GET `url` (with headers). */
export function httpOk(url: string, headers: Record<string, string> = {}): () => Promise<boolean> {
  return async () => {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  };
}

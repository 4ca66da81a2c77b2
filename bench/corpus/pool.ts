/**
 * A small pool of reused worker processes (D400: two on this machine's two cores), each document bounded in time and
 * memory so that one huge document cannot hang the run: a worker over its time or resident-memory bound is killed,
 * the document recorded as `timeout` / `memory-bound`, and a fresh worker forked. A worker that has grown past the
 * recycle mark after a document is replaced too (generated modules stay loaded in a process until it exits).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CheckInput } from './check-document.js';
import type { DocumentResult } from './types.js';

export interface PoolOptions {
  root: string;
  workers: number;
  /** Time bound of one document (ms) from its size. */
  timeoutMs: (bytes: number) => number;
  /** Resident memory (MiB) at which a worker is killed mid-document. */
  memoryBoundMiB: number;
  /** Resident memory (MiB) after a document at which the worker is replaced. */
  recycleMiB: number;
  log: (line: string) => void;
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  peakMiB: number;
}

/** The worker's resident set (MiB) from /proc, or 0 where /proc is absent. */
function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? 0 : Math.round(Number(kb) / 1024);
  } catch {
    return 0;
  }
}

export class WorkerPool {
  peakWorkerMiB = 0;

  constructor(private readonly options: PoolOptions) {}

  private spawn(): Worker {
    const child = fork(path.join(this.options.root, 'bench/corpus/worker.ts'), [], {
      execArgv: ['--import', 'tsx', '--conditions=source', '--max-old-space-size=6144'],
      env: { ...process.env, CORPUS_ROOT: this.options.root, NODE_ENV: 'development' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    child.stderr?.on('data', () => {});
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`worker exited at start (${code})`)));
    });
    ready.catch(() => {});
    return { child, ready, peakMiB: 0 };
  }

  /** Runs every input through the pool; `onResult` gets each document's result as it finishes. */
  async run(inputs: readonly CheckInput[], onResult: (result: DocumentResult) => Promise<void>): Promise<void> {
    let next = 0;
    const lane = async () => {
      let worker = this.spawn();
      while (next < inputs.length) {
        const input = inputs[next++]!;
        await worker.ready.catch(() => {
          worker = this.spawn();
          return worker.ready;
        });
        const { result, keep } = await this.one(worker, input);
        this.peakWorkerMiB = Math.max(this.peakWorkerMiB, worker.peakMiB);
        await onResult(result);
        if (!keep || result.rssMiB > this.options.recycleMiB) {
          worker.child.kill('SIGKILL');
          worker = this.spawn();
        }
      }
      worker.child.kill('SIGKILL');
    };
    await Promise.all(Array.from({ length: Math.min(this.options.workers, inputs.length) }, lane));
  }

  private one(worker: Worker, input: CheckInput): Promise<{ result: DocumentResult; keep: boolean }> {
    const started = performance.now();
    const { child } = worker;
    return new Promise((resolve) => {
      const limit = this.options.timeoutMs(input.bytes);
      const failed = (outcome: 'timeout' | 'memory-bound' | 'worker-crashed', message: string) => {
        cleanup();
        resolve({
          keep: false,
          result: {
            document: input.document,
            bytes: input.bytes,
            openapi: '?',
            operations: 0,
            licence: null,
            origin: null,
            paygate: { outcome, message, ms: {} },
            peer: { outcome, message: 'not run: the worker was stopped during the document', ms: {} },
            rssMiB: worker.peakMiB,
            ms: performance.now() - started,
          },
        });
      };
      const timer = setTimeout(() => failed('timeout', `over the ${Math.round(limit / 1000)} s bound of one document`), limit);
      const sampler = setInterval(() => {
        const rss = rssMiB(child.pid);
        worker.peakMiB = Math.max(worker.peakMiB, rss);
        if (rss > this.options.memoryBoundMiB) failed('memory-bound', `over the ${this.options.memoryBoundMiB} MiB bound of one document`);
      }, 500);
      const onExit = (code: number | null, signal: string | null) => failed('worker-crashed', `the worker exited (${code ?? signal})`);
      const onMessage = (message: { type: string; result?: DocumentResult; message?: string; line?: string }) => {
        if (message.type === 'log') this.options.log(`  ${input.document}: ${message.line}`);
        if (message.type === 'failed') failed('worker-crashed', message.message ?? 'failed');
        if (message.type === 'result') {
          cleanup();
          worker.peakMiB = Math.max(worker.peakMiB, message.result!.rssMiB);
          resolve({ keep: true, result: message.result! });
        }
      };
      const cleanup = () => {
        clearTimeout(timer);
        clearInterval(sampler);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ type: 'check', input });
    });
  }
}

/**
 * Honest storage failures (D361 running out of a resource classified): the process remembers that a statement failed for want of a resource (a full disk:
 * SQLSTATE class 53, ENOSPC; `resource-exhausted.ts`) and `/readyz` says "not ready" until a real write succeeds
 * again (`http/readiness.ts` runs the write probe below while the failure stands), so a load balancer takes the
 * process out of rotation while writes fail and puts it back once space returns. Reads keep working meanwhile: the
 * requests that reach it are answered (503 with Retry-After for a write), never a 500.
 */
import { randomUUID } from 'node:crypto';
import type { Db, QueryResult } from './db.js';
import { isResourceExhaustedError } from './resource-exhausted.js';
import { insertInto, sql, VALUE } from './insert.js';

export interface StorageHealthLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface StorageHealth {
  /** When (ms since the epoch) writes were first seen failing for want of a resource; undefined while they work. */
  readonly failingSince: number | undefined;
  /** Look at a failed statement's error: a resource error marks storage as failing. */
  observe(err: unknown): void;
  /** A write succeeded (the readiness probe): storage works again. */
  recovered(): void;
  /** One real write, committed (migration 018's `storage_probe`); throws what the database throws. */
  probe(db: Pick<Db, 'query'>): Promise<void>;
}

/** One write that shows the disk takes writes: the storage_probe row's one column list (D460, "An INSERT is built from its table's column list"). */
const PROBE = insertInto(
  'storage_probe',
  { process_id: VALUE, probed_at: sql('now()') },
  { tail: 'ON CONFLICT (process_id) DO UPDATE SET probed_at = excluded.probed_at' },
);

export function createStorageHealth(options: { logger?: StorageHealthLogger; now?: () => number } = {}): StorageHealth {
  const now = options.now ?? Date.now;
  const processId = randomUUID();
  let failingSince: number | undefined;
  return {
    get failingSince() {
      return failingSince;
    },
    observe(err) {
      if (failingSince !== undefined || !isResourceExhaustedError(err)) return;
      failingSince = now();
      const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
      options.logger?.warn(
        { code, error: typeof message === 'string' ? message : undefined },
        'storage: a write failed for want of space or another resource; not ready until a write succeeds again (answering 503)',
      );
    },
    recovered() {
      if (failingSince === undefined) return;
      options.logger?.info({ failing_ms: now() - failingSince }, 'storage: writes succeed again');
      failingSince = undefined;
    },
    async probe(db) {
      await db.query(PROBE.text, PROBE.values({ process_id: processId }));
    },
  };
}

/** `db` whose failed statements and transactions are shown to `health` (the error still reaches the caller). */
export function watchStorage(db: Db, health: StorageHealth): Db {
  const seen = (err: unknown): never => {
    health.observe(err);
    throw err;
  };
  return {
    kind: db.kind,
    query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      return db.query<T>(sql, params).catch(seen);
    },
    exec(sql: string): Promise<void> {
      return db.exec(sql).catch(seen);
    },
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      return db.transaction(fn).catch(seen);
    },
    listen(channel, listener) {
      return db.listen(channel, listener);
    },
    close(): Promise<void> {
      return db.close();
    },
  };
}

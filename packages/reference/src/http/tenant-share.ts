/**
 * Bounded waits per tenant (D363 tenant share of the database pool): one tenant's requests cannot take the connection pool whole. Each tenant (a
 * merchant, or a partner, by credential) may have at most `share` requests running their handlers (and so holding
 * PostgreSQL connections) at once in this process; more wait in a short queue of their own, at most `queue` of them
 * and each at most `waitMs`; beyond that, or after that wait, the request is answered 503 `ERR_UNAVAILABLE_503` with
 * `Retry-After`: that tenant only. With a share below the pool size, requests of one tenant stuck on locked rows (up to
 * the statement timeout each) leave connections for every other tenant, whose requests never queue behind them.
 *
 * Written here rather than taken from a library: the limit is per key with a bounded queue and a bounded wait, and the
 * answer is the gateway's own 503; p-limit / p-queue bound one queue each and neither its length nor the wait.
 */
import type { HttpError } from '@paygate/server';
import { unavailableError } from './errors.js';

export interface TenantShareOptions {
  /** Requests of one tenant running at once. */
  share: number;
  /** Requests of one tenant waiting for a slot at most (beyond: 503 at once). */
  queue: number;
  /** Longest wait for a slot (then 503). */
  waitMs: number;
}

export interface TenantShare {
  /** Runs `fn` in one of `tenant`'s slots, waiting for one within the bounds; else rejects with the 503. */
  run<T>(tenant: string, fn: () => Promise<T>): Promise<T>;
  /** Requests of `tenant` running and waiting now (tests, diagnostics). */
  load(tenant: string): { running: number; waiting: number };
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

interface Tenant {
  running: number;
  waiting: Waiter[];
}

/**
 * The pool share of one tenant by default: the pool less a quarter of it (at least one connection for everyone
 * else), at least 1: 8 connections -> 6, 4 -> 3, 2 -> 1.
 */
export function defaultTenantShare(poolSize: number): number {
  return Math.max(1, poolSize - Math.max(1, Math.ceil(poolSize / 4)));
}

/**
 * The longest a request waits for its tenant's slot: as long as it may wait for a pool connection (db/postgres.ts
 * POSTGRES_TIMEOUTS.connectMs; not imported, so that this module does not load the PostgreSQL driver).
 */
export const TENANT_WAIT_MS = 5_000;

function refused(tenantKey: string, why: string): HttpError {
  return unavailableError(new Error(`tenant share: ${why} (tenant ${tenantKey})`));
}

export function createTenantShare(options: TenantShareOptions): TenantShare {
  const tenants = new Map<string, Tenant>();

  function release(key: string, tenant: Tenant): void {
    const next = tenant.waiting.shift();
    if (next !== undefined) {
      // the slot passes straight to the next waiter: `running` stays the same
      clearTimeout(next.timer);
      next.grant();
      return;
    }
    tenant.running--;
    if (tenant.running === 0) tenants.delete(key);
  }

  function acquire(key: string): Promise<void> | undefined {
    let tenant = tenants.get(key);
    if (tenant === undefined) {
      tenant = { running: 0, waiting: [] };
      tenants.set(key, tenant);
    }
    if (tenant.running < options.share) {
      tenant.running++;
      return undefined;
    }
    if (tenant.waiting.length >= options.queue) {
      throw refused(key, `${tenant.running} requests running and ${tenant.waiting.length} waiting`);
    }
    const owner = tenant;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        timer: setTimeout(() => {
          const at = owner.waiting.indexOf(waiter);
          if (at !== -1) owner.waiting.splice(at, 1);
          reject(refused(key, `no slot free within ${options.waitMs} ms`));
        }, options.waitMs),
      };
      waiter.timer.unref?.();
      owner.waiting.push(waiter);
    });
  }

  return {
    async run(key, fn) {
      const waiting = acquire(key);
      if (waiting !== undefined) await waiting;
      // the tenant entry exists while this request holds its slot (it is deleted only when running drops to 0)
      const tenant = tenants.get(key) as Tenant;
      try {
        return await fn();
      } finally {
        release(key, tenant);
      }
    },
    load(key) {
      const tenant = tenants.get(key);
      return { running: tenant?.running ?? 0, waiting: tenant?.waiting.length ?? 0 };
    },
  };
}

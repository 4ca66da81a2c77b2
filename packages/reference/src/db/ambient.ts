import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, QueryResult } from './db.js';

/**
 * A Db whose `transactionScope` opens one transaction that every statement made through this same Db during the
 * scope joins: `query`, `exec` and `transaction` called on the root handle (by services that only know `deps.db`)
 * run inside the scope's transaction, so the scope commits or rolls back all of them together.
 *
 * Why: the idempotency wrapper must commit a key's outcome in the same transaction as the write it protects, while
 * the services it wraps open their own transactions on `deps.db`. Passing a transaction handle through every
 * service would touch every signature; an ambient scope keeps them as they are. On PGlite (one connection) it also
 * keeps a stray root query inside the scope from waiting forever for the connection the scope holds.
 *
 * The scope ends with its transaction: work that outlives it (a timer started inside) falls back to the root
 * connection instead of using a released client.
 */
export interface ScopedDb extends Db {
  transactionScope<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}

interface Scope {
  tx: Db | undefined;
}

export function withTransactionScopes(base: Db): ScopedDb {
  const storage = new AsyncLocalStorage<Scope>();
  const current = (): Db => storage.getStore()?.tx ?? base;
  return {
    kind: base.kind,
    query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      return current().query<T>(sql, params);
    },
    exec(sql: string): Promise<void> {
      return current().exec(sql);
    },
    transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      // a transaction handle's transaction() joins it (see Db.transaction)
      return current().transaction(fn);
    },
    transactionScope<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      const outer = storage.getStore()?.tx;
      if (outer) return outer.transaction(fn);
      return base.transaction(async (tx) => {
        const scope: Scope = { tx };
        try {
          return await storage.run(scope, () => fn(tx));
        } finally {
          scope.tx = undefined;
        }
      });
    },
    listen(channel, listener) {
      return base.listen(channel, listener);
    },
    close(): Promise<void> {
      return base.close();
    },
  };
}

import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { sqlState } from './db.js';
import { StatementNames } from './statement-names.js';

/** What the single-round path binds: parameters PGlite's own `query` would send as their `toString()` text too. */
export type PlainParam = string | number | null;

export function isPlainParams(params: readonly unknown[]): params is readonly PlainParam[] {
  return params.every((p) => p === null || typeof p === 'string' || (typeof p === 'number' && Number.isFinite(p)));
}

/** SQLSTATE 0A000 with this message: a prepared statement whose result columns changed since it was parsed. */
function isStalePlan(err: unknown): boolean {
  return sqlState(err) === '0A000' && err instanceof Error && err.message.includes('cached plan must not change result type');
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Reads outside a transaction in ONE round into PGlite's WebAssembly PostgreSQL instead of six (D86 named prepared statements on PostgreSQL):
 * `PGlite.query` sends Parse, Describe, Bind, Describe, Execute and Sync as six calls, each with its own JS <-> wasm
 * crossing and result parsing, and PostgreSQL parses and plans the statement every time. Here the messages go as one
 * pipelined buffer through `execProtocolStream`, and the statement is a named prepared one (parsed and planned once per
 * database, like D86 on PostgreSQL): later calls send only Bind, Describe, Execute and Sync. The results are parsed by
 * PGlite's own `parseResults` with the database's parsers, so rows are exactly what `query` returns.
 *
 * It runs under PGlite's transaction and query mutexes, as `query` does, so it never interleaves with a transaction.
 * Parameters must be {@link PlainParam}s (what the services bind for reads); the caller sends anything else through
 * `query`. Parameter types are inferred by PostgreSQL from the statement, as for every untyped text parameter.
 */
export class PgliteReads {
  private readonly names = new StatementNames();
  /** Statement names PostgreSQL has confirmed (ParseComplete): only Bind from then on. */
  private readonly parsed = new Set<string>();

  constructor(private readonly db: PGlite) {}

  async query<T>(sql: string, params: readonly PlainParam[]): Promise<Results<T>> {
    const name = this.names.nameFor(sql);
    if (name === undefined) return this.db.query<T>(sql, [...params]);
    try {
      return await this.db._runExclusiveTransaction(() => this.db._runExclusiveQuery(() => this.run<T>(name, sql, params)));
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      // the table changed shape under the prepared statement (a migration): re-prepare it under a new name
      this.names.forget(sql);
      return this.db.query<T>(sql, [...params]);
    }
  }

  private async run<T>(name: string, sql: string, params: readonly PlainParam[]): Promise<Results<T>> {
    const { serialize } = protocol;
    const firstUse = !this.parsed.has(name);
    const message = concat([
      ...(firstUse ? [serialize.parse({ name, text: sql })] : []),
      serialize.bind({ statement: name, values: params.map((p) => (p === null ? null : String(p))) }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    let messages: Awaited<ReturnType<PGlite['execProtocolStream']>>;
    try {
      // the stream variant parses the answer as it arrives and keeps no copy of its bytes (execProtocol does)
      messages = await this.db.execProtocolStream(message);
    } catch (err) {
      // Whether a first Parse got through before the error is not known here: use a new name next time (a
      // statement left behind is harmless), so a Parse never meets a name that already exists.
      if (firstUse) this.names.forget(sql);
      throw err;
    }
    if (firstUse && messages.some((m) => m.name === 'parseComplete')) this.parsed.add(name);
    const [result] = parse.parseResults(messages, this.db.parsers);
    if (result === undefined) throw new Error(`PGlite returned no result for a prepared read (${name})`);
    return result as Results<T>;
  }
}

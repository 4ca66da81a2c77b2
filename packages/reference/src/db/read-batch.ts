/**
 * Reads that the PostgreSQL adapter may answer together (D178 PostgreSQL read batching): the same read issued by requests that arrived in the
 * same turn of the event loop is sent as ONE statement, with one array per parameter, instead of one statement each.
 * A read is registered by the service that owns it, from a template of its parameters, so the single statement and the
 * batched one are the same SQL: `batchableRead(2, ([id, merchant]) => `SELECT ... WHERE o.id = ${id} AND ...`)`
 * gives the single statement (`$1`, `$2`) and registers the batched one, where each read is one row of
 * `unnest($1::text[], $2::text[]) WITH ORDINALITY` joined LATERAL to the same text over its columns:
 *
 *   SELECT k.paygate_batch_index, r.* FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(p1, p2, paygate_batch_index)
 *     CROSS JOIN LATERAL (SELECT ... WHERE o.id = k.p1 AND ...) r
 *
 * Parameters are text (a read whose parameters are not all strings is sent alone). A read is registered only when
 * its answer depends on its parameters and the rows alone (no volatile function), so reading it for several requests
 * in one statement gives each the rows it would have got alone at that instant. The PGlite adapter ignores the
 * registry (one connection, and its read cache: D167).
 *
 * This module imports nothing: a service marks its statements without loading either adapter.
 */

/** The batched form of a registered read. */
export interface BatchedForm {
  /** The statement over arrays: `$i` is the array of the i-th parameter of every read in the batch. */
  readonly sql: string;
  /** Number of parameters of the single statement. */
  readonly paramCount: number;
}

/** The column of a batched statement's rows that says which read (1-based, in array order) a row answers. */
export const BATCH_INDEX_COLUMN = 'paygate_batch_index';

const registered = new Map<string, BatchedForm>();

/**
 * Build a read from its template (`params[i]` is the SQL expression of parameter i + 1), register its batched form and
 * return the single statement (`$1`, `$2`, ...).
 */
export function batchableRead(paramCount: number, template: (params: readonly string[]) => string): string {
  const single = template(Array.from({ length: paramCount }, (_, i) => `$${i + 1}`));
  if (!registered.has(single)) {
    const columns = Array.from({ length: paramCount }, (_, i) => `p${i + 1}`);
    const arrays = columns.map((_, i) => `$${i + 1}::text[]`).join(', ');
    const sql =
      `SELECT k.${BATCH_INDEX_COLUMN}, r.* FROM unnest(${arrays}) WITH ORDINALITY AS k(${columns.join(', ')}, ${BATCH_INDEX_COLUMN}) ` +
      `CROSS JOIN LATERAL (${template(columns.map((c) => `k.${c}`))}) r`;
    registered.set(single, { sql, paramCount });
  }
  return single;
}

/** The batched form of `sql`, or undefined when it is not a batchable read. */
export function batchedFormOf(sql: string): BatchedForm | undefined {
  return registered.get(sql);
}

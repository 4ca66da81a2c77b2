/**
 * One INSERT per table from one column list (D460, "An INSERT is built from its table's column list"): the columns
 * are named once, in order, each with where its value comes from (a parameter of the same name, a parameter of
 * another name, or SQL), and the `$n` placeholders are numbered here. A new column is one line of the list; the row
 * object the caller passes is typed from the list, so the compiler names every call that must now supply it.
 *
 * Why our own ~80 lines and not a query builder (Kysely, Knex, sql-template-tag): the services send plain text and a
 * value array through `Db.query`, and that text is the prepared statement's key (D86 named prepared statements on PostgreSQL), must stay one constant per
 * template, and must run as it is on PGlite, on pg and behind PgBouncer with unnamed statements. A builder would change
 * how every query is sent to fix only how INSERT column lists are written; this helper builds the same text, once, at
 * module load.
 */

/** A placeholder for the row's value named `name` (by default the column's own name: {@link VALUE}). */
export interface Param<N extends string> {
  readonly param: N;
}

/** SQL written in place of a placeholder; `ref(name)` is the placeholder of a named parameter. */
export interface Expr<N extends string = string> {
  readonly sql: Fragment<N>;
}

/** SQL text, or SQL text built over named placeholders. */
export type Fragment<N extends string> = string | ((ref: (name: N) => string) => string);

/** The column's value is the row's value of the same name. */
export const VALUE = 'value' as const;

/** The column's value is the row's value named `name` (two columns may share one placeholder). */
export function param<N extends string>(name: N): Param<N> {
  return { param: name };
}

/** The column's value is this SQL (a literal, a call, a column of the SELECT, or built over placeholders). */
export function sql<N extends string = never>(fragment: Fragment<N>): Expr<N> {
  return { sql: fragment };
}

export type ColumnSource = typeof VALUE | Param<string> | Expr<string>;
export type Columns = Readonly<Record<string, ColumnSource>>;

/** The names of the parameters a column list binds: what the row object must hold. */
export type ParamsOf<C extends Columns> = {
  [K in keyof C]: C[K] extends typeof VALUE ? K : C[K] extends Param<infer N> ? N : never;
}[keyof C] &
  string;

/**
 * Placeholders by name: the first use of a name takes the next `$n`, later uses the same one. Shared by the parts
 * of one statement (a CTE's INSERT and the SELECTs around it).
 */
export class Placeholders<N extends string> {
  private readonly names: N[] = [];

  /** The placeholder of `name` (`$n`). */
  readonly ref = (name: N): string => {
    let i = this.names.indexOf(name);
    if (i < 0) i = this.names.push(name) - 1;
    return `$${i + 1}`;
  };

  /** The values to send with the statement, in placeholder order. */
  values(row: Readonly<Record<N, unknown>>): unknown[] {
    return this.names.map((name) => {
      if (!Object.hasOwn(row, name))
        throw new Error(`SQL parameter "${name}" has no value in the row passed (its keys: ${Object.keys(row).join(', ')})`);
      return row[name];
    });
  }

  /** Names in placeholder order (`$1` first). */
  get order(): readonly N[] {
    return this.names;
  }
}

export function fragment<N extends string>(f: Fragment<N>, ref: (name: N) => string): string {
  return typeof f === 'string' ? f : f(ref);
}

export interface InsertOptions<N extends string> {
  /** `AS p` for RETURNING and ON CONFLICT to name the table by. */
  alias?: string;
  /** Columns whose value comes from elsewhere in this statement (e.g. `m.at` of a CTE): replaces their source. */
  override?: Readonly<Record<string, Expr<N> | Param<N>>>;
  /** `INSERT ... SELECT <values> FROM <from>` instead of `VALUES (...)`. */
  from?: Fragment<N>;
  /** What follows the values: ON CONFLICT ..., RETURNING ... */
  tail?: Fragment<N>;
}

/** The text of `INSERT INTO table (columns) VALUES|SELECT ...`, its placeholders taken from `ph`. */
export function insertSql<N extends string>(table: string, columns: Columns, ph: Placeholders<N>, options: InsertOptions<N> = {}): string {
  const names = Object.keys(columns);
  const values = names.map((column) => {
    const source = options.override?.[column] ?? (columns[column] as ColumnSource);
    if (source === VALUE) return ph.ref(column as N);
    if ('param' in source) return ph.ref(source.param as N);
    return fragment(source.sql as Fragment<N>, ph.ref);
  });
  const target = options.alias ? `${table} AS ${options.alias}` : table;
  const body =
    options.from === undefined
      ? `VALUES (${values.join(', ')})`
      : `SELECT ${values.join(', ')}\n       FROM ${fragment(options.from, ph.ref)}`;
  const tail = options.tail === undefined ? '' : `\n       ${fragment(options.tail, ph.ref)}`;
  return `INSERT INTO ${target} (${names.join(', ')})\n       ${body}${tail}`;
}

/** A whole INSERT statement: its constant text and how a row becomes its values. */
export interface InsertStatement<N extends string> {
  readonly text: string;
  values(row: Readonly<Record<N, unknown>>): unknown[];
}

/** Sources replacing some columns' (`InsertOptions.override`). */
export type Overrides = Readonly<Record<string, Expr<string> | Param<string>>>;

/**
 * An INSERT built once from its column list. `override` replaces some columns' sources (a statement that takes
 * them from elsewhere); `extra` names parameters that only `from`/`tail` use. The row's type follows both.
 */
export function insertInto<const C extends Columns, X extends string = never, const O extends Overrides = Record<never, never>>(
  table: string,
  columns: C,
  options: Omit<InsertOptions<ParamsOf<Omit<C, keyof O> & O> | X>, 'override'> & { extra?: readonly X[]; override?: O } = {},
): InsertStatement<ParamsOf<Omit<C, keyof O> & O> | X> {
  type N = ParamsOf<Omit<C, keyof O> & O> | X;
  const ph = new Placeholders<N>();
  const text = insertSql(table, columns, ph, options as InsertOptions<N>);
  return { text, values: (row) => ph.values(row) };
}

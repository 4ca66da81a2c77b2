/**
 * Names for PostgreSQL prepared statements, one per distinct SQL text (D86 named prepared statements on PostgreSQL). `pg` parses a named statement once per
 * connection and afterwards sends only Bind/Execute, so PostgreSQL no longer parses and plans the same read (the GET
 * order join, the credential and idempotency look-ups) on every request. The text -> name map is what keeps a name
 * from ever meaning two texts (pg refuses that); it is bounded because the SQL the services build comes from a
 * finite set of templates, and anything beyond the bound simply runs unnamed, as before.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  /** Names handed out so far (never reused, also after {@link forget}). */
  private issued = 0;

  constructor(private readonly max = 1000) {}

  /** The statement name for `sql`, or undefined when the bound is reached (run it unnamed). */
  nameFor(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined || this.names.size >= this.max) return known;
    const name = `paygate_${++this.issued}`;
    this.names.set(sql, name);
    return name;
  }

  /** Stop using the name of `sql` (its statement is stale): the next {@link nameFor} gives a new one. */
  forget(sql: string): void {
    this.names.delete(sql);
  }

  get size(): number {
    return this.names.size;
  }
}

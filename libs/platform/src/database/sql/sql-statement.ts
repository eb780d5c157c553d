/**
 * A hand-written SQL statement: a named, typed constant kept in a `*.sql.ts` file beside the code
 * that owns it, and run only through SqlExecutor. `Row` is the shape of one result row (or the
 * tuple of its columns, read with `arrays`); `Params` the positional parameters $1, $2, ….
 */
export interface SqlStatement<Row = Record<string, unknown>, Params extends readonly unknown[] = readonly unknown[]> {
  /** Unique across the code base, `<owner>.<what>`: the prepared statement's name where one is kept, and the name in errors. */
  readonly name: string;
  readonly text: string;
  /**
   * Planned once per connection where the connection allows it (a direct connection: not the
   * embedded database, not a transaction pooler). For request-path reads whose planning costs more
   * than their execution: several partitions, several index paths.
   */
  readonly prepared: boolean;
  /**
   * False: run without PostgreSQL's JIT compilation (a read over many users whose cost estimate
   * crosses jit_above_cost, where compiling costs more than executing).
   */
  readonly jit: boolean;
  /** Never set: carries the row and parameter types. */
  readonly types?: { readonly row: Row; readonly params: Params };
}

export interface SqlStatementOptions {
  readonly prepared?: boolean;
  readonly jit?: boolean;
}

export function sqlStatement<Row = Record<string, unknown>, Params extends readonly unknown[] = readonly unknown[]>(
  name: string,
  text: string,
  options: SqlStatementOptions = {},
): SqlStatement<Row, Params> {
  return { name, text, prepared: options.prepared ?? false, jit: options.jit ?? true };
}

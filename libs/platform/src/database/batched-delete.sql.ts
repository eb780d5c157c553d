import { sqlStatement, type SqlStatement } from './sql/sql-statement';

/** Rows per statement of a batched delete: short transactions, so retention never holds long locks or bloats one transaction. */
export const DELETE_BATCH_ROWS = 5_000;

/**
 * A DELETE of at most DELETE_BATCH_ROWS rows of `table` matching `condition`, for deleteInBatches;
 * (tableoid, ctid) names a row of a partitioned table too. `table` and `condition` are code, never
 * input (a constant in the caller's .sql.ts); values go in the parameters.
 */
export function batchedDelete<Params extends readonly unknown[]>(name: string, table: string, condition: string): SqlStatement<never, Params> {
  return sqlStatement(name, `DELETE FROM ${table} WHERE (tableoid, ctid) IN (SELECT tableoid, ctid FROM ${table} WHERE ${condition} LIMIT ${DELETE_BATCH_ROWS})`);
}

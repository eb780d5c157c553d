import { DELETE_BATCH_ROWS } from './batched-delete.sql';
import type { SqlRunner } from './sql/sql-runner';
import type { SqlStatement } from './sql/sql-statement';

/** Runs a batchedDelete statement until a batch comes back short; each batch is a statement (a transaction) of its own. Returns the rows deleted. */
export async function deleteInBatches<Params extends readonly unknown[]>(sql: SqlRunner, statement: SqlStatement<never, Params>, params: Params): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await sql.affected(statement, params);
    deleted += rows;
    if (rows < DELETE_BATCH_ROWS) return deleted;
  }
}

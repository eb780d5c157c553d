import type { DataSource } from 'typeorm';
import { batchedDelete, DELETE_BATCH_ROWS } from './batched-delete.sql';
import type { SqlRunner } from './sql/sql-runner';
import type { SqlStatement } from './sql/sql-statement';

/** Runs a batchedDelete statement until a batch comes back short; each batch is a statement (a transaction) of its own. Returns the rows deleted. */
export async function deleteInBatches<Params extends readonly unknown[]>(sql: SqlRunner, statement: SqlStatement<never, Params>, params: Params): Promise<number>;
/**
 * The rows of `table` matching `condition`, through TypeORM: only for libs/events until its own
 * statements move to the executor (issue #39), when this form goes.
 */
export async function deleteInBatches(dataSource: DataSource, table: string, condition: string, params: unknown[]): Promise<number>;
export async function deleteInBatches(
  target: SqlRunner | DataSource,
  statement: SqlStatement<never, readonly unknown[]> | string,
  ...rest: [readonly unknown[]] | [string, unknown[]]
): Promise<number> {
  const batch: () => Promise<number> =
    typeof statement === 'string'
      ? async () => (await (target as DataSource).query<[unknown[], number]>(batchedDelete(`delete-${statement}`, statement, rest[0] as string).text, rest[1]))[1]
      : () => (target as SqlRunner).affected(statement, rest[0] as readonly unknown[]);
  let deleted = 0;
  for (;;) {
    const rows = Number(await batch());
    deleted += rows;
    if (rows < DELETE_BATCH_ROWS) return deleted;
  }
}

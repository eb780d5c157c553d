import type { DataSource } from 'typeorm';

const BATCH_ROWS = 5_000;

/**
 * Deletes the rows of `table` matching `condition` in short transactions of a few thousand rows, so
 * retention never holds long locks or bloats one transaction. (tableoid, ctid) names a row of a
 * partitioned table too. `table` and `condition` are code, never input; values go in `params`.
 */
export async function deleteInBatches(dataSource: DataSource, table: string, condition: string, params: unknown[]): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [, rows] = await dataSource.query<[unknown[], number]>(
      `DELETE FROM ${table} WHERE (tableoid, ctid) IN (SELECT tableoid, ctid FROM ${table} WHERE ${condition} LIMIT ${BATCH_ROWS})`,
      params,
    );
    deleted += Number(rows);
    if (Number(rows) < BATCH_ROWS) return deleted;
  }
}

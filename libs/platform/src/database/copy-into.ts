import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { EntityManager } from 'typeorm';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/**
 * Sends `text` (whole rows in the format `sql`, a `COPY … FROM STDIN`, names) on the transaction's own
 * connection. A failure is logged as TypeORM logs its own failed statements (PinoTypeOrmLogger: the
 * error, never the rows). PostgreSQL only: the embedded PGlite socket does not speak COPY FROM STDIN.
 */
export async function copyInto(manager: EntityManager, sql: string, text: string): Promise<void> {
  const client = (await (manager.queryRunner as PostgresQueryRunner).connect()) as PoolClient;
  const copy = client.query(copyFrom(sql));
  copy.end(text);
  try {
    await finished(copy);
  } catch (error) {
    manager.connection.logger.logQueryError(error as Error, sql, [], manager.queryRunner);
    throw error;
  }
}

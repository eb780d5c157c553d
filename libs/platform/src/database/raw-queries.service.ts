import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Queries straight on the data source's own pg pool, for hot paths TypeORM's query() cannot serve:
 * named prepared statements (planned once per connection) and rows as arrays (no object per row).
 */
@Injectable()
export class RawQueriesService {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
  }

  /** For request-path queries whose planning costs more than their execution (several partitions, several index paths). */
  async prepared<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool.query({ name, text, values });
    return result.rows as T[];
  }

  /**
   * `prepared` for a read over many users, without PostgreSQL's JIT compilation: such a query's cost
   * estimate crosses jit_above_cost, and compiling it took about 490 ms of the 565 ms EXPLAIN ANALYZE
   * measured for 500 users' serving histories, whose index lookups take well under 100 ms.
   */
  async preparedWithoutJit<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      await client.query('BEGIN READ ONLY; SET LOCAL jit = off');
      const result = await client.query({ name, text, values });
      await client.query('COMMIT');
      return result.rows as T[];
    } catch (error) {
      // A connection left inside the transaction is closed, not handed to the next query.
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(failure);
    }
  }

  /** For bulk reads: each row as an array of its columns. */
  async arrays<T extends unknown[]>(text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool.query<T>({ text, values, rowMode: 'array' });
    return result.rows;
  }
}

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

  /** For bulk reads: each row as an array of its columns. */
  async arrays<T extends unknown[]>(text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool.query<T>({ text, values, rowMode: 'array' });
    return result.rows;
  }
}

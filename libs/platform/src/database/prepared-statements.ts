import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Named prepared statements on the data source's own pg pool, for hot request-path queries whose
 * planning costs more than their execution (several partitions, several index paths): each
 * connection plans a statement once and reuses the plan. TypeORM's query() cannot name statements.
 */
@Injectable()
export class PreparedStatements {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
  }

  async query<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    const result = await this.pool.query({ name, text, values });
    return result.rows as T[];
  }
}

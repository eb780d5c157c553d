import { Injectable } from '@nestjs/common';
import {
  analyze,
  attachPartition,
  createPartition,
  dropPartition,
  LOCK_PARTITIONS,
  moveFromDefaultPartition,
  PARTITIONS_OF,
  RELATION_EXISTS,
  vacuumAnalyze,
} from './monthly-partitions.sql';
import { SqlExecutor } from './sql/sql-executor';

/** Tables partitioned by month on a timestamp (their partition key), each with a DEFAULT partition for rows outside the created months. */
const PARTITION_KEYS = { events: 'occurred_at', predictions: 'predicted_at' } as const;
export type MonthlyPartitionedTable = keyof typeof PARTITION_KEYS;
/** How many months ahead of the current one exist; the daily jobs keep it so. */
export const PARTITION_MONTHS_AHEAD = 3;

export interface MonthRange {
  name: string;
  from: string;
  to: string;
}

/** The calendar months (UTC) from `monthsBack` before `now` to `monthsAhead` after it, named `<table>_YYYY_MM`. */
export function monthsAround(table: MonthlyPartitionedTable, now: Date, monthsBack: number, monthsAhead: number): MonthRange[] {
  const months: MonthRange[] = [];
  for (let offset = -monthsBack; offset <= monthsAhead; offset++) {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    const name = `${table}_${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
    months.push({ name, from: start.toISOString(), to: end.toISOString() });
  }
  return months;
}

/**
 * Monthly partitions, created ahead of time: by `migrate` on a new database, then by daily jobs.
 * Rows that arrived before their month's partition existed sit in the default partition; they are
 * moved in the same transaction that attaches the partition, so creation never fails on them. That
 * move is not invisible to concurrent readers: a READ COMMITTED statement planned before the attach
 * and run after it misses the moved rows (seen in bench:train as a smaller holdout), which is why a
 * database gets its partitions before its first event.
 */
@Injectable()
export class MonthlyPartitionsService {
  constructor(private readonly sql: SqlExecutor) {}

  /**
   * Retention: drops the monthly partitions whose month ended at or before `cutoff`, a cheap
   * metadata operation instead of deleting row by row. The default partition always stays.
   */
  async dropBefore(table: MonthlyPartitionedTable, cutoff: Date): Promise<string[]> {
    const partitions = await this.sql.rows(PARTITIONS_OF, [table]);
    const dropped: string[] = [];
    for (const { name } of partitions) {
      const month = new RegExp(`^${table}_(\\d{4})_(\\d{2})$`).exec(name);
      // Month numbers are 1-based, so Date.UTC(year, month) is the first instant after that month.
      if (!month || Date.UTC(Number(month[1]), Number(month[2])) > cutoff.getTime()) continue;
      await this.sql.transaction(async (tx) => {
        await tx.rows(LOCK_PARTITIONS, [`partitions:${table}`]);
        await tx.affected(dropPartition(name), []);
      });
      dropped.push(name);
    }
    return dropped;
  }

  /** Every partitioned table's months, from last month to `monthsAhead`; returns the partitions it created. */
  async ensureAll(): Promise<string[]> {
    const created: string[] = [];
    for (const table of Object.keys(PARTITION_KEYS) as MonthlyPartitionedTable[]) created.push(...(await this.ensure(table, PARTITION_MONTHS_AHEAD)));
    return created;
  }

  /** Returns the partitions it created. */
  async ensure(table: MonthlyPartitionedTable, monthsAhead: number): Promise<string[]> {
    const now = new Date();
    const column = PARTITION_KEYS[table];
    const created: string[] = [];
    for (const month of monthsAround(table, now, 1, monthsAhead)) {
      const made = await this.sql.transaction(async (tx) => {
        await tx.rows(LOCK_PARTITIONS, [`partitions:${table}`]);
        const [{ exists }] = await tx.rows(RELATION_EXISTS, [month.name]);
        if (exists) return false;
        await tx.affected(createPartition(table, month.name), []);
        await tx.affected(moveFromDefaultPartition(table, column, month.name), [month.from, month.to]);
        await tx.affected(attachPartition(table, month), []);
        return true;
      });
      if (made) created.push(month.name);
    }
    if (created.length > 0) {
      // Planner statistics for the new partitions and the emptied default one now, not whenever
      // autovacuum gets to them (if it runs at all): per-user serving queries choose indexes by them.
      await this.sql.affected(analyze(created), []);
      await this.sql.affected(vacuumAnalyze(`${table}_default`), []);
    }
    return created;
  }
}

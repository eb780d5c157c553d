import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Arbitrary fixed key: concurrent workers creating partitions queue behind each other. */
const PARTITION_LOCK_KEY = 7_313_410_222;

export interface MonthRange {
  name: string;
  from: string;
  to: string;
}

/** The calendar months (UTC) from `monthsBack` before `now` to `monthsAhead` after it. */
export function monthsAround(now: Date, monthsBack: number, monthsAhead: number): MonthRange[] {
  const months: MonthRange[] = [];
  for (let offset = -monthsBack; offset <= monthsAhead; offset++) {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    const name = `events_${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
    months.push({ name, from: start.toISOString(), to: end.toISOString() });
  }
  return months;
}

/**
 * Monthly partitions of `events`, created ahead of time. Rows that arrived before their month's
 * partition existed sit in the default partition; they are moved in the same transaction that
 * attaches the partition, so creation never fails on them.
 */
@Injectable()
export class EventPartitionsService {
  constructor(private readonly dataSource: DataSource) {}

  /** Returns the partitions it created. */
  async ensure(monthsAhead: number, now = new Date()): Promise<string[]> {
    const created: string[] = [];
    for (const month of monthsAround(now, 1, monthsAhead)) {
      const made = await this.dataSource.transaction(async (manager) => {
        await manager.query('SELECT pg_advisory_xact_lock($1)', [PARTITION_LOCK_KEY]);
        const [{ exists }] = await manager.query(`SELECT to_regclass($1) IS NOT NULL AS exists`, [month.name]);
        if (exists) return false;
        await manager.query(`CREATE TABLE ${month.name} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
        await manager.query(
          `WITH moved AS (DELETE FROM events_default WHERE occurred_at >= $1 AND occurred_at < $2 RETURNING *)
           INSERT INTO ${month.name} SELECT * FROM moved`,
          [month.from, month.to],
        );
        await manager.query(`ALTER TABLE events ATTACH PARTITION ${month.name} FOR VALUES FROM ('${month.from}') TO ('${month.to}')`);
        return true;
      });
      if (made) created.push(month.name);
    }
    return created;
  }
}

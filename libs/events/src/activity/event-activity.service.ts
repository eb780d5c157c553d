import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export type VolumeBucket = 'hour' | 'day';

export interface EventVolume {
  bucket: VolumeBucket;
  since: string;
  until: string;
  /** Events per bucket and event name, oldest bucket first; buckets without events are absent. */
  series: Array<{ start: string; event: string; count: number }>;
  /** Distinct users (or anonymous ids, before identification) per bucket. */
  activeUsers: Array<{ start: string; users: number }>;
  /** Every event name of the window with its count, most frequent first. */
  totals: Array<{ event: string; count: number }>;
}

// date_trunc's unit is one of two literals chosen in code, never request text.
const volumeSql = (bucket: VolumeBucket) => `
  SELECT date_trunc('${bucket}', occurred_at, 'UTC') AS start, event, count(*) AS count
    FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
   GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2`;

const activeUsersSql = (bucket: VolumeBucket) => `
  SELECT date_trunc('${bucket}', occurred_at, 'UTC') AS start, count(DISTINCT coalesce(user_id, 'anon:' || anonymous_id)) AS users
    FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
   GROUP BY 1 ORDER BY 1`;

/** What the dashboard's overview shows of the organization's events: volume over time. */
@Injectable()
export class EventActivityService {
  constructor(private readonly dataSource: DataSource) {}

  async volume(organizationId: string, bucket: VolumeBucket, since: Date, until: Date): Promise<EventVolume> {
    const window = [organizationId, since.toISOString(), until.toISOString()];
    const [series, users] = await Promise.all([
      this.dataSource.query<Array<{ start: Date; event: string; count: string }>>(volumeSql(bucket), window),
      this.dataSource.query<Array<{ start: Date; users: string }>>(activeUsersSql(bucket), window),
    ]);
    const totals = new Map<string, number>();
    for (const row of series) totals.set(row.event, (totals.get(row.event) ?? 0) + Number(row.count));
    return {
      bucket,
      since: since.toISOString(),
      until: until.toISOString(),
      series: series.map((row) => ({ start: row.start.toISOString(), event: row.event, count: Number(row.count) })),
      activeUsers: users.map((row) => ({ start: row.start.toISOString(), users: Number(row.users) })),
      totals: [...totals].map(([event, count]) => ({ event, count })).sort((a, b) => b.count - a.count || a.event.localeCompare(b.event)),
    };
  }

}

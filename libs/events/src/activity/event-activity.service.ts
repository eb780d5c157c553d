import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { notFound } from '@foresight/platform';
import { USER_EVENTS_FILTER } from '../user-events';

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

export interface RecentEvent {
  event: string;
  timestamp: string;
  sessionId: string | null;
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

/** Only names and times: properties may hold personal data and need the admin export. */
const RECENT_EVENTS_SQL = `
  SELECT event, occurred_at, session_id FROM events WHERE ${USER_EVENTS_FILTER}
   ORDER BY occurred_at DESC LIMIT $3`;

/** What the dashboard shows of the organization's events: volume over time and a user's latest events. */
@Injectable()
export class EventActivity {
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

  /** A user's latest events, newest first; 404 when the organization has none. `userId` as stored. */
  async recentEvents(organizationId: string, userId: string, limit: number): Promise<RecentEvent[]> {
    const rows = await this.dataSource.query<Array<{ event: string; occurred_at: Date; session_id: string | null }>>(RECENT_EVENTS_SQL, [organizationId, userId, limit]);
    if (rows.length === 0) throw notFound('user');
    return rows.map((row) => ({ event: row.event, timestamp: row.occurred_at.toISOString(), sessionId: row.session_id }));
  }
}

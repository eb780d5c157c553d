import { Injectable } from '@nestjs/common';
import { SqlExecutor } from '@foresight/platform';
import { ACTIVE_USERS, VOLUME, type VolumeBucket } from './event-activity.sql';

export type { VolumeBucket };

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

/** What the dashboard's overview shows of the organization's events: volume over time, aggregates read on the replica. */
@Injectable()
export class EventActivityService {
  constructor(private readonly sql: SqlExecutor) {}

  async volume(organizationId: string, bucket: VolumeBucket, since: Date, until: Date): Promise<EventVolume> {
    const window: [string, string, string] = [organizationId, since.toISOString(), until.toISOString()];
    const [series, users] = await Promise.all([this.sql.replica.rows(VOLUME[bucket], window), this.sql.replica.rows(ACTIVE_USERS[bucket], window)]);
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

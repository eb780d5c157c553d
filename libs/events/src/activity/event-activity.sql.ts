import { sqlStatement } from '@foresight/platform';

export type VolumeBucket = 'hour' | 'day';

type Span = [organizationId: string, since: string, until: string];

// date_trunc's unit is one of two literals chosen in code, never request text: one statement per bucket.
const volume = (bucket: VolumeBucket) =>
  sqlStatement<{ start: Date; event: string; count: string }, Span>(
    `events.volume-by-${bucket}`,
    `SELECT date_trunc('${bucket}', occurred_at, 'UTC') AS start, event, count(*) AS count
       FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
      GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2`,
  );

const activeUsers = (bucket: VolumeBucket) =>
  sqlStatement<{ start: Date; users: string }, Span>(
    `events.active-users-by-${bucket}`,
    `SELECT date_trunc('${bucket}', occurred_at, 'UTC') AS start, count(DISTINCT coalesce(user_id, 'anon:' || anonymous_id)) AS users
       FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
      GROUP BY 1 ORDER BY 1`,
  );

/** Events per bucket and event name of [$2, $3). */
export const VOLUME = { hour: volume('hour'), day: volume('day') };
/** Distinct users (or anonymous ids, before identification) per bucket of [$2, $3). */
export const ACTIVE_USERS = { hour: activeUsers('hour'), day: activeUsers('day') };

import { Injectable } from '@nestjs/common';
import { DAY_MS, FEATURE_WINDOW_DAYS, type Activity, type FeatureEvent } from '@foresight/features';
import { RawQueries } from '@foresight/platform';

/** What the feature definitions need for one user now, plus the revision it was read at. */
export interface UserHistory {
  /** The user's events in the feature window, oldest first. */
  events: FeatureEvent[];
  activity: Activity;
  /** user_activity's revision; null when ingestion kept no activity row (events loaded by other means). */
  revision: string | null;
}

/**
 * A user's events: their own and those of anonymous ids linked to them when the event carries no
 * userId — the training dataset's rule (coalesce(user_id, linked user)), so serving sees the same
 * history. Each branch is written to run on its own index. $1 organization, $2 user.
 */
const OWN_EVENTS = `e.organization_id = $1 AND e.user_id = $2`;
const LINKED_ANONYMOUS_EVENTS = `e.organization_id = $1 AND e.user_id IS NULL AND e.anonymous_id = ANY(ARRAY(
  SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = $2))`;

/** The user's revision: a primary-key read. */
const REVISION_SQL = `SELECT revision::text AS revision FROM user_activity WHERE organization_id = $1 AND user_id = $2`;

/**
 * One round trip: the user's revision and first and last event before now (per branch, so min()
 * and max() read one index entry per partition), joined with the events of the feature window. A
 * user with no event in the window still gets one row, with null event columns. $3 window start, $4 now.
 */
const HISTORY_SQL = `
  WITH activity AS (
    SELECT least(own.first_seen, linked.first_seen) AS first_seen, greatest(own.last_seen, linked.last_seen) AS last_seen
      FROM (SELECT min(e.occurred_at) AS first_seen, max(e.occurred_at) AS last_seen FROM events e WHERE ${OWN_EVENTS} AND e.occurred_at < $4) own,
           (SELECT min(e.occurred_at) AS first_seen, max(e.occurred_at) AS last_seen FROM events e WHERE ${LINKED_ANONYMOUS_EVENTS} AND e.occurred_at < $4) linked
  )
  SELECT (${REVISION_SQL}) AS revision,
         (extract(epoch FROM a.first_seen) * 1000)::float8 AS first_seen, (extract(epoch FROM a.last_seen) * 1000)::float8 AS last_seen,
         w.t, w.event, w.session_id, w.dwell_ms, w.hesitation_ms, w.scroll_depth
    FROM activity a
    LEFT JOIN LATERAL (
      SELECT (extract(epoch FROM e.occurred_at) * 1000)::float8 AS t, e.event, e.session_id, e.dwell_ms, e.hesitation_ms, e.scroll_depth
        FROM events e
       WHERE ((${OWN_EVENTS}) OR (${LINKED_ANONYMOUS_EVENTS})) AND e.occurred_at >= $3 AND e.occurred_at < $4
    ) w ON a.first_seen IS NOT NULL
   ORDER BY w.t`;

/** The user a session belongs to: the latest event of the session that names (or links to) a user. */
const SESSION_USER_SQL = `
  SELECT coalesce(e.user_id, i.user_id) AS user_id
    FROM events e
    LEFT JOIN identities i ON i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id
   WHERE e.organization_id = $1 AND e.session_id = $2 AND coalesce(e.user_id, i.user_id) IS NOT NULL
   ORDER BY e.occurred_at DESC
   LIMIT 1`;

interface HistoryRow {
  revision: string | null;
  first_seen: number | null;
  last_seen: number | null;
  /** The event columns are null on the one row of a user with no event in the window. */
  t: number | null;
  event: string;
  session_id: string | null;
  dwell_ms: number | null;
  hesitation_ms: number | null;
  scroll_depth: number | null;
}

@Injectable()
export class UserHistoryReader {
  constructor(private readonly queries: RawQueries) {}

  /** Undefined when the organization has no event of the user before `now`. */
  async load(organizationId: string, userId: string, now: number): Promise<UserHistory | undefined> {
    const from = new Date(now - FEATURE_WINDOW_DAYS * DAY_MS).toISOString();
    const until = new Date(now).toISOString();
    const rows = await this.queries.prepared<HistoryRow>('predictions.user-history', HISTORY_SQL, [organizationId, userId, from, until]);
    const [activity] = rows;
    if (activity.first_seen === null || activity.last_seen === null) return undefined;
    const events = rows.flatMap((row): FeatureEvent[] => {
      if (row.t === null) return [];
      return [{
        occurredAt: row.t,
        event: row.event,
        sessionId: row.session_id,
        dwellMs: row.dwell_ms,
        hesitationMs: row.hesitation_ms,
        scrollDepth: row.scroll_depth,
      }];
    });
    return {
      events,
      activity: { firstSeenAt: activity.first_seen, lastSeenAt: activity.last_seen },
      revision: activity.revision,
    };
  }

  /** Undefined when ingestion keeps no activity row for the user. */
  async revision(organizationId: string, userId: string): Promise<string | undefined> {
    const [row] = await this.queries.prepared<{ revision: string }>('predictions.user-revision', REVISION_SQL, [organizationId, userId]);
    return row?.revision;
  }

  async userOfSession(organizationId: string, sessionId: string): Promise<string | undefined> {
    const [row] = await this.queries.prepared<{ user_id: string }>('predictions.session-user', SESSION_USER_SQL, [organizationId, sessionId]);
    return row?.user_id;
  }
}

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
 * One round trip, one row: the user's revision, first and last event before now (per branch, so
 * min() and max() read one index entry per partition), and the events of the feature window as one
 * JSON array of FeatureEvent objects (one parse instead of a row object and six fields per event).
 * $3 window start, $4 now.
 */
const HISTORY_SQL = `
  WITH activity AS (
    SELECT least(own.first_seen, linked.first_seen) AS first_seen, greatest(own.last_seen, linked.last_seen) AS last_seen
      FROM (SELECT min(e.occurred_at) AS first_seen, max(e.occurred_at) AS last_seen FROM events e WHERE ${OWN_EVENTS} AND e.occurred_at < $4) own,
           (SELECT min(e.occurred_at) AS first_seen, max(e.occurred_at) AS last_seen FROM events e WHERE ${LINKED_ANONYMOUS_EVENTS} AND e.occurred_at < $4) linked
  )
  SELECT (${REVISION_SQL}) AS revision,
         (extract(epoch FROM a.first_seen) * 1000)::float8 AS first_seen, (extract(epoch FROM a.last_seen) * 1000)::float8 AS last_seen,
         (SELECT coalesce(json_agg(json_build_object(
                   'occurredAt', (extract(epoch FROM e.occurred_at) * 1000)::float8, 'event', e.event, 'sessionId', e.session_id,
                   'dwellMs', e.dwell_ms, 'hesitationMs', e.hesitation_ms, 'scrollDepth', e.scroll_depth) ORDER BY e.occurred_at), '[]')
            FROM events e
           WHERE ((${OWN_EVENTS}) OR (${LINKED_ANONYMOUS_EVENTS})) AND e.occurred_at >= $3 AND e.occurred_at < $4) AS events
    FROM activity a`;

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
  events: FeatureEvent[];
}

@Injectable()
export class UserHistoryReader {
  constructor(private readonly queries: RawQueries) {}

  /** Undefined when the organization has no event of the user before `now`. */
  async load(organizationId: string, userId: string, now: number): Promise<UserHistory | undefined> {
    const from = new Date(now - FEATURE_WINDOW_DAYS * DAY_MS).toISOString();
    const until = new Date(now).toISOString();
    const [row] = await this.queries.prepared<HistoryRow>('predictions.user-history', HISTORY_SQL, [organizationId, userId, from, until]);
    if (row.first_seen === null || row.last_seen === null) return undefined;
    return { events: row.events, activity: { firstSeenAt: row.first_seen, lastSeenAt: row.last_seen }, revision: row.revision };
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

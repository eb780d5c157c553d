import { sqlStatement } from '@foresight/platform';
import { historyColumns, type HistoryRow } from './history-cursor';
import { KEPT_WINDOW_COLUMNS, KEPT_WINDOW_SERVES, REVISION_TO_KEEP } from './kept-windows/kept-windows.sql';
import type { UserWindowRow } from './kept-windows/user-window';
import type { StoredUserId } from './stored-user-id';
import { EPOCH_MS, LINKED_ANONYMOUS_EVENTS_JOIN, OWN_EVENTS } from './user-history.sql';

/*
 * Bulk scoring's read (ActiveUsersService) of one shard, all in one snapshot. $1 the organization,
 * $2 the window's start, $3 its end (the run's cutoff), and for the statements that pick users, $4
 * and $5 the shard's range of hashtext(user id), both ends included. A kept window serves the run
 * when KEPT_WINDOW_SERVES($2, $3); every other user with an activity row is read off the events. The
 * two sets are each other's complement.
 */

type Run = [organizationId: string, from: string, until: string];
type ShardRun = [...Run, hashFrom: number, hashTo: number];

/** The user (an expression) falls in the shard's range of hashes. */
const IN_SHARD = (user: string) => `hashtext(${user}) BETWEEN $4 AND $5`;

const SERVING_KEPT_WINDOW = KEPT_WINDOW_SERVES('$2', '$3');

/** How many users the organization has stored events for (an index-only count of its activity rows). */
export const ORGANIZATION_USERS = sqlStatement<{ users: number }, [organizationId: string]>(
  'events.organization-users',
  `SELECT count(*)::int AS users FROM user_activity WHERE organization_id = $1`,
);

/** Users whose window is read off the events, with what keeping their window checks (REVISION_TO_KEEP). */
export const USERS_TO_READ = sqlStatement<{ user_id: StoredUserId; revision_to_keep: string }, ShardRun>(
  'events.active-users-to-read',
  `
  SELECT a.user_id, ${REVISION_TO_KEEP} AS revision_to_keep
    FROM user_activity a LEFT JOIN user_windows w ON w.organization_id = a.organization_id AND w.user_id = a.user_id AND ${SERVING_KEPT_WINDOW}
   WHERE a.organization_id = $1 AND ${IN_SHARD('a.user_id')} AND w.user_id IS NULL`,
);

/** An event of user `w.user_id` in [$2, $3) dated from the activity row's delta_from on, by either branch of the rule. */
const RECENT_EVENT_IN_RUN = `(
  EXISTS (SELECT 1 FROM events e WHERE ${OWN_EVENTS('w.user_id')} AND e.occurred_at >= greatest(a.delta_from, $2) AND e.occurred_at < $3)
  OR EXISTS (SELECT 1 FROM ${LINKED_ANONYMOUS_EVENTS_JOIN('w.user_id')} AND e.occurred_at >= greatest(a.delta_from, $2) AND e.occurred_at < $3))`;

/**
 * Users served by a kept window who are active: an event in [$2, $3). The latest event before the
 * window was taken is one when it is at or after $2 (and so before $3); otherwise only an event
 * dated at or after the taking can be, which the kept events tell, or one stored since.
 */
export const ACTIVE_KEPT_USERS = sqlStatement<{ users: number }, ShardRun>(
  'events.active-kept-users',
  `
  SELECT count(*)::int AS users FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
   WHERE w.organization_id = $1 AND ${IN_SHARD('w.user_id')} AND ${SERVING_KEPT_WINDOW}
     AND CASE WHEN w.last_seen >= ${EPOCH_MS('$2::timestamptz')} THEN true
              ELSE EXISTS (SELECT 1 FROM json_array_elements(w.events::json) x
                            WHERE (x->>0)::float8 >= ${EPOCH_MS('$2::timestamptz')} AND (x->>0)::float8 < ${EPOCH_MS('$3::timestamptz')})
                   OR (w.revision <> a.revision AND ${RECENT_EVENT_IN_RUN}) END`,
);

export interface SpanRow {
  user_id: StoredUserId;
  first_seen: number;
  last_seen: number | null;
  latest: number;
  active: boolean;
}

/**
 * Of the users $4 (read off the events): first event ever, latest before $3 and latest of all
 * (epoch ms), and whether one falls in [$2, $3). Both branches of the rule, each on its index.
 */
export const USERS_READ_SPAN = sqlStatement<SpanRow, [...Run, users: readonly StoredUserId[]]>(
  'events.active-users-span',
  `
  SELECT user_id, ${EPOCH_MS('min(first_seen)')} AS first_seen, ${EPOCH_MS('max(last_seen)')} AS last_seen,
         ${EPOCH_MS('max(latest)')} AS latest, bool_or(active) AS active FROM (
    SELECT e.user_id, min(e.occurred_at) AS first_seen, max(e.occurred_at) FILTER (WHERE e.occurred_at < $3) AS last_seen,
           max(e.occurred_at) AS latest, bool_or(e.occurred_at >= $2 AND e.occurred_at < $3) AS active
      FROM events e WHERE ${OWN_EVENTS('ANY($4::text[])')} GROUP BY 1
    UNION ALL
    SELECT i.user_id, min(e.occurred_at), max(e.occurred_at) FILTER (WHERE e.occurred_at < $3), max(e.occurred_at),
           bool_or(e.occurred_at >= $2 AND e.occurred_at < $3)
      FROM ${LINKED_ANONYMOUS_EVENTS_JOIN('ANY($4::text[])')} GROUP BY 1
  ) span GROUP BY 1`,
);

/**
 * The kept windows serving the run, of the shard's users after $6 (a resumed shard), in byte order; not those
 * holding no event and none since $2 with nothing stored since (inactive users' windows), which would
 * only be read to be skipped.
 */
export const DECLARE_KEPT_WINDOWS = sqlStatement<never, [...ShardRun, afterUser: StoredUserId | null]>(
  'events.declare-kept-windows',
  `
  DECLARE kept_windows NO SCROLL CURSOR FOR
  SELECT w.user_id COLLATE "C" AS user_id, ${KEPT_WINDOW_COLUMNS}
    FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
   WHERE w.organization_id = $1 AND ${IN_SHARD('w.user_id')} AND ${SERVING_KEPT_WINDOW} AND ($6::text IS NULL OR w.user_id COLLATE "C" > $6)
     AND (w.last_seen >= ${EPOCH_MS('$2::timestamptz')} OR w.events <> '[]' OR w.revision <> a.revision)
   ORDER BY 1`,
);

/**
 * Kept rows per round trip: a window holds a user's whole feature window as JSON text, a few KB for
 * most users and 50 KB or more for very active ones (a soak's 400 users held some 200,000 events),
 * and two batches are in flight: 200 keeps them to a few MB where 2,000 held them all at once.
 */
export const FETCH_KEPT_WINDOWS = sqlStatement<UserWindowRow & { user_id: StoredUserId }, []>('events.fetch-kept-windows', 'FETCH 200 FROM kept_windows');

/** The events from $2 on (no end) of the users $3, by user (byte order) then time: both branches of the rule. */
export const DECLARE_READ_HISTORIES = sqlStatement<never, [organizationId: string, from: string, users: readonly StoredUserId[]]>(
  'events.declare-read-histories',
  `
  DECLARE read_histories NO SCROLL CURSOR FOR
  SELECT ${historyColumns('h.user_id', 'h')} FROM (
    SELECT e.user_id, e.occurred_at, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties, e.string_properties
      FROM events e WHERE ${OWN_EVENTS('ANY($3::text[])')} AND e.occurred_at >= $2
    UNION ALL
    SELECT i.user_id, e.occurred_at, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties, e.string_properties
      FROM ${LINKED_ANONYMOUS_EVENTS_JOIN('ANY($3::text[])')} AND e.occurred_at >= $2
  ) h ORDER BY 1, h.occurred_at`,
);

/** Event rows per round trip. */
export const FETCH_READ_HISTORIES = sqlStatement<HistoryRow, []>('events.fetch-read-histories', 'FETCH 20000 FROM read_histories');

import { batchedDelete, sqlStatement } from '@foresight/platform';
import { historyColumns, type HistoryRow } from './history-cursor';
import { REVISION_TO_KEEP, TOUCH_USERS_ANY_TIME } from './kept-windows/kept-windows.sql';
import type { UserWindowRow } from './kept-windows/user-window';
import type { StoredUserId } from './stored-user-id';
import {
  EPOCH_MS,
  EVENT_USER,
  EVENT_USER_JOIN,
  eventsSince,
  LINK_EVENTS,
  LINKED_ANONYMOUS_EVENTS_JOIN,
  OWN_EVENTS,
  revisionOf,
  USER_EVENTS,
  USER_LINKS,
} from './user-history.sql';

/*
 * UserEventsService's statements. $1 is always the organization. Times go as ISO text.
 */

/** What erasure removes beyond the user's events: events under the id used as an anonymous id. $2 the user. */
const ERASABLE_EVENTS = `(${USER_EVENTS('$2')} OR (e.organization_id = $1 AND e.anonymous_id = $2))`;
const ERASABLE_IDENTITIES = `organization_id = $1 AND (user_id = $2 OR anonymous_id = $2)`;
const ERASABLE_ACTIVITY = `organization_id = $1 AND user_id = $2`;

type Span = [from: string, until: string];

export const USER_REVISION = sqlStatement<{ revision: string }, [organizationId: string, user: StoredUserId]>('events.user-revision', revisionOf('$2'), {
  prepared: true,
});

/*
 * Both window reads (the kept one, KEPT_WINDOW, and these off the events) answer a user's window in
 * one shape (UserWindowRow): the user's revision, first event ever, latest event before $4, and the
 * events from $3 on as the JSON text of FEATURE_EVENT_ARRAYs, oldest first. No upper bound on the
 * events: ingestion refuses events more than 24 h ahead, and a window ending later than $4 is cut out
 * of the same row (windowAsOf).
 */

/**
 * The window read off the events; first and last seen per branch of the rule. The user's own branch
 * reads one index entry per partition (min() and max() down events_user_time_idx). The linked branch
 * goes from the user's links to their events (a join, as eventsSince reads it): as min() and max()
 * over `anonymous_id = ANY(ARRAY(...))`, PostgreSQL walked the organization's primary key in time
 * order for a first match, which for a user without links never came (1.1 s and 1.5 million buffers
 * for one user of an organization of 1.5 million events; user-reads.integration-spec.ts).
 */
const eventsWindow = (user: string) => `
  SELECT a.revision::text AS revision, ${REVISION_TO_KEEP} AS revision_to_keep,
         ${EPOCH_MS('least(own.first_seen, linked.first_seen)')} AS first_seen,
         ${EPOCH_MS('greatest(own.last_seen, linked.last_seen)')} AS last_seen,
         ${eventsSince(user, '$3')} AS events
    FROM (SELECT (SELECT min(e.occurred_at) FROM events e WHERE ${OWN_EVENTS(user)}) AS first_seen,
                 (SELECT max(e.occurred_at) FROM events e WHERE ${OWN_EVENTS(user)} AND e.occurred_at < $4) AS last_seen) own,
         (SELECT (SELECT min(e.occurred_at) FROM ${LINKED_ANONYMOUS_EVENTS_JOIN(user)}) AS first_seen,
                 (SELECT max(e.occurred_at) FROM ${LINKED_ANONYMOUS_EVENTS_JOIN(user)} AND e.occurred_at < $4) AS last_seen) linked
    LEFT JOIN user_activity a ON a.organization_id = $1 AND a.user_id = ${user}`;

/** The window of user $2 from $3, as of $4, read off the events: one round trip, one row. */
export const EVENTS_WINDOW = sqlStatement<UserWindowRow, [organizationId: string, user: StoredUserId, ...Span]>('events.events-window', eventsWindow('$2'), {
  prepared: true,
});

/**
 * The windows of the users $2 (an array) read off the events: one round trip, one row per user in
 * the order given. Without JIT: its cost estimate crosses jit_above_cost, and compiling it took about
 * 490 ms of the 565 ms EXPLAIN ANALYZE measured for 500 users' windows, whose index lookups take well
 * under 100 ms.
 */
export const EVENTS_WINDOWS = sqlStatement<UserWindowRow, [organizationId: string, users: readonly StoredUserId[], ...Span]>(
  'events.events-windows',
  `
  SELECT h.* FROM unnest($2::text[]) WITH ORDINALITY AS u(user_id, n)
   CROSS JOIN LATERAL (${eventsWindow('u.user_id')}) h
   ORDER BY u.n`,
  { prepared: true, jit: false },
);

/** The user a session belongs to: the latest event of the session that names (or links to) a user. */
export const SESSION_USER = sqlStatement<{ user_id: string }, [organizationId: string, sessionId: string]>(
  'events.session-user',
  `
  SELECT ${EVENT_USER} AS user_id FROM events e ${EVENT_USER_JOIN}
   WHERE e.organization_id = $1 AND e.session_id = $2 AND ${EVENT_USER} IS NOT NULL
   ORDER BY e.occurred_at DESC
   LIMIT 1`,
  { prepared: true },
);

export const HAS_EVENTS = sqlStatement<{ one: number }, [organizationId: string, user: StoredUserId]>(
  'events.has-events',
  `SELECT 1 AS one FROM events e WHERE ${USER_EVENTS('$2')} LIMIT 1`,
);

export const TIMELINE = sqlStatement<{ occurredAt: number; sessionId: string | null }, [organizationId: string, user: StoredUserId, ...Span]>(
  'events.timeline',
  `SELECT ${EPOCH_MS('e.occurred_at')} AS "occurredAt", e.session_id AS "sessionId"
     FROM events e WHERE ${USER_EVENTS('$2')} AND e.occurred_at >= $3 AND e.occurred_at < $4 ORDER BY e.occurred_at`,
);

/**
 * The user's latest $3 events, newest first: the latest of the user's own, and of each linked
 * anonymous id's (down its index, from the links), then the latest of those. An ORDER BY ... LIMIT
 * over USER_EVENTS' OR, or over the links joined to the events, walked the organization's primary
 * key backwards, filtering, until it had $3 of the user's (32,000 buffers for a user of 10 events
 * among 40,000; user-reads.integration-spec.ts).
 */
export const LATEST_EVENTS = sqlStatement<{ event: string; occurred_at: Date; session_id: string | null }, [organizationId: string, user: StoredUserId, limit: number]>(
  'events.latest-events',
  `SELECT event, occurred_at, session_id FROM (
     (SELECT e.event, e.occurred_at, e.session_id FROM events e WHERE ${OWN_EVENTS('$2')} ORDER BY e.occurred_at DESC LIMIT $3)
     UNION ALL
     (SELECT l.* FROM identities i CROSS JOIN LATERAL (
        SELECT e.event, e.occurred_at, e.session_id FROM events e WHERE ${LINK_EVENTS} ORDER BY e.occurred_at DESC LIMIT $3) l
       WHERE ${USER_LINKS('$2')})
   ) latest
   ORDER BY occurred_at DESC LIMIT $3`,
);

/**
 * For each (user $2, after $3, until $4): did the user do event $5 in (after, until]? One row per
 * input, in input order.
 */
export const TARGET_REACHED = sqlStatement<{ reached: boolean }, [organizationId: string, users: string[], after: string[], until: string[], event: string | null]>(
  'events.target-reached',
  `
  SELECT EXISTS (
           SELECT 1 FROM events e
            WHERE ${USER_EVENTS('w.user_id')} AND ($5::text IS NULL OR e.event = $5) AND e.occurred_at > w.after AND e.occurred_at <= w.until) AS reached
    FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(user_id, after, until, n)
   ORDER BY w.n`,
);

export const FREQUENT_EVENTS = sqlStatement<{ event: string }, [organizationId: string, ...Span, limit: number]>(
  'events.frequent-events',
  `SELECT event FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
    GROUP BY event ORDER BY count(*) DESC, event LIMIT $4`,
);

export const FREQUENT_SCREENS = sqlStatement<{ screen: string; views: string }, [organizationId: string, ...Span, limit: number]>(
  'events.frequent-screens',
  `SELECT screen, count(*) AS views FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3 AND screen IS NOT NULL
    GROUP BY screen ORDER BY count(*) DESC, screen LIMIT $4`,
);

export const FREQUENT_NUMERIC_PROPERTIES = sqlStatement<{ event: string; key: string }, [organizationId: string, ...Span, events: readonly string[], limit: number]>(
  'events.frequent-numeric-properties',
  `SELECT e.event, p.key FROM events e, jsonb_object_keys(e.numeric_properties) AS p(key)
    WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3 AND e.event = ANY($4::text[])
      AND e.numeric_properties IS NOT NULL
    GROUP BY e.event, p.key ORDER BY count(*) DESC, e.event, p.key LIMIT $5`,
);

/** Values of the string properties of the events $4 whose key took at most $5 values, most frequent first (at most $6). */
export const FREQUENT_STRING_VALUES = sqlStatement<
  { event: string; key: string; value: string },
  [organizationId: string, ...Span, events: readonly string[], maxValuesPerKey: number, limit: number]
>(
  'events.frequent-string-values',
  `WITH counted AS (
     SELECT e.event, p.key, p.value, count(*) AS sent FROM events e, jsonb_each_text(e.string_properties) AS p(key, value)
      WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3 AND e.event = ANY($4::text[])
        AND e.string_properties IS NOT NULL
      GROUP BY e.event, p.key, p.value),
   keyed AS (SELECT *, count(*) OVER (PARTITION BY event, key) AS key_values FROM counted)
   SELECT event, key, value FROM keyed WHERE key_values <= $5 ORDER BY sent DESC, event, key, value LIMIT $6`,
);

export const SIGNALS_SENT = sqlStatement<{ dwell: boolean; hesitation: boolean; scrollDepth: boolean }, [organizationId: string, ...Span]>(
  'events.signals-sent',
  `SELECT coalesce(bool_or(dwell_ms IS NOT NULL), false) AS dwell, coalesce(bool_or(hesitation_ms IS NOT NULL), false) AS hesitation,
          coalesce(bool_or(scroll_depth IS NOT NULL), false) AS "scrollDepth"
     FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3`,
);

/**
 * Training's users: the organization's users (an event ever, under the per-event rule) with when each
 * was first seen (epoch ms) and their count; beyond $5 of them, only a sample, stratified by class: of
 * the users who did $2 in [$3, $4) and of those who did not, the same share $5 / users (rounded half
 * up), those with the lowest stable per-user coin (md5 of the user: the same on every run and server
 * version). So the target's prevalence, and with it the calibrated probabilities, stay the
 * population's, and whole users are kept or dropped. Every user is aggregated here, in the database
 * (which spills to disk as it must); only the sample is sent.
 */
export const TRAINING_USERS = sqlStatement<
  { user_id: StoredUserId; first_seen: number; users: string },
  [organizationId: string, targetEvent: string, ...Span, maxUsers: number]
>(
  'events.training-users',
  `
  WITH users AS (
    SELECT ${EVENT_USER} AS user_id, min(e.occurred_at) AS first_seen,
           bool_or(e.event = $2 AND e.occurred_at >= $3 AND e.occurred_at < $4) AS did_target
      FROM events e ${EVENT_USER_JOIN}
     WHERE e.organization_id = $1 AND ${EVENT_USER} IS NOT NULL
     GROUP BY 1),
  ranked AS (
    SELECT user_id, first_seen, count(*) OVER () AS users, count(*) OVER (PARTITION BY did_target) AS class_users,
           row_number() OVER (PARTITION BY did_target ORDER BY md5('training-sample|' || user_id), user_id) AS place
      FROM users)
  SELECT user_id, ${EPOCH_MS('first_seen')} AS first_seen, users FROM ranked
   WHERE users <= $5 OR place <= floor(class_users * $5::float8 / users + 0.5)`,
);

/**
 * The training cursor: every user's events from $2 (until $3 when not null), in user order then
 * time; only the users $4 when not null. Byte order ("C", historyColumns) groups a user's events as
 * well as the database's collation and sorts with abbreviated keys.
 */
export const DECLARE_USER_HISTORIES = sqlStatement<never, [organizationId: string, from: string, until: string | null, users: readonly StoredUserId[] | null]>(
  'events.declare-user-histories',
  `DECLARE user_histories NO SCROLL CURSOR FOR
     SELECT ${historyColumns(EVENT_USER)}
       FROM events e ${EVENT_USER_JOIN}
      WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND ($3::timestamptz IS NULL OR e.occurred_at < $3) AND ${EVENT_USER} IS NOT NULL
        AND ($4::text[] IS NULL OR ${EVENT_USER} = ANY($4::text[]))
      ORDER BY 1, e.occurred_at`,
);

/** Rows the training cursor fetches per round trip. */
export const FETCH_USER_HISTORIES = sqlStatement<HistoryRow, []>('events.fetch-user-histories', 'FETCH 20000 FROM user_histories');

export const LINKED_ANONYMOUS_IDS = sqlStatement<{ anonymousId: StoredUserId; linkedAt: Date }, [organizationId: string, user: StoredUserId]>(
  'events.linked-anonymous-ids',
  `SELECT anonymous_id AS "anonymousId", linked_at AS "linkedAt" FROM identities WHERE organization_id = $1 AND user_id = $2 ORDER BY linked_at`,
);

/** An event of the user's, as export shows it (payloads still sealed). */
export interface StoredUserEventRow {
  message_id: string;
  event: string;
  user_id: string | null;
  anonymous_id: string | null;
  session_id: string | null;
  occurred_at: Date;
  received_at: Date;
  properties: string | null;
  context: string | null;
  encryption_key_id: string | null;
}

export const ERASABLE_EVENTS_OF = sqlStatement<StoredUserEventRow, [organizationId: string, user: string]>(
  'events.erasable-events',
  `SELECT message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at, properties, context, encryption_key_id
     FROM events e WHERE ${ERASABLE_EVENTS} ORDER BY occurred_at, message_id`,
);

/**
 * Erases the user's events, the identity links naming the user, and the activity row (with the
 * user's kept window, by its foreign key), in one statement; counts the events and the links. Data-modifying CTEs share one snapshot:
 * the events' links are read before they are deleted. Another user whose event carried this id as
 * its anonymous id, or to whom this id was linked as one, lost events: their revision moves, which
 * retires their kept window.
 */
export const ERASE_USER = sqlStatement<{ events: string; identities: string }, [organizationId: string, user: string]>(
  'events.erase-user',
  `WITH events_gone AS (DELETE FROM events e WHERE ${ERASABLE_EVENTS} RETURNING e.user_id),
        links_gone AS (DELETE FROM identities WHERE ${ERASABLE_IDENTITIES} RETURNING user_id),
        activity_gone AS (DELETE FROM user_activity WHERE ${ERASABLE_ACTIVITY} RETURNING 1),
        others_changed AS (${TOUCH_USERS_ANY_TIME(
          `organization_id = $1 AND user_id <> $2 AND user_id IN (SELECT user_id FROM events_gone UNION SELECT user_id FROM links_gone)`,
        )})
   SELECT (SELECT count(*) FROM events_gone) AS events, (SELECT count(*) FROM links_gone) AS identities, (SELECT count(*) FROM activity_gone) AS activity`,
);

/** Rows erasure would still find. */
export const ERASABLE_REMAINING = sqlStatement<{ n: string }, [organizationId: string, user: string]>(
  'events.erasable-remaining',
  `SELECT (SELECT count(*) FROM events e WHERE ${ERASABLE_EVENTS}) + (SELECT count(*) FROM identities WHERE ${ERASABLE_IDENTITIES})
        + (SELECT count(*) FROM user_activity WHERE ${ERASABLE_ACTIVITY}) + (SELECT count(*) FROM user_windows WHERE ${ERASABLE_ACTIVITY}) AS n`,
);

/** Retention's events: those of the organization $1 older than $2. */
export const EXPIRE_EVENTS = batchedDelete<[organizationId: string, before: string]>('events.expire-events', 'events', 'organization_id = $1 AND occurred_at < $2');

/**
 * Users with an activity row and no event left, own or linked (after retention): one pass over the
 * organization's events with the per-event rule, hashed, linear in the events. (A NOT EXISTS per
 * activity row probes every partition once per user and, deleted in batches, rescans the users who
 * keep their events once per batch: quadratic, minutes at 50,000 users.)
 */
export const USERS_WITHOUT_EVENTS = sqlStatement<{ user_id: string }, [organizationId: string]>(
  'events.users-without-events',
  `
  SELECT user_id FROM user_activity WHERE organization_id = $1
  EXCEPT
  SELECT ${EVENT_USER} FROM events e ${EVENT_USER_JOIN} WHERE e.organization_id = $1`,
);

/**
 * Activity rows of the users in $2 that still have no event, checked again at delete time so an
 * event stored since the pass above keeps its user's row. Set-based too: one read of these users'
 * events, not one probe per row.
 */
export const DELETE_ACTIVITY_WITHOUT_EVENTS = batchedDelete<[organizationId: string, users: string[]]>(
  'events.delete-activity-without-events',
  'user_activity',
  `organization_id = $1 AND user_id = ANY($2::text[]) AND user_id NOT IN (
     SELECT ${EVENT_USER} FROM events e ${EVENT_USER_JOIN} WHERE ${USER_EVENTS('ANY($2::text[])')} AND ${EVENT_USER} IS NOT NULL)`,
);

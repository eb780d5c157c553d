/**
 * "A user's events", the one rule every reader of the events tables follows (serving, training,
 * outcomes, sessions, export, erasure): the events naming the user, and the events that name no
 * user but carry an anonymousId linked to the user (identify, or an event carrying both), so
 * anonymous history counts for the identified user. Events are aliased `e`; $1 is the organization;
 * `user` is the user as stored, a parameter or a column of an outer query.
 */
export const OWN_EVENTS = (user: string) => `e.organization_id = $1 AND e.user_id = ${user}`;
export const LINKED_ANONYMOUS_EVENTS = (user: string) =>
  `e.organization_id = $1 AND e.user_id IS NULL AND e.anonymous_id = ANY(ARRAY(SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = ${user}))`;
/**
 * LINKED_ANONYMOUS_EVENTS as a join from the user's links (FROM and WHERE), for a branch inside a
 * UNION ALL read per user of a LATERAL: there, PostgreSQL 15 kept the ARRAY(...) of the first user
 * for the next ones when the window fell in one partition (seen on the bench's data: one user's
 * anonymous events served as another's).
 */
export const LINKED_ANONYMOUS_EVENTS_JOIN = (user: string) =>
  `identities i JOIN events e ON e.organization_id = i.organization_id AND e.anonymous_id = i.anonymous_id
    WHERE i.organization_id = $1 AND i.user_id = ${user} AND e.user_id IS NULL`;
/** Both branches, each able to run on its own index. */
export const USER_EVENTS = (user: string) => `((${OWN_EVENTS(user)}) OR (${LINKED_ANONYMOUS_EVENTS(user)}))`;

/**
 * The same rule read per event, for scans over many users: an event's user is its userId, or the
 * user its anonymousId is linked to. Needs EVENT_USER_JOIN in the FROM clause.
 */
export const EVENT_USER = 'coalesce(e.user_id, i.user_id)';
export const EVENT_USER_JOIN = 'LEFT JOIN identities i ON i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id';

/** What erasure removes beyond the user's events: events under the id used as an anonymous id. $2 the user. */
export const ERASABLE_EVENTS = `(${USER_EVENTS('$2')} OR (e.organization_id = $1 AND e.anonymous_id = $2))`;
export const ERASABLE_IDENTITIES = `organization_id = $1 AND (user_id = $2 OR anonymous_id = $2)`;
export const ERASABLE_ACTIVITY = `organization_id = $1 AND user_id = $2`;

/**
 * Users with an activity row and no event left, own or linked (after retention): one pass over the
 * organization's events with the per-event rule, hashed, linear in the events. (A NOT EXISTS per
 * activity row probes every partition once per user and, deleted in batches, rescans the users who
 * keep their events once per batch: quadratic, minutes at 50,000 users.)
 */
export const USERS_WITHOUT_EVENTS_SQL = `
  SELECT user_id FROM user_activity WHERE organization_id = $1
  EXCEPT
  SELECT ${EVENT_USER} FROM events e ${EVENT_USER_JOIN} WHERE e.organization_id = $1`;
/**
 * Activity rows of the users in $2 that still have no event, checked again at delete time so an
 * event stored since the pass above keeps its user's row. Set-based too: one read of these users'
 * events, not one probe per row.
 */
export const ACTIVITY_STILL_WITHOUT_EVENTS = `organization_id = $1 AND user_id = ANY($2::text[]) AND user_id NOT IN (
  SELECT ${EVENT_USER} FROM events e ${EVENT_USER_JOIN} WHERE ${USER_EVENTS('ANY($2::text[])')} AND ${EVENT_USER} IS NOT NULL)`;

/**
 * A timestamp as epoch milliseconds (float8), the time every reader of events computes with.
 * Ingestion stores instants with millisecond precision (Date.toISOString()), so the rounding only
 * undoes float8's last-bit error: the value is the exact millisecond, as extract()'s numeric gave
 * it, at a fraction of its cost per event (extract returns numeric since PostgreSQL 14).
 */
export const EPOCH_MS = (timestamp: string) => `round(date_part('epoch', ${timestamp}) * 1000)`;

/**
 * An event as the feature definitions read it, positional: epoch ms, event, session, screen, dwell,
 * hesitation, scroll depth, numeric properties (UserEvent's fields, in this order). A JSON array per event costs Postgres about half of what an
 * object with named keys does (the keys are built and sent for every event), and parses faster.
 */
export const FEATURE_EVENT_ARRAY = `json_build_array(
  ${EPOCH_MS('e.occurred_at')}, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties)`;

/** The user's revision: a primary-key read. */
const revisionOf = (user: string) => `SELECT revision::text AS revision FROM user_activity WHERE organization_id = $1 AND user_id = ${user}`;
export const REVISION_SQL = revisionOf('$2');

/**
 * The user's events dated at or after `since`, as the JSON text of FEATURE_EVENT_ARRAYs, oldest first:
 * the two branches of the rule apart and appended (UNION ALL), each on its own index, where one OR
 * over both made a bitmap scan with a recheck of every event. Sent as JSON text: one parse instead
 * of a row object and eight fields per event.
 */
const eventsSince = (user: string, since: string) => `
  (SELECT coalesce(json_agg(s.event ORDER BY s.occurred_at), '[]')::text FROM (
      SELECT e.occurred_at, ${FEATURE_EVENT_ARRAY} AS event FROM events e WHERE ${OWN_EVENTS(user)} AND e.occurred_at >= ${since}
      UNION ALL
      SELECT e.occurred_at, ${FEATURE_EVENT_ARRAY} FROM ${LINKED_ANONYMOUS_EVENTS_JOIN(user)} AND e.occurred_at >= ${since}
    ) s)`;

/*
 * Both reads below answer a user's window in one shape (UserWindowRow): the user's revision, first
 * event ever, latest event before $4 (epoch ms), and the events from $3 on as the JSON text of
 * FEATURE_EVENT_ARRAYs, oldest first. No upper bound on the events: ingestion refuses events more
 * than 24 h ahead, and a window ending later than $4 is cut out of the same row (windowAsOf).
 */

/**
 * A user_windows row `w` that still holds the user's history, with their activity row `a`: of the
 * current revision, or the base of the revisions since (1764760000000-user-activity-delta.ts: each
 * stored only events dated at or after delta_from). In the second case the row is read with the events
 * dated from delta_from on, which take the place of the kept ones from then on (`recent_from`,
 * `recent`): a new event costs a read of the user's latest events, not of the whole window. Serving
 * and bulk scoring read kept windows with these.
 */
export const KEPT_WINDOW_HOLDS = `(w.revision = a.revision OR (w.revision = a.delta_base AND a.revision = a.delta_base + a.delta_count))`;
export const KEPT_WINDOW_COLUMNS = `a.revision::text AS revision, w.first_seen, w.last_seen, w.events,
         CASE WHEN w.revision <> a.revision THEN ${EPOCH_MS('a.delta_from')} END AS recent_from,
         CASE WHEN w.revision <> a.revision THEN ${eventsSince('w.user_id', 'a.delta_from')} END AS recent`;

/**
 * The kept windows of users in `users` that serve a window from $3 as of $4: starting no later than
 * $3, taken no later than $4, still holding the history. Two primary-key reads per user; a statement
 * apart from the read off the events, whose plan over every partition costs more to start than these.
 */
const keptWindows = (users: string) => `
  SELECT w.user_id, ${KEPT_WINDOW_COLUMNS}
    FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
   WHERE w.organization_id = $1 AND w.user_id ${users} AND w.window_from <= $3 AND w.taken_at <= $4 AND ${KEPT_WINDOW_HOLDS}`;
export const KEPT_WINDOW_SQL = keptWindows('= $2');
export const KEPT_WINDOWS_SQL = keptWindows('= ANY($2::text[])');

/**
 * The window read off the events; first and last seen per branch of the rule, so min() and max()
 * read one index entry per partition.
 */
const eventsWindow = (user: string) => `
  SELECT (${revisionOf(user)}) AS revision,
         ${EPOCH_MS('least(own.first_seen, linked.first_seen)')} AS first_seen,
         ${EPOCH_MS('greatest(own.last_seen, linked.last_seen)')} AS last_seen,
         ${eventsSince(user, '$3')} AS events
    FROM (SELECT (SELECT min(e.occurred_at) FROM events e WHERE ${OWN_EVENTS(user)}) AS first_seen,
                 (SELECT max(e.occurred_at) FROM events e WHERE ${OWN_EVENTS(user)} AND e.occurred_at < $4) AS last_seen) own,
         (SELECT (SELECT min(e.occurred_at) FROM events e WHERE ${LINKED_ANONYMOUS_EVENTS(user)}) AS first_seen,
                 (SELECT max(e.occurred_at) FROM events e WHERE ${LINKED_ANONYMOUS_EVENTS(user)} AND e.occurred_at < $4) AS last_seen) linked`;

/** The window of user $2 from $3, as of $4, read off the events: one round trip, one row. */
export const EVENTS_WINDOW_SQL = eventsWindow('$2');

/** The windows of the users $2 (an array) read off the events: one round trip, one row per user in the order given. */
export const EVENTS_WINDOWS_SQL = `
  SELECT h.* FROM unnest($2::text[]) WITH ORDINALITY AS u(user_id, n)
   CROSS JOIN LATERAL (${eventsWindow('u.user_id')}) h
   ORDER BY u.n`;

/** The user a session belongs to: the latest event of the session that names (or links to) a user. */
export const SESSION_USER_SQL = `
  SELECT ${EVENT_USER} AS user_id FROM events e ${EVENT_USER_JOIN}
   WHERE e.organization_id = $1 AND e.session_id = $2 AND ${EVENT_USER} IS NOT NULL
   ORDER BY e.occurred_at DESC
   LIMIT 1`;

/**
 * For each (user $2, after $3, until $4): did the user do event $5 in (after, until]? One row per
 * input, in input order.
 */
export const TARGET_REACHED_SQL = `
  SELECT EXISTS (
           SELECT 1 FROM events e
            WHERE ${USER_EVENTS('w.user_id')} AND e.event = $5 AND e.occurred_at > w.after AND e.occurred_at <= w.until) AS reached
    FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS w(user_id, after, until, n)
   ORDER BY w.n`;

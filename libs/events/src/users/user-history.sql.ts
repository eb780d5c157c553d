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
/** The user's links: rows of identities `i`. */
export const USER_LINKS = (user: string) => `i.organization_id = $1 AND i.user_id = ${user}`;
/**
 * The anonymous events (`e`) of the link `i`: per link (FROM identities i CROSS JOIN LATERAL (... WHERE
 * LINK_EVENTS) WHERE USER_LINKS), a read stops early in each linked id's events (ORDER BY ... LIMIT).
 */
export const LINK_EVENTS = 'e.organization_id = i.organization_id AND e.anonymous_id = i.anonymous_id AND e.user_id IS NULL';
/**
 * LINKED_ANONYMOUS_EVENTS as a join from the user's links (FROM and WHERE), for a branch inside a
 * UNION ALL read per user of a LATERAL: there, PostgreSQL 15 kept the ARRAY(...) of the first user
 * for the next ones when the window fell in one partition (seen on the bench's data: one user's
 * anonymous events served as another's).
 */
export const LINKED_ANONYMOUS_EVENTS_JOIN = (user: string) => `identities i JOIN events e ON ${LINK_EVENTS} WHERE ${USER_LINKS(user)}`;
/** Both branches, each able to run on its own index. */
export const USER_EVENTS = (user: string) => `((${OWN_EVENTS(user)}) OR (${LINKED_ANONYMOUS_EVENTS(user)}))`;

/**
 * The same rule read per event, for scans over many users: an event's user is its userId, or the
 * user its anonymousId is linked to. Needs EVENT_USER_JOIN in the FROM clause.
 */
export const EVENT_USER = 'coalesce(e.user_id, i.user_id)';
export const EVENT_USER_JOIN = 'LEFT JOIN identities i ON i.organization_id = e.organization_id AND i.anonymous_id = e.anonymous_id';

/**
 * A timestamp as epoch milliseconds (float8), the time every reader of events computes with.
 * Ingestion stores instants with millisecond precision (Date.toISOString()), so the rounding only
 * undoes float8's last-bit error: the value is the exact millisecond, as extract()'s numeric gave
 * it, at a fraction of its cost per event (extract returns numeric since PostgreSQL 14).
 */
export const EPOCH_MS = (timestamp: string) => `round(date_part('epoch', ${timestamp}) * 1000)`;

/**
 * An event as the feature definitions read it, positional: epoch ms, event, session, screen, dwell,
 * hesitation, scroll depth, numeric properties, string properties (UserEvent's fields, in this order). A JSON array per event costs Postgres about half of what an
 * object with named keys does (the keys are built and sent for every event), and parses faster.
 */
export const FEATURE_EVENT_ARRAY = `json_build_array(
  ${EPOCH_MS('e.occurred_at')}, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties, e.string_properties)`;

/** The user's revision: a primary-key read. */
export const revisionOf = (user: string) => `SELECT revision::text AS revision FROM user_activity WHERE organization_id = $1 AND user_id = ${user}`;

/**
 * The user's events dated at or after `since`, as the JSON text of FEATURE_EVENT_ARRAYs, oldest first:
 * the two branches of the rule apart and appended (UNION ALL), each on its own index, where one OR
 * over both made a bitmap scan with a recheck of every event. Sent as JSON text: one parse instead
 * of a row object and eight fields per event.
 */
export const eventsSince = (user: string, since: string) => `
  (SELECT coalesce(json_agg(s.event ORDER BY s.occurred_at), '[]')::text FROM (
      SELECT e.occurred_at, ${FEATURE_EVENT_ARRAY} AS event FROM events e WHERE ${OWN_EVENTS(user)} AND e.occurred_at >= ${since}
      UNION ALL
      SELECT e.occurred_at, ${FEATURE_EVENT_ARRAY} FROM ${LINKED_ANONYMOUS_EVENTS_JOIN(user)} AND e.occurred_at >= ${since}
    ) s)`;

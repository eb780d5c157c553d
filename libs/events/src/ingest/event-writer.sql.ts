import { sqlStatement } from '@foresight/platform';
import { TOUCH_USERS } from '../users/kept-windows/kept-windows.sql';

/*
 * The group-commit writer's statements (EventWriterService), all inside its transaction.
 */

/** A user (or anonymous id) of an organization, as the statements name them. */
export interface UserRef {
  organization_id: string;
  user_id: string;
}

/**
 * Links anonymous ids to users; returns the users whose set of linked anonymous ids changed (the
 * newly linked user and, for a re-link, the previous one), whose histories therefore changed.
 * Runs before the events are inserted, so an anonymous event linked by the same group counts for its user.
 */
export const LINK_IDENTITIES = sqlStatement<UserRef, [organizationIds: string[], anonymousIds: string[], userIds: string[]]>(
  'events.link-identities',
  `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS t(organization_id, anonymous_id, user_id)
  ), previous AS (
    SELECT i.organization_id, i.anonymous_id, i.user_id FROM identities i JOIN input USING (organization_id, anonymous_id)
  ), linked AS (
    INSERT INTO identities (organization_id, anonymous_id, user_id)
    SELECT * FROM input
    ON CONFLICT (organization_id, anonymous_id) DO UPDATE SET user_id = EXCLUDED.user_id, linked_at = now()
    WHERE identities.user_id IS DISTINCT FROM EXCLUDED.user_id
    RETURNING organization_id, anonymous_id, user_id
  )
  SELECT organization_id, user_id FROM linked
  UNION
  SELECT p.organization_id, p.user_id FROM linked l JOIN previous p USING (organization_id, anonymous_id)`,
);

const EVENT_COLUMNS = `organization_id, message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at,
  screen, scroll_depth, dwell_ms, hesitation_ms, numeric_properties, string_properties, properties, context, encryption_key_id`;

/**
 * Claims the group's messageIds by their keys (messageKey), in key order (the rows come sorted), so
 * concurrent groups sending the same ones lock them in the same order. One COPY while no duplicate
 * comes (the usual case; the bulk path costs about a third less and needs no savepoint round trips):
 * a duplicate fails it, and with it the transaction, which then runs again with CLAIM_MESSAGE_KEYS.
 * Either way the primary key decides: a messageId another transaction is storing at the same moment
 * waits for it, then counts as a duplicate if it committed.
 */
export const COPY_MESSAGE_KEYS = sqlStatement<never, []>('events.copy-message-keys', `COPY event_message_keys (organization_id, key) FROM STDIN`);

/** Returns the keys actually claimed (hex): only their events are stored, and each request learns its own counts from them. */
export const CLAIM_MESSAGE_KEYS = sqlStatement<{ key: string }, [organizationIds: string[], keys: string[]]>(
  'events.claim-message-keys',
  `
  INSERT INTO event_message_keys (organization_id, key)
  SELECT organization_id, decode(key, 'hex') FROM unnest($1::text[], $2::text[]) AS t(organization_id, key)
  ON CONFLICT DO NOTHING
  RETURNING encode(key, 'hex') AS key`,
);

/**
 * The claimed events, in COPY text format (copyRow): Postgres's bulk path writes a heap page at a
 * time instead of a row at a time, which makes it the cheapest way in (2,000 bench rows: about 15 ms
 * against 26 ms for INSERT … SELECT FROM unnest, client encoding included).
 */
export const COPY_EVENTS = sqlStatement<never, []>('events.copy-events', `COPY events (${EVENT_COLUMNS}) FROM STDIN`);

type Column<T> = Array<T | null>;

/** The same rows for embedded PGlite, whose socket does not speak COPY FROM STDIN. */
export const INSERT_EVENTS = sqlStatement<
  never,
  [
    organizationIds: string[],
    messageIds: string[],
    events: string[],
    userIds: Column<string>,
    anonymousIds: Column<string>,
    sessionIds: Column<string>,
    occurredAt: string[],
    receivedAt: string[],
    screens: Column<string>,
    scrollDepths: Column<number>,
    dwellMs: Column<number>,
    hesitationMs: Column<number>,
    numericProperties: Column<string>,
    stringProperties: Column<string>,
    properties: Column<string>,
    contexts: Column<string>,
    encryptionKeyIds: Column<string>,
  ]
>(
  'events.insert-events',
  `
  INSERT INTO events (${EVENT_COLUMNS})
  SELECT * FROM unnest(
    $1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[],
    $9::text[], $10::real[], $11::integer[], $12::integer[], $13::jsonb[], $14::jsonb[], $15::text[], $16::text[], $17::text[])`,
);

/** Users touched: organization ids, user ids, the earliest event time stored for each (ISO, or -infinity). */
type Touched = [organizationIds: string[], userIds: string[], earliest: string[]];

/**
 * Moves the user_activity revision of every user whose history changed (TOUCH_USERS; the kept
 * window's invariant relies on it): the stored events' users ($1, $2, with the re-linked users) and
 * the users the stored anonymous-only events' ids are linked to ($4, $5; linked by this transaction
 * already, so they count), each with the earliest event time it stored for them ($3, $6; -infinity
 * for a re-link). Sorted in byte order, which is the writer's own key order for every id without
 * characters beyond U+FFFF (touchUsers), so concurrent groups lock those rows in the same order and
 * cannot deadlock on them.
 */
const touchUsers = TOUCH_USERS(`
  SELECT organization_id, user_id, min(earliest) FROM (
    SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(organization_id, user_id, earliest)
    UNION ALL
    SELECT i.organization_id, i.user_id, a.earliest
      FROM unnest($4::text[], $5::text[], $6::timestamptz[]) AS a(organization_id, anonymous_id, earliest)
      JOIN identities i USING (organization_id, anonymous_id)
  ) changed GROUP BY 1, 2 ORDER BY organization_id COLLATE "C", user_id COLLATE "C"`);

export const TOUCH_CHANGED_USERS = sqlStatement<never, [...Touched, ...Touched]>('events.touch-users', touchUsers);

/**
 * TOUCH_CHANGED_USERS naming the users it touched, for a group that must tell them. Only then: a row
 * per user made bench:events' API spend 2.3 µs more CPU per event (19.1 against 16.8 in an A/B).
 */
export const TOUCH_AND_NAME_USERS = sqlStatement<UserRef, [...Touched, ...Touched]>('events.touch-and-name-users', `${touchUsers}
  RETURNING organization_id, user_id`);

/**
 * TOUCH_CHANGED_USERS for a group whose stored events all name their user: the writer sends each
 * user once, with their earliest time, already in key order (touchUsers), and the rows are inserted
 * in that order. Without the grouping and sort, a user's revision costs about a quarter less
 * Postgres CPU (statements of 500 users into a table of 100,000, 5 alternated rounds: a median of
 * 7.3 against 10.3 µs per user).
 */
export const TOUCH_LISTED_USERS = sqlStatement<never, Touched>(
  'events.touch-listed-users',
  TOUCH_USERS(`SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[])`),
);

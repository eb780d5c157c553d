import { batchedDelete, sqlStatement } from '@foresight/platform';
import type { StoredUserId } from '../stored-user-id';
import { EPOCH_MS, eventsSince } from '../user-history.sql';
import type { UserWindowRow } from './user-window';

/*
 * The kept window's SQL: when one may be served (the invariant in user-windows.service.ts), how one
 * is kept, and the revision touches and deletions that retire one. Users' windows are aliased `w`
 * (user_windows) and their activity rows `a` (user_activity).
 *
 * user_windows (1764750000000): `events` holds the user's events from `window_from` on, JSON text of
 * FEATURE_EVENT_ARRAYs, oldest first, with no upper bound (a window ending later is read off the same
 * row); `first_seen` is the user's first event ever and `last_seen` the latest before `taken_at`
 * (epoch ms); `revision` the activity row's revision it was read at. Its foreign key deletes it with
 * the activity row. user_activity's delta columns (1764760000000): `delta_count` revisions after
 * `delta_base` each stored only events dated at or after `delta_from`; the defaults (0, 0, infinity)
 * never hold a window, and a writer that does not know them (an earlier release during a rolling
 * upgrade) moves the revision without counting, which retires the window: safe.
 */

/**
 * How long before a kept window's taking an event may be dated and still count as stored since
 * (user_activity's delta_from): events sent after the taking but dated a little earlier (a client's
 * queue flushed on its usual schedule, an ingestion transaction still open at the taking) then
 * extend the kept window instead of retiring it. Every read of the window reads the events dated from
 * delta_from on apart, so bigger reads more events per request: with an hour, a user sending an
 * event every few seconds had a thousand read one by one off the events on every prediction. An
 * event dated earlier (a queue flushed after hours offline) still answers right, off all the events,
 * and serving keeps the window again (UserEventsService).
 */
export const DELTA_MARGIN_MS = 5 * 60_000;

/**
 * `w` still holds the user's history: of the current revision, or the base of the revisions since,
 * each of which stored only events dated at or after delta_from. In the second case the row is read
 * with the events dated from delta_from on, which take the place of the kept ones from then on
 * (`recent_from`, `recent`; windowAsOf): a new event costs a read of the user's latest events, not
 * of the whole window.
 */
export const KEPT_WINDOW_HOLDS = `(w.revision = a.revision OR (w.revision = a.delta_base AND a.revision = a.delta_base + a.delta_count))`;

/**
 * What a read that may be kept records of the user's activity row `a` (ActiveUser.revisionToKeep,
 * UserWindowSnapshot.revision): its revision and its row version (xmin), which KEEP_WINDOWS both
 * compare with the row it locks. The revision alone is not enough for a read from an older snapshot
 * (bulk scoring's, or the replica's): erasure deletes the activity row, and the user's next event
 * creates one whose revision starts over at 1, so a window holding the erased events could meet the
 * new row at the same revision. The new row is another row version, and no transaction id is reused
 * within the minutes a read waits to be kept.
 */
export const REVISION_TO_KEEP = `a.revision::text || '/' || a.xmin::text`;

/** `w` serves a window from `from` as of `asOf` (windowAsOf: any later start, any later end). */
export const KEPT_WINDOW_SERVES = (from: string, asOf: string) => `${KEPT_WINDOW_HOLDS} AND w.window_from <= ${from} AND w.taken_at <= ${asOf}`;

/** A kept window as UserWindowRow, with the events stored since when it is the base of later revisions. */
export const KEPT_WINDOW_COLUMNS = `a.revision::text AS revision, ${REVISION_TO_KEEP} AS revision_to_keep, w.first_seen, w.last_seen, w.events,
         CASE WHEN w.revision <> a.revision THEN ${EPOCH_MS('a.delta_from')} END AS recent_from,
         CASE WHEN w.revision <> a.revision THEN ${eventsSince('w.user_id', 'a.delta_from')} END AS recent`;

/**
 * The revision touch of ingestion: `changed` is a SELECT of (organization_id, user_id, earliest),
 * the users whose history a transaction changed with the earliest event time it stored for each
 * (-infinity for a link, which changes the history at any time). A new activity row starts at
 * revision 1; an existing one's revision moves, and counts as a delta revision when `earliest` is at
 * or after the row's delta_from (EXCLUDED.delta_from carries it; a new row keeps it, meaningless
 * with no base).
 */
export const TOUCH_USERS = (changed: string) => `
  INSERT INTO user_activity (organization_id, user_id, delta_from)
  ${changed}
  ON CONFLICT (organization_id, user_id) DO UPDATE
     SET revision = user_activity.revision + 1,
         delta_count = user_activity.delta_count + (EXCLUDED.delta_from >= user_activity.delta_from)::int`;

/** The revision touch of a change at any time (erasure of events or links): never counted as a delta. */
export const TOUCH_USERS_ANY_TIME = (where: string) => `UPDATE user_activity SET revision = revision + 1 WHERE ${where}`;

/**
 * Retention's part: the kept windows of organization $1 that hold or count an event older than its
 * cutoff $2 (first seen before it). Retention moves no revision: it deletes only events older than
 * its cutoff, which no other kept window holds.
 */
export const EXPIRE_KEPT_WINDOWS = batchedDelete<[organizationId: string, before: string]>(
  'events.expire-kept-windows',
  'user_windows',
  `organization_id = $1 AND first_seen < ${EPOCH_MS('$2::timestamptz')}`,
);

/**
 * The kept windows of users in `users` that serve a window from $3 as of $4. Two primary-key reads
 * per user; a statement apart from the read off the events, whose plan over every partition costs
 * more to start than these.
 */
const keptWindows = (users: string) => `
  SELECT w.user_id, ${KEPT_WINDOW_COLUMNS}
    FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
   WHERE w.organization_id = $1 AND w.user_id ${users} AND ${KEPT_WINDOW_SERVES('$3', '$4')}`;

type WindowSpan = [from: string, asOf: string];

export const KEPT_WINDOW = sqlStatement<UserWindowRow, [organizationId: string, user: StoredUserId, ...WindowSpan]>('events.kept-window', keptWindows('= $2'), {
  prepared: true,
});

export const KEPT_WINDOWS = sqlStatement<UserWindowRow & { user_id: StoredUserId }, [organizationId: string, users: readonly StoredUserId[], ...WindowSpan]>(
  'events.kept-windows',
  keptWindows('= ANY($2::text[])'),
  { prepared: true },
);

/**
 * Keeps windows at the revision they were read at, when that is still the user's revision and
 * activity row (REVISION_TO_KEEP; otherwise the window is outdated already, or the user erased) and none of its events is older
 * than the organization's retention (a window read before a retention run deleted the user's first
 * events must not outlive the run). A window kept at the same revision stays: it answers the same
 * for any later window.
 *
 * The user's activity row then becomes the base of the events stored since (delta_base, count 0,
 * delta_from DELTA_MARGIN_MS before the taking). Its rows are locked in key order first, as
 * ingestion locks them, so the revision cannot move between the check and the write and the two
 * cannot deadlock.
 */
export const KEEP_WINDOWS = sqlStatement<
  never,
  [
    organizationIds: string[],
    users: StoredUserId[],
    /** REVISION_TO_KEEP as read. */
    revisions: string[],
    windowFrom: number[],
    takenAt: number[],
    firstSeen: number[],
    lastSeen: number[],
    events: string[],
  ]
>(
  'events.keep-windows',
  `
  WITH current AS (
    SELECT u.organization_id, u.user_id, a.revision, u.window_from, u.taken_at, u.first_seen, u.last_seen, u.events
      FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::text[])
             AS u(organization_id, user_id, read_as, window_from, taken_at, first_seen, last_seen, events)
      JOIN organizations o ON o.id = u.organization_id AND u.first_seen >= date_part('epoch', now() - o.retention_days * interval '1 day') * 1000
      JOIN user_activity a ON a.organization_id = u.organization_id AND a.user_id = u.user_id AND ${REVISION_TO_KEEP} = u.read_as
     ORDER BY u.organization_id, u.user_id FOR UPDATE OF a
  ), based AS (
    -- Each step joins one row set by a primary key, never two of these CTEs together (no statistics: nested loops).
    UPDATE user_activity a SET delta_base = a.revision, delta_count = 0, delta_from = to_timestamp((u.taken_at - ${DELTA_MARGIN_MS}) / 1000)
      FROM current u
     WHERE a.organization_id = u.organization_id AND a.user_id = u.user_id
    RETURNING u.*
  )
  INSERT INTO user_windows (organization_id, user_id, revision, window_from, taken_at, first_seen, last_seen, events)
  SELECT u.organization_id, u.user_id, u.revision, to_timestamp(u.window_from / 1000), to_timestamp(u.taken_at / 1000), u.first_seen, u.last_seen, u.events
    FROM based u
   ORDER BY u.organization_id, u.user_id
  ON CONFLICT (organization_id, user_id) DO UPDATE
     SET revision = EXCLUDED.revision, window_from = EXCLUDED.window_from, taken_at = EXCLUDED.taken_at,
         first_seen = EXCLUDED.first_seen, last_seen = EXCLUDED.last_seen, events = EXCLUDED.events
   WHERE user_windows.revision < EXCLUDED.revision`,
);

import { Injectable } from '@nestjs/common';
import { DataSource, type QueryRunner } from 'typeorm';
import { compareStoredIds, cursorBatches, historyColumns, inReadSnapshot, userHistories } from './history-cursor';
import { type StoredUserId } from './stored-user-id';
import type { UserEvent } from './user-event';
import { EPOCH_MS, KEPT_WINDOW_COLUMNS, KEPT_WINDOW_HOLDS, LINKED_ANONYMOUS_EVENTS_JOIN, OWN_EVENTS } from './user-events.sql';
import { type UserWindowRow, type UserWindowSnapshot, windowAsOf, windowToKeep } from './user-window';

/** A user with an event in the run's window, as bulk scoring reads them. */
export interface ActiveUser {
  user: StoredUserId;
  /** The user's events from the window's start on, oldest first, with no end (events dated later included). */
  history: UserEvent[];
  /** The user's first event ever (epoch ms). */
  firstSeenAt: number;
  /**
   * The user's revision when the history was read whole (off the events, or off a kept window and the
   * events stored since): a window worth keeping. Undefined when read off a window kept at that revision.
   */
  revisionToKeep: string | undefined;
}

/** What the read knows before the first user: the run's total, and the windows of users read off the events who are not active. */
export interface ActiveUsersStart {
  /** Users active in [from, until), all of them (also before `afterUser`). */
  total: number;
  /**
   * The windows worth keeping of users read off the events with no event from `from` on: no events,
   * first and last seen. Kept, they spare the next runs reading such users' events again.
   */
  inactiveWindows: UserWindowSnapshot[];
}

/** A bulk scoring run's read: the organization's users active in [from, until), after `afterUser` when a resumed run asks. */
export interface ActiveUsersRead {
  organizationId: string;
  from: Date;
  until: Date;
  afterUser: StoredUserId | null;
}

/** Kept rows per round trip (a few KB each); event rows per round trip. */
const KEPT_FETCH_ROWS = 2_000;
const EVENTS_FETCH_ROWS = 20_000;

/*
 * $1 the organization, $2 the window's start, $3 its end (the run's now). A kept window serves the
 * run when it still holds the user's history (KEPT_WINDOW_HOLDS: of the current revision, or extended
 * by the events stored since), starts no later than $2 and was taken no later than $3 (windowAsOf);
 * every other user with an activity row is read off the events. The two sets are each other's
 * complement, read in one snapshot.
 */
const SERVING_KEPT_WINDOW = `${KEPT_WINDOW_HOLDS} AND w.window_from <= $2 AND w.taken_at <= $3`;

/** Users whose window is read off the events, with their revision (to keep the window under). */
const USERS_TO_READ_SQL = `
  SELECT a.user_id, a.revision::text AS revision
    FROM user_activity a LEFT JOIN user_windows w ON w.organization_id = a.organization_id AND w.user_id = a.user_id AND ${SERVING_KEPT_WINDOW}
   WHERE a.organization_id = $1 AND w.user_id IS NULL`;

/** An event of user `w.user_id` in [$2, $3) dated from the activity row's delta_from on, by either branch of the rule. */
const RECENT_EVENT_IN_RUN = `(
  EXISTS (SELECT 1 FROM events e WHERE ${OWN_EVENTS('w.user_id')} AND e.occurred_at >= greatest(a.delta_from, $2) AND e.occurred_at < $3)
  OR EXISTS (SELECT 1 FROM ${LINKED_ANONYMOUS_EVENTS_JOIN('w.user_id')} AND e.occurred_at >= greatest(a.delta_from, $2) AND e.occurred_at < $3))`;

/**
 * Users served by a kept window who are active: an event in [$2, $3). The latest event before the
 * window was taken is one when it is at or after $2 (and so before $3); otherwise only an event
 * dated at or after the taking can be, which the kept events tell, or one stored since.
 */
const ACTIVE_KEPT_USERS_SQL = `
  SELECT count(*)::int AS users FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
   WHERE w.organization_id = $1 AND ${SERVING_KEPT_WINDOW}
     AND CASE WHEN w.last_seen >= ${EPOCH_MS('$2::timestamptz')} THEN true
              ELSE EXISTS (SELECT 1 FROM json_array_elements(w.events::json) x
                            WHERE (x->>0)::float8 >= ${EPOCH_MS('$2::timestamptz')} AND (x->>0)::float8 < ${EPOCH_MS('$3::timestamptz')})
                   OR (w.revision <> a.revision AND ${RECENT_EVENT_IN_RUN}) END`;

/**
 * Of the users $4 (read off the events): first event ever, latest before $3 and latest of all
 * (epoch ms), and whether one falls in [$2, $3). Both branches of the rule, each on its index.
 */
const USERS_READ_SPAN_SQL = `
  SELECT user_id, ${EPOCH_MS('min(first_seen)')} AS first_seen, ${EPOCH_MS('max(last_seen)')} AS last_seen,
         ${EPOCH_MS('max(latest)')} AS latest, bool_or(active) AS active FROM (
    SELECT e.user_id, min(e.occurred_at) AS first_seen, max(e.occurred_at) FILTER (WHERE e.occurred_at < $3) AS last_seen,
           max(e.occurred_at) AS latest, bool_or(e.occurred_at >= $2 AND e.occurred_at < $3) AS active
      FROM events e WHERE ${OWN_EVENTS('ANY($4::text[])')} GROUP BY 1
    UNION ALL
    SELECT i.user_id, min(e.occurred_at), max(e.occurred_at) FILTER (WHERE e.occurred_at < $3), max(e.occurred_at),
           bool_or(e.occurred_at >= $2 AND e.occurred_at < $3)
      FROM ${LINKED_ANONYMOUS_EVENTS_JOIN('ANY($4::text[])')} GROUP BY 1
  ) span GROUP BY 1`;

interface SpanRow {
  user_id: StoredUserId;
  first_seen: number;
  last_seen: number | null;
  latest: number;
  active: boolean;
}

/**
 * The kept windows serving the run, of users after $4 (a resumed run), in byte order; not those
 * holding no event and none since $2 with nothing stored since (inactive users' windows), which would
 * only be read to be skipped.
 */
const KEPT_WINDOWS_CURSOR = `
  DECLARE kept_windows NO SCROLL CURSOR FOR
  SELECT w.user_id COLLATE "C" AS user_id, ${KEPT_WINDOW_COLUMNS}
    FROM user_windows w JOIN user_activity a USING (organization_id, user_id)
   WHERE w.organization_id = $1 AND ${SERVING_KEPT_WINDOW} AND ($4::text IS NULL OR w.user_id COLLATE "C" > $4)
     AND (w.last_seen >= ${EPOCH_MS('$2::timestamptz')} OR w.events <> '[]' OR w.revision <> a.revision)
   ORDER BY 1`;

/** The events from $2 on (no end) of the users $3, by user (byte order) then time: both branches of the rule. */
const READ_HISTORIES_CURSOR = `
  DECLARE read_histories NO SCROLL CURSOR FOR
  SELECT ${historyColumns('h.user_id', 'h')} FROM (
    SELECT e.user_id, e.occurred_at, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties
      FROM events e WHERE ${OWN_EVENTS('ANY($3::text[])')} AND e.occurred_at >= $2
    UNION ALL
    SELECT i.user_id, e.occurred_at, e.event, e.session_id, e.screen, e.dwell_ms, e.hesitation_ms, e.scroll_depth, e.numeric_properties
      FROM ${LINKED_ANONYMOUS_EVENTS_JOIN('ANY($3::text[])')} AND e.occurred_at >= $2
  ) h ORDER BY 1, h.occurred_at`;

/**
 * Bulk scoring's read: every user with an event in [from, until), one at a time in byte order of
 * their stored ids, each with their events from `from` on. A user whose window bulk scoring kept
 * (user_windows) still holds their history is read off that one row, with the events stored since
 * when there are any; only the others' events are read, so a daily run reads all the events only of
 * the users whose history changed otherwise (an event dated before the last run, a link, an erasure).
 */
@Injectable()
export class ActiveUsersService {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * `onStart` hears the total and the inactive users' windows (ActiveUsersStart) before the first
   * `onUser`; with `afterUser`, only users sorting after it are read (a resumed run). All in one
   * repeatable-read snapshot: a user changing meanwhile is read as they were when it began.
   */
  async eachActiveUser(
    { organizationId, from, until, afterUser }: ActiveUsersRead,
    onStart: (start: ActiveUsersStart) => Promise<void>,
    onUser: (user: ActiveUser) => void | Promise<void>,
  ): Promise<void> {
    await inReadSnapshot(this.dataSource, async (runner) => {
      const span = [organizationId, from.toISOString(), until.toISOString()];
      const toRead = (await runner.query(USERS_TO_READ_SQL, span)) as Array<{ user_id: StoredUserId; revision: string }>;
      const revisions = new Map(toRead.map((row) => [row.user_id, row.revision]));
      const [[{ users: activeKept }], spans] = (await Promise.all([
        runner.query(ACTIVE_KEPT_USERS_SQL, span),
        runner.query(USERS_READ_SPAN_SQL, [...span, [...revisions.keys()]]),
      ])) as [Array<{ users: number }>, SpanRow[]];
      const firstSeen = new Map(spans.map((row) => [row.user_id, row.first_seen]));
      // No event from the window's start on: nothing to read, and a window of no events to keep.
      const inactive = spans.filter((row) => row.latest < from.getTime());
      await onStart({
        total: activeKept + spans.filter((row) => row.active).length,
        inactiveWindows: inactive.flatMap(
          (row) => windowToKeep(organizationId, row.user_id, [], revisions.get(row.user_id), row.first_seen, from.getTime(), until.getTime(), row.last_seen) ?? [],
        ),
      });

      const after = (user: StoredUserId) => afterUser === null || compareStoredIds(user, afterUser) > 0;
      const toReadOff = spans.filter((row) => row.latest >= from.getTime() && after(row.user_id)).map((row) => row.user_id);
      await runner.query(KEPT_WINDOWS_CURSOR, [...span, afterUser]);
      await runner.query(READ_HISTORIES_CURSOR, [organizationId, from.toISOString(), toReadOff]);
      const kept = keptUsers(runner, from.getTime());
      const read = readUsers(runner, revisions, firstSeen);
      try {
        // Two disjoint sets, each in byte order: merged into one.
        let [nextKept, nextRead] = await Promise.all([kept.next(), read.next()]);
        while (!nextKept.done || !nextRead.done) {
          const takeKept = nextRead.done || (!nextKept.done && compareStoredIds(nextKept.value.user, nextRead.value.user) < 0);
          const user = (takeKept ? nextKept.value : nextRead.value) as ActiveUser;
          // No event before the run's end: not active.
          if (user.history.length > 0 && user.history[0].occurredAt < until.getTime()) await onUser(user);
          if (takeKept) nextKept = await kept.next();
          else nextRead = await read.next();
        }
      } finally {
        // A batch either cursor requested settles before the transaction ends on the same connection.
        await Promise.all([kept.return(undefined), read.return(undefined)]);
      }
    });
  }
}

async function* keptUsers(runner: QueryRunner, from: number): AsyncGenerator<ActiveUser> {
  for await (const rows of cursorBatches<UserWindowRow & { user_id: StoredUserId }>(runner, 'kept_windows', KEPT_FETCH_ROWS)) {
    for (const row of rows) {
      const window = windowAsOf(row, from, Infinity);
      // Extended by the events stored since: whole as of the run's snapshot, and worth keeping at its revision.
      const revisionToKeep = row.recent == null ? undefined : (row.revision ?? undefined);
      yield { user: row.user_id, history: window?.events ?? [], firstSeenAt: window?.firstSeenAt ?? Infinity, revisionToKeep };
    }
  }
}

async function* readUsers(runner: QueryRunner, revisions: ReadonlyMap<StoredUserId, string>, firstSeen: ReadonlyMap<StoredUserId, number>): AsyncGenerator<ActiveUser> {
  for await (const [user, history] of userHistories(cursorBatches(runner, 'read_histories', EVENTS_FETCH_ROWS))) {
    yield { user, history, firstSeenAt: firstSeen.get(user) ?? history[0].occurredAt, revisionToKeep: revisions.get(user) };
  }
}

import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deleteInBatches, RawQueriesService, SameTurnBatches } from '@foresight/platform';
import type { EventRow } from '../ingest/event-row';
import { EventWriterService, type WriteResult } from '../ingest/event-writer.service';
import { cursorBatches, historyColumns, inReadSnapshot, userHistories } from './history-cursor';
import { type StoredUserId, storedUserIdFromStorage } from './stored-user-id';
import type { RecentEvent, UserEvent, UserEventWindow, UserSpan } from './user-event';
import {
  ACTIVITY_STILL_WITHOUT_EVENTS,
  EPOCH_MS,
  ERASABLE_ACTIVITY,
  ERASABLE_EVENTS,
  ERASABLE_IDENTITIES,
  EVENT_USER,
  EVENT_USER_JOIN,
  EVENTS_WINDOW_SQL,
  EVENTS_WINDOWS_SQL,
  KEPT_WINDOW_SQL,
  KEPT_WINDOWS_SQL,
  REVISION_SQL,
  SESSION_USER_SQL,
  TARGET_REACHED_SQL,
  USER_EVENTS,
  USERS_WITHOUT_EVENTS_SQL,
} from './user-events.sql';
import { type UserWindowRow, windowAsOf } from './user-window';

/** Users whose activity rows one retention statement deletes (each checked again for events). */
const ACTIVITY_DELETE_USERS = 2_000;

/** Rows a training cursor fetches per round trip. */
const CURSOR_FETCH_ROWS = 20_000;

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

/** One request's window: a user's events from `from` until `until` (epoch ms). */
interface WindowAsk {
  user: StoredUserId;
  from: number;
  until: number;
}

/**
 * "The user" of libs/events: every query over the events, identities and user_activity tables, all
 * following the one rule of user-events.sql.ts. Other libs read a user's behavior only through here.
 */
@Injectable()
export class UserEventsService {
  /** Window reads by organization, coalesced per turn of the event loop. */
  private readonly windowAsks = new SameTurnBatches<string, WindowAsk, UserEventWindow | undefined>((organizationId, asks) =>
    this.readWindows(organizationId, asks),
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly queries: RawQueriesService,
    private readonly writer: EventWriterService,
  ) {}

  /**
   * Stores events (group commit). With `changedUsers`, the result names every user whose history
   * changed, linked anonymous events and re-links included; without, it names none.
   */
  write(rows: EventRow[], options: { changedUsers: boolean }): Promise<WriteResult> {
    return this.writer.write(rows, options);
  }

  /**
   * The serving window [from, until) of one user; undefined when the organization has no event of the
   * user before `until`. Read off the window bulk scoring kept while the user's revision holds, else
   * off the events. The windows an organization's requests ask for in the same turn of the event loop
   * are read together, in one round trip for all of them.
   */
  window(organizationId: string, user: StoredUserId, from: Date, until: Date): Promise<UserEventWindow | undefined> {
    return this.windowAsks.add(organizationId, { user, from: from.getTime(), until: until.getTime() });
  }

  /** The serving windows of many users in two round trips at most, in the order given (undefined as `window` answers it). */
  windows(organizationId: string, users: readonly StoredUserId[], from: Date, until: Date): Promise<Array<UserEventWindow | undefined>> {
    return this.readWindows(organizationId, users.map((user) => ({ user, from: from.getTime(), until: until.getTime() })));
  }

  /**
   * Windows asked for together. Alone, by the one-user statements (the cheaper plans); together, read
   * from the earliest start as of the earliest end, which serves every ask's later start and end
   * (windowAsOf), then each cut to its own.
   */
  private async readWindows(organizationId: string, asks: WindowAsk[]): Promise<Array<UserEventWindow | undefined>> {
    if (asks.length === 0) return [];
    if (asks.length === 1) {
      const [{ user, from, until }] = asks;
      const params = [organizationId, user, new Date(from).toISOString(), new Date(until).toISOString()];
      const [kept] = await this.queries.prepared<UserWindowRow>('events.kept-window', KEPT_WINDOW_SQL, params);
      const row = kept ?? (await this.queries.prepared<UserWindowRow>('events.events-window', EVENTS_WINDOW_SQL, params))[0];
      return [windowAsOf(row, from, until)];
    }
    const since = Math.min(...asks.map((ask) => ask.from));
    const asOf = Math.min(...asks.map((ask) => ask.until));
    const rows = await this.windowRows(organizationId, [...new Set(asks.map((ask) => ask.user))], since, asOf);
    return asks.map(({ user, from, until }) => windowAsOf(rows.get(user) as UserWindowRow, from, until));
  }

  /** The window rows of distinct users from `since` as of `asOf`: the kept ones, then the others read off the events. */
  private async windowRows(organizationId: string, users: readonly StoredUserId[], since: number, asOf: number): Promise<Map<StoredUserId, UserWindowRow>> {
    const params = [new Date(since).toISOString(), new Date(asOf).toISOString()];
    const kept = await this.queries.prepared<UserWindowRow & { user_id: StoredUserId }>('events.kept-windows', KEPT_WINDOWS_SQL, [organizationId, users, ...params]);
    const rows = new Map<StoredUserId, UserWindowRow>(kept.map((row) => [row.user_id, row]));
    const unkept = users.filter((user) => !rows.has(user));
    if (unkept.length > 0) {
      const read = await this.queries.preparedWithoutJit<UserWindowRow>('events.events-windows', EVENTS_WINDOWS_SQL, [organizationId, unkept, ...params]);
      unkept.forEach((user, i) => rows.set(user, read[i]));
    }
    return rows;
  }

  /** user_activity's revision, moved by every change to the user's history; undefined without an activity row. */
  async revision(organizationId: string, user: StoredUserId): Promise<string | undefined> {
    const [row] = await this.queries.prepared<{ revision: string }>('events.user-revision', REVISION_SQL, [organizationId, user]);
    return row?.revision;
  }

  async userOfSession(organizationId: string, sessionId: string): Promise<StoredUserId | undefined> {
    const [row] = await this.queries.prepared<{ user_id: string }>('events.session-user', SESSION_USER_SQL, [organizationId, sessionId]);
    return row === undefined ? undefined : storedUserIdFromStorage(row.user_id);
  }

  async hasEvents(organizationId: string, user: StoredUserId): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM events e WHERE ${USER_EVENTS('$2')} LIMIT 1`, [organizationId, user]);
    return rows.length > 0;
  }

  /** The user's events in [since, until), oldest first: occurrence time (epoch ms) and client session. */
  async timeline(organizationId: string, user: StoredUserId, since?: Date, until?: Date): Promise<Array<{ occurredAt: number; sessionId: string | null }>> {
    return this.dataSource.query(
      `SELECT ${EPOCH_MS('e.occurred_at')} AS "occurredAt", e.session_id AS "sessionId"
         FROM events e WHERE ${USER_EVENTS('$2')} AND e.occurred_at >= $3 AND e.occurred_at < $4 ORDER BY e.occurred_at`,
      [organizationId, user, since?.toISOString() ?? '-infinity', until?.toISOString() ?? 'infinity'],
    );
  }

  /** The user's latest events, newest first: names and times only (properties may hold personal data). */
  async latest(organizationId: string, user: StoredUserId, limit: number): Promise<RecentEvent[]> {
    const rows = await this.dataSource.query<Array<{ event: string; occurred_at: Date; session_id: string | null }>>(
      `SELECT e.event, e.occurred_at, e.session_id FROM events e WHERE ${USER_EVENTS('$2')} ORDER BY e.occurred_at DESC LIMIT $3`,
      [organizationId, user, limit],
    );
    return rows.map((row) => ({ event: row.event, timestamp: row.occurred_at.toISOString(), sessionId: row.session_id }));
  }

  /** For each span, whether the user did `event` in it (monitoring's outcomes), in the order given. */
  async reached(organizationId: string, event: string, spans: readonly UserSpan[]): Promise<boolean[]> {
    if (spans.length === 0) return [];
    const rows: Array<{ reached: boolean }> = await this.dataSource.query(TARGET_REACHED_SQL, [
      organizationId,
      spans.map((s) => s.user),
      spans.map((s) => s.after.toISOString()),
      spans.map((s) => s.until.toISOString()),
      event,
    ]);
    return rows.map((row) => row.reached);
  }

  /** The `limit` most frequent event names of [from, until), sorted by name. */
  async frequentEvents(organizationId: string, from: Date, until: Date, limit: number): Promise<string[]> {
    const rows: Array<{ event: string }> = await this.dataSource.query(
      `SELECT event FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3
        GROUP BY event ORDER BY count(*) DESC, event LIMIT $4`,
      [organizationId, from.toISOString(), until.toISOString(), limit],
    );
    return rows.map((r) => r.event).sort();
  }

  /** The screens (or urls) of [from, until) with their views, most viewed first, at most `limit` raw values. */
  async frequentScreens(organizationId: string, from: Date, until: Date, limit: number): Promise<Array<{ screen: string; views: number }>> {
    const rows: Array<{ screen: string; views: string }> = await this.dataSource.query(
      `SELECT screen, count(*) AS views FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3 AND screen IS NOT NULL
        GROUP BY screen ORDER BY count(*) DESC, screen LIMIT $4`,
      [organizationId, from.toISOString(), until.toISOString(), limit],
    );
    return rows.map((r) => ({ screen: r.screen, views: Number(r.views) }));
  }

  /**
   * The `limit` numeric custom properties most often sent with the events `events` in [from, until),
   * most frequent first (ties by event, then key).
   */
  async frequentNumericProperties(
    organizationId: string,
    events: readonly string[],
    from: Date,
    until: Date,
    limit: number,
  ): Promise<Array<{ event: string; key: string }>> {
    return this.dataSource.query(
      `SELECT e.event, p.key FROM events e, jsonb_object_keys(e.numeric_properties) AS p(key)
        WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3 AND e.event = ANY($4::text[])
          AND e.numeric_properties IS NOT NULL
        GROUP BY e.event, p.key ORDER BY count(*) DESC, e.event, p.key LIMIT $5`,
      [organizationId, from.toISOString(), until.toISOString(), events, limit],
    );
  }

  /** Which behavioral signals the organization's events of [from, until) carry at all. */
  async signalsSent(organizationId: string, from: Date, until: Date): Promise<{ dwell: boolean; hesitation: boolean; scrollDepth: boolean }> {
    const [signals]: Array<{ dwell: boolean; hesitation: boolean; scrollDepth: boolean }> = await this.dataSource.query(
      `SELECT coalesce(bool_or(dwell_ms IS NOT NULL), false) AS dwell, coalesce(bool_or(hesitation_ms IS NOT NULL), false) AS hesitation,
              coalesce(bool_or(scroll_depth IS NOT NULL), false) AS "scrollDepth"
         FROM events WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3`,
      [organizationId, from.toISOString(), until.toISOString()],
    );
    return signals;
  }

  /** The users who did `event` in [from, until) (training's sample is stratified by it). */
  async usersWhoDid(organizationId: string, event: string, from: Date, until: Date): Promise<Set<StoredUserId>> {
    const rows: Array<{ user_id: StoredUserId }> = await this.dataSource.query(
      `SELECT DISTINCT ${EVENT_USER} AS user_id
         FROM events e ${EVENT_USER_JOIN}
        WHERE e.organization_id = $1 AND e.event = $2 AND e.occurred_at >= $3 AND e.occurred_at < $4 AND ${EVENT_USER} IS NOT NULL`,
      [organizationId, event, from.toISOString(), until.toISOString()],
    );
    return new Set(rows.map((r) => r.user_id));
  }

  /** When each user of the organization was first seen (epoch ms), over all their events. */
  async firstSeen(organizationId: string): Promise<Map<StoredUserId, number>> {
    const rows: Array<{ user_id: StoredUserId; first_seen: Date }> = await this.dataSource.query(
      `SELECT ${EVENT_USER} AS user_id, min(e.occurred_at) AS first_seen
         FROM events e ${EVENT_USER_JOIN}
        WHERE e.organization_id = $1 AND ${EVENT_USER} IS NOT NULL
        GROUP BY 1`,
      [organizationId],
    );
    return new Map(rows.map((r) => [r.user_id, r.first_seen.getTime()]));
  }

  /**
   * The training cursor: every user's events of [from, until), one user at a time in user order,
   * streamed through a server-side cursor in one repeatable-read snapshot (flat memory). With `users`,
   * only theirs: a sample is chosen in SQL, so the cursor sorts and sends only its events. When
   * `onUser` returns a promise, the cursor waits for it before the next user. Without `until`, the
   * events have no end.
   */
  async eachUserHistory(
    organizationId: string,
    from: Date,
    until: Date | null,
    users: readonly StoredUserId[] | null,
    onUser: (user: StoredUserId, history: UserEvent[]) => void | Promise<void>,
  ): Promise<void> {
    await inReadSnapshot(this.dataSource, async (runner) => {
      // Byte order ("C") groups a user's events as well as the database's collation and sorts with abbreviated keys.
      await runner.query(
        `DECLARE user_histories NO SCROLL CURSOR FOR
           SELECT ${historyColumns(EVENT_USER)}
             FROM events e ${EVENT_USER_JOIN}
            WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND ($3::timestamptz IS NULL OR e.occurred_at < $3) AND ${EVENT_USER} IS NOT NULL
              AND ($4::text[] IS NULL OR ${EVENT_USER} = ANY($4::text[]))
            ORDER BY 1, e.occurred_at`,
        [organizationId, from.toISOString(), until?.toISOString() ?? null, users],
      );
      for await (const [user, history] of userHistories(cursorBatches(runner, 'user_histories', CURSOR_FETCH_ROWS))) await onUser(user, history);
    });
  }

  /** The anonymous ids linked to the user, oldest link first. */
  linkedAnonymousIds(organizationId: string, user: StoredUserId): Promise<Array<{ anonymousId: StoredUserId; linkedAt: Date }>> {
    return this.dataSource.query(
      `SELECT anonymous_id AS "anonymousId", linked_at AS "linkedAt" FROM identities WHERE organization_id = $1 AND user_id = $2 ORDER BY linked_at`,
      [organizationId, user],
    );
  }

  /** Everything erasure would remove of the user's events, oldest first. */
  erasableEvents(organizationId: string, user: string): Promise<StoredUserEventRow[]> {
    return this.dataSource.query(
      `SELECT message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at, properties, context, encryption_key_id
         FROM events e WHERE ${ERASABLE_EVENTS} ORDER BY occurred_at, message_id`,
      [organizationId, user],
    );
  }

  /**
   * Erases the user's events, the identity links naming the user, and the activity row (with the
   * user's user_windows row, by its foreign key), in one statement. Data-modifying CTEs share one
   * snapshot: the events' links are read before they are deleted. Another user whose event carried
   * this id as its anonymous id, or to whom this id was linked as one, lost events: their revision
   * moves (and their kept window is no longer read).
   */
  async erase(organizationId: string, user: string): Promise<number> {
    const [{ n }] = await this.dataSource.query<Array<{ n: string }>>(
      `WITH events_gone AS (DELETE FROM events e WHERE ${ERASABLE_EVENTS} RETURNING e.user_id),
            links_gone AS (DELETE FROM identities WHERE ${ERASABLE_IDENTITIES} RETURNING user_id),
            activity_gone AS (DELETE FROM user_activity WHERE ${ERASABLE_ACTIVITY} RETURNING 1),
            others_changed AS (
              UPDATE user_activity SET revision = revision + 1
               WHERE organization_id = $1 AND user_id <> $2
                 AND user_id IN (SELECT user_id FROM events_gone UNION SELECT user_id FROM links_gone))
       SELECT (SELECT count(*) FROM events_gone) + (SELECT count(*) FROM links_gone) + (SELECT count(*) FROM activity_gone) AS n`,
      [organizationId, user],
    );
    return Number(n);
  }

  /** Rows erasure would still find. */
  async remaining(organizationId: string, user: string): Promise<number> {
    const [{ n }] = await this.dataSource.query<Array<{ n: string }>>(
      `SELECT (SELECT count(*) FROM events e WHERE ${ERASABLE_EVENTS}) + (SELECT count(*) FROM identities WHERE ${ERASABLE_IDENTITIES})
            + (SELECT count(*) FROM user_activity WHERE ${ERASABLE_ACTIVITY}) + (SELECT count(*) FROM user_windows WHERE ${ERASABLE_ACTIVITY}) AS n`,
      [organizationId, user],
    );
    return Number(n);
  }

  /**
   * Events older than `before`, then the activity rows of users left with no event (also after a
   * dropped partition, which deleted events without this; their user_windows rows go with them), and
   * the user_windows rows that hold or count an event older than `before` (first seen before it).
   * Identity links stay: they are no behavior, and erasure removes them.
   */
  async expire(organizationId: string, before: Date): Promise<number> {
    const events = await deleteInBatches(this.dataSource, 'events', 'organization_id = $1 AND occurred_at < $2', [organizationId, before.toISOString()]);
    await deleteInBatches(this.dataSource, 'user_windows', `organization_id = $1 AND first_seen < ${EPOCH_MS('$2::timestamptz')}`, [organizationId, before.toISOString()]);
    const users = (await this.dataSource.query<Array<{ user_id: string }>>(USERS_WITHOUT_EVENTS_SQL, [organizationId])).map((row) => row.user_id);
    let activity = 0;
    for (let start = 0; start < users.length; start += ACTIVITY_DELETE_USERS) {
      const chunk = users.slice(start, start + ACTIVITY_DELETE_USERS);
      activity += await deleteInBatches(this.dataSource, 'user_activity', ACTIVITY_STILL_WITHOUT_EVENTS, [organizationId, chunk]);
    }
    return events + activity;
  }
}

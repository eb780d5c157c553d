import { Injectable } from '@nestjs/common';
import { deleteInBatches, SameTurnBatches, SqlExecutor } from '@foresight/platform';
import type { EventRow } from '../ingest/event-row';
import { EventWriterService, type WriteResult } from '../ingest/event-writer.service';
import { DELTA_MARGIN_MS } from './kept-windows/kept-windows.sql';
import { type ParsedWindowRow, parseWindowRow, type UserWindowRow, type UserWindowSnapshot, windowIn, windowToKeep } from './kept-windows/user-window';
import { UserWindowsService } from './kept-windows/user-windows.service';
import { type StoredUserId, storedUserIdFromStorage } from './stored-user-id';
import type { RecentEvent, UserEventWindow, UserSpan } from './user-event';
import {
  DELETE_ACTIVITY_WITHOUT_EVENTS,
  ERASABLE_EVENTS_OF,
  ERASABLE_REMAINING,
  ERASE_USER,
  EVENTS_WINDOW,
  EVENTS_WINDOWS,
  EXPIRE_EVENTS,
  HAS_EVENTS,
  LATEST_EVENTS,
  LINKED_ANONYMOUS_IDS,
  SESSION_USER,
  type StoredUserEventRow,
  TARGET_REACHED,
  TIMELINE,
  USER_REVISION,
  USERS_WITHOUT_EVENTS,
} from './user-events.sql';

/** Users whose activity rows one retention statement deletes (each checked again for events). */
const ACTIVITY_DELETE_USERS = 2_000;
/**
 * Events a serving read took off the events, dated before the taking's margin (DELTA_MARGIN_MS),
 * from which on it keeps the window it read: every later read would take them off the events again,
 * one heap page each, where a kept window is one row. Keeping writes the whole window, so not for a
 * few events.
 */
export const KEEP_AFTER_EVENTS = 100;
/**
 * Windows one read keeps at most (each held as text until written: a batch of 1,000 long windows
 * would hold hundreds of MB), and how long a user's keep, refused or not, is not tried again (a user
 * sending events faster than a keep is written would otherwise cost a window's text per read).
 */
const KEEPS_PER_READ = 20;
const KEEP_AGAIN_AFTER_MS = 60_000;

/** A user's window row as read, and whether it came off a kept window. */
interface WindowRead {
  row: UserWindowRow;
  kept: boolean;
}

/** One request's window: a user's events from `from` until `until` (epoch ms). */
interface WindowAsk {
  user: StoredUserId;
  from: number;
  until: number;
}

/**
 * "The user" of libs/events: every query over the events, identities and user_activity tables, all
 * following the one rule of user-history.sql.ts. Other libs read a user's behavior only through here
 * and, for training, TrainingEvents. Serving's reads, revisions and erasure run on the primary
 * (they must see the latest writes); monitoring's outcomes on the read replica when one is configured.
 */
@Injectable()
export class UserEventsService {
  /** Window reads by organization, coalesced per turn of the event loop. */
  private readonly windowAsks = new SameTurnBatches<string, WindowAsk, UserEventWindow | undefined>((organizationId, asks) =>
    this.readWindows(organizationId, asks),
  );
  /** When each user's window was last sent to be kept, oldest first (organization and user, NUL-separated). */
  private readonly keepsTried = new Map<string, number>();

  constructor(
    private readonly sql: SqlExecutor,
    private readonly writer: EventWriterService,
    private readonly keptWindows: UserWindowsService,
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
   * user before `until`. Read off the window bulk scoring kept while it holds (UserWindowsService),
   * else off the events. The windows an organization's requests ask for in the same turn of the event
   * loop are read together, in one round trip for all of them.
   */
  window(organizationId: string, user: StoredUserId, from: Date, until: Date): Promise<UserEventWindow | undefined> {
    return this.windowAsks.add(organizationId, { user, from: from.getTime(), until: until.getTime() });
  }

  /** The serving windows of many users in two round trips at most, in the order given (undefined as `window` answers it). */
  windows(organizationId: string, users: readonly StoredUserId[], from: Date, until: Date): Promise<Array<UserEventWindow | undefined>> {
    return this.readWindows(organizationId, users.map((user) => ({ user, from: from.getTime(), until: until.getTime() })));
  }

  /**
   * Windows asked for together: read from the earliest start as of the earliest end, which serves
   * every ask's later start and end (windowIn), then each cut to its own.
   */
  private async readWindows(organizationId: string, asks: WindowAsk[]): Promise<Array<UserEventWindow | undefined>> {
    if (asks.length === 0) return [];
    const since = Math.min(...asks.map((ask) => ask.from));
    const asOf = Math.min(...asks.map((ask) => ask.until));
    const reads = await this.windowRows(organizationId, [...new Set(asks.map((ask) => ask.user))], since, asOf);
    return this.answer(organizationId, asks, reads, since, asOf);
  }

  /** The window rows of distinct users from `since` as of `asOf`: the kept ones, then the others read off the events. Alone, by the one-user statements (the cheaper plans). */
  private async windowRows(organizationId: string, users: readonly StoredUserId[], since: number, asOf: number): Promise<Map<StoredUserId, WindowRead>> {
    const span = [new Date(since).toISOString(), new Date(asOf).toISOString()] as const;
    if (users.length === 1) {
      const [user] = users;
      const kept = await this.keptWindows.read(organizationId, user, new Date(since), new Date(asOf));
      // EVENTS_WINDOW answers a row for every user (one row of one-row subqueries).
      const read: WindowRead = kept ? { row: kept, kept: true } : { row: (await this.sql.first(EVENTS_WINDOW, [organizationId, user, ...span])) as UserWindowRow, kept: false };
      return new Map([[user, read]]);
    }
    const keptRows = await this.keptWindows.readMany(organizationId, users, new Date(since), new Date(asOf));
    const unkept = users.filter((user) => !keptRows.has(user));
    const read = unkept.length === 0 ? [] : await this.sql.rows(EVENTS_WINDOWS, [organizationId, unkept, ...span]);
    const reads = new Map([...keptRows].map(([user, row]) => [user, { row, kept: true }]));
    unkept.forEach((user, i) => reads.set(user, { row: read[i], kept: false }));
    return reads;
  }

  /**
   * Each ask cut out of its user's row, parsed once and let go before the next user's (a batch holds
   * its answers, not every row's parse too). Then keeps the windows that took KEEP_AFTER_EVENTS or
   * more events off the events, dated before the margin a kept window reads apart: the next reads take
   * one row and the few events stored since. Kept as bulk scoring keeps (the revision read, checked
   * again under the row lock), after the answer and never waited for: a refusal (the user sent an
   * event meanwhile) only leaves the next read as this one was.
   */
  private answer(organizationId: string, asks: WindowAsk[], reads: Map<StoredUserId, WindowRead>, since: number, asOf: number): Array<UserEventWindow | undefined> {
    const now = Date.now();
    for (const [key, at] of this.keepsTried) {
      if (now - at < KEEP_AGAIN_AFTER_MS) break;
      this.keepsTried.delete(key);
    }
    const asksOf = new Map<StoredUserId, number[]>();
    for (const [i, { user }] of asks.entries()) {
      const indices = asksOf.get(user);
      if (indices) indices.push(i);
      else asksOf.set(user, [i]);
    }
    const answers = new Array<UserEventWindow | undefined>(asks.length);
    const toKeep: UserWindowSnapshot[] = [];
    for (const [user, indices] of asksOf) {
      const { row: text, kept } = reads.get(user) as WindowRead;
      const row = parseWindowRow(text);
      for (const i of indices) answers[i] = windowIn(row, asks[i].from, asks[i].until);
      const key = `${organizationId}\u0000${user}`;
      if (toKeep.length === KEEPS_PER_READ || row.revision_to_keep === null || this.keepsTried.has(key)) continue;
      if (eventsBefore(kept ? row.recent : row.events, asOf - DELTA_MARGIN_MS) < KEEP_AFTER_EVENTS) continue;
      const window = windowIn(row, since, Infinity);
      const snapshot = window && windowToKeep(organizationId, user, window.events, row.revision_to_keep, window.firstSeenAt, since, asOf, row.last_seen);
      if (!snapshot) continue;
      toKeep.push(snapshot);
      this.keepsTried.set(key, now);
    }
    if (toKeep.length > 0) void this.keptWindows.keep(toKeep);
    return answers;
  }

  /** user_activity's revision, moved by every change to the user's history; undefined without an activity row. */
  async revision(organizationId: string, user: StoredUserId): Promise<string | undefined> {
    return (await this.sql.first(USER_REVISION, [organizationId, user]))?.revision;
  }

  async userOfSession(organizationId: string, sessionId: string): Promise<StoredUserId | undefined> {
    const row = await this.sql.first(SESSION_USER, [organizationId, sessionId]);
    return row === undefined ? undefined : storedUserIdFromStorage(row.user_id);
  }

  async hasEvents(organizationId: string, user: StoredUserId): Promise<boolean> {
    return (await this.sql.first(HAS_EVENTS, [organizationId, user])) !== undefined;
  }

  /** The user's events in [since, until), oldest first: occurrence time (epoch ms) and client session. */
  timeline(organizationId: string, user: StoredUserId, since?: Date, until?: Date): Promise<Array<{ occurredAt: number; sessionId: string | null }>> {
    return this.sql.rows(TIMELINE, [organizationId, user, since?.toISOString() ?? '-infinity', until?.toISOString() ?? 'infinity']);
  }

  /** The user's latest events, newest first: names and times only (properties may hold personal data). */
  async latest(organizationId: string, user: StoredUserId, limit: number): Promise<RecentEvent[]> {
    const rows = await this.sql.rows(LATEST_EVENTS, [organizationId, user, limit]);
    return rows.map((row) => ({ event: row.event, timestamp: row.occurred_at.toISOString(), sessionId: row.session_id }));
  }

  /** For each span, whether the user did `event` (null: any event) in it (monitoring's outcomes, on the replica), in the order given. */
  async reached(organizationId: string, event: string | null, spans: readonly UserSpan[]): Promise<boolean[]> {
    if (spans.length === 0) return [];
    const rows = await this.sql.replica.rows(TARGET_REACHED, [
      organizationId,
      spans.map((s) => s.user),
      spans.map((s) => s.after.toISOString()),
      spans.map((s) => s.until.toISOString()),
      event,
    ]);
    return rows.map((row) => row.reached);
  }

  /** The anonymous ids linked to the user, oldest link first. */
  linkedAnonymousIds(organizationId: string, user: StoredUserId): Promise<Array<{ anonymousId: StoredUserId; linkedAt: Date }>> {
    return this.sql.rows(LINKED_ANONYMOUS_IDS, [organizationId, user]);
  }

  /** Everything erasure would remove of the user's events, oldest first. */
  erasableEvents(organizationId: string, user: string): Promise<StoredUserEventRow[]> {
    return this.sql.rows(ERASABLE_EVENTS_OF, [organizationId, user]);
  }

  /** Erases the user's events, links and activity row (ERASE_USER); returns the events and links deleted. */
  async erase(organizationId: string, user: string): Promise<{ events: number; identities: number }> {
    const row = await this.sql.first(ERASE_USER, [organizationId, user]);
    return { events: Number(row?.events ?? 0), identities: Number(row?.identities ?? 0) };
  }

  /** Rows erasure would still find. */
  async remaining(organizationId: string, user: string): Promise<number> {
    const row = await this.sql.first(ERASABLE_REMAINING, [organizationId, user]);
    return Number(row?.n ?? 0);
  }

  /**
   * The kept windows holding or counting an event older than `before` (UserWindowsService.expire),
   * such events, then the activity rows of users left with no event (also after a dropped partition, which deleted
   * events without this; their kept windows go with them). Identity links stay: they are no
   * behavior, and erasure removes them.
   */
  async expire(organizationId: string, before: Date): Promise<number> {
    // The kept windows first: none holding an expired event is served once its events are gone.
    await this.keptWindows.expire(organizationId, before);
    const events = await deleteInBatches(this.sql, EXPIRE_EVENTS, [organizationId, before.toISOString()]);
    const users = (await this.sql.rows(USERS_WITHOUT_EVENTS, [organizationId])).map((row) => row.user_id);
    let activity = 0;
    for (let start = 0; start < users.length; start += ACTIVITY_DELETE_USERS) {
      const chunk = users.slice(start, start + ACTIVITY_DELETE_USERS);
      activity += await deleteInBatches(this.sql, DELETE_ACTIVITY_WITHOUT_EVENTS, [organizationId, chunk]);
    }
    return events + activity;
  }
}

/** How many of `readOff` (what a read took off the events, oldest first) are dated before `before`. */
function eventsBefore(readOff: ParsedWindowRow['events'], before: number): number {
  let count = 0;
  for (const [occurredAt] of readOff) {
    if (occurredAt >= before) break;
    count++;
  }
  return count;
}

import { Injectable } from '@nestjs/common';
import { SqlExecutor, type SqlRunner } from '@foresight/platform';
import {
  ACTIVE_KEPT_USERS,
  DECLARE_KEPT_WINDOWS,
  DECLARE_READ_HISTORIES,
  FETCH_KEPT_WINDOWS,
  FETCH_READ_HISTORIES,
  ORGANIZATION_USERS,
  USERS_READ_SPAN,
  USERS_TO_READ,
} from './active-users.sql';
import { compareStoredIds, cursorBatches, READ_SNAPSHOT, userHistories } from './history-cursor';
import { type UserWindowSnapshot, windowAsOf, windowToKeep } from './kept-windows/user-window';
import { type StoredUserId } from './stored-user-id';
import type { UserEvent } from './user-event';

/** A user with an event in the run's window, as bulk scoring reads them. */
export interface ActiveUser {
  user: StoredUserId;
  /** The user's events from the window's start on, oldest first, with no end (events dated later included). */
  history: UserEvent[];
  /** The user's first event ever (epoch ms). */
  firstSeenAt: number;
  /**
   * The user's revision (with the activity row's version: REVISION_TO_KEEP) when the history was read
   * whole (off the events, or off a kept window and the events stored since): a window worth keeping,
   * under it. Undefined when read off a window kept at that revision. Opaque: only keeping reads it.
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

/** Every value of hashtext(user id) (a signed 32-bit integer): shards of a run cut it into ranges. */
export const USER_HASHES = { hashFrom: -(2 ** 31), hashTo: 2 ** 31 - 1 } as const;

/**
 * A bulk scoring shard's read: the organization's users active in [from, until) whose hashtext(user
 * id) is in [hashFrom, hashTo], after `afterUser` when a resumed shard asks.
 */
export interface ActiveUsersRead {
  organizationId: string;
  from: Date;
  until: Date;
  hashFrom: number;
  hashTo: number;
  afterUser: StoredUserId | null;
}

/**
 * Bulk scoring's read: every user with an event in [from, until), one at a time in byte order of
 * their stored ids, each with their events from `from` on. A user whose window bulk scoring kept
 * (user_windows) still holds their history is read off that one row, with the events stored since
 * when there are any; only the others' events are read, so a daily run reads all the events only of
 * the users whose history changed otherwise (an event dated before the last run, a link, an erasure).
 */
@Injectable()
export class ActiveUsersService {
  constructor(private readonly sql: SqlExecutor) {}

  /** Users the organization has stored events for, active or not: what sizes a bulk scoring run's shards. */
  async usersOf(organizationId: string): Promise<number> {
    return (await this.sql.first(ORGANIZATION_USERS, [organizationId]))?.users ?? 0;
  }

  /**
   * `onStart` hears the total and the inactive users' windows (ActiveUsersStart) before the first
   * `onUser`; with `afterUser`, only users sorting after it are read (a resumed shard). All in one
   * repeatable-read snapshot (READ_SNAPSHOT, on the read replica when one is configured) per shard:
   * a user changing meanwhile is read as they were when it began, and their window is then not kept
   * (UserWindowsService.keep keeps only what the primary still holds). Shards of one run read in
   * snapshots of their own, all as of the run's cutoff (`until`).
   */
  async eachActiveUser(
    { organizationId, from, until, hashFrom, hashTo, afterUser }: ActiveUsersRead,
    onStart: (start: ActiveUsersStart) => Promise<void>,
    onUser: (user: ActiveUser) => void | Promise<void>,
  ): Promise<void> {
    await this.sql.transaction(async (tx) => {
      const span: [string, string, string] = [organizationId, from.toISOString(), until.toISOString()];
      const shard: [...typeof span, number, number] = [...span, hashFrom, hashTo];
      const toRead = await tx.rows(USERS_TO_READ, shard);
      const revisions = new Map(toRead.map((row) => [row.user_id, row.revision_to_keep]));
      const [[{ users: activeKept }], spans] = await Promise.all([tx.rows(ACTIVE_KEPT_USERS, shard), tx.rows(USERS_READ_SPAN, [...span, [...revisions.keys()]])]);
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
      await tx.affected(DECLARE_KEPT_WINDOWS, [...shard, afterUser]);
      await tx.affected(DECLARE_READ_HISTORIES, [organizationId, from.toISOString(), toReadOff]);
      const kept = keptUsers(tx, from.getTime());
      const read = readUsers(tx, revisions, firstSeen);
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
    }, READ_SNAPSHOT);
  }
}

async function* keptUsers(runner: SqlRunner, from: number): AsyncGenerator<ActiveUser> {
  for await (const rows of cursorBatches(runner, FETCH_KEPT_WINDOWS)) {
    for (const row of rows) {
      const window = windowAsOf(row, from, Infinity);
      // Extended by the events stored since: whole as of the run's snapshot, and worth keeping at its revision.
      const revisionToKeep = row.recent == null ? undefined : (row.revision_to_keep ?? undefined);
      yield { user: row.user_id, history: window?.events ?? [], firstSeenAt: window?.firstSeenAt ?? Infinity, revisionToKeep };
    }
  }
}

async function* readUsers(runner: SqlRunner, revisions: ReadonlyMap<StoredUserId, string>, firstSeen: ReadonlyMap<StoredUserId, number>): AsyncGenerator<ActiveUser> {
  for await (const [user, history] of userHistories(cursorBatches(runner, FETCH_READ_HISTORIES))) {
    yield { user, history, firstSeenAt: firstSeen.get(user) ?? history[0].occurredAt, revisionToKeep: revisions.get(user) };
  }
}

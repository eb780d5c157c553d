import { SqlExecutor } from '@foresight/platform';
import { cursorBatches, READ_SNAPSHOT, userHistories } from './history-cursor';
import type { StoredUserId } from './stored-user-id';
import type { UserEvent } from './user-event';
import {
  DECLARE_USER_HISTORIES,
  FETCH_USER_HISTORIES,
  FREQUENT_EVENTS,
  FREQUENT_NUMERIC_PROPERTIES,
  FREQUENT_SCREENS,
  FREQUENT_STRING_VALUES,
  SIGNALS_SENT,
  TRAINING_USERS,
} from './user-events.sql';

/** The users a training run reads (TrainingEvents.trainingUsers). */
export interface TrainingUsers {
  /** The organization's users: those with an event, ever. */
  users: number;
  /** Whether `firstSeen` holds a sample of them rather than all. */
  sampled: boolean;
  /** The users read, with when each was first seen (epoch ms, over all their events). */
  firstSeen: Map<StoredUserId, number>;
}

/**
 * Training's reads of the events, under user-history.sql.ts's rule like UserEventsService's: what the
 * organization sends most, the users a run reads and their histories. Only a SqlExecutor is needed,
 * so a training run's own process (libs/models' training.process.ts) reads them with a connection of
 * its own. The aggregates run on the read replica when one is configured (what a model is trained on
 * tolerates the replica's lag); the histories' cursor on the primary, in one snapshot.
 */
export class TrainingEvents {
  constructor(private readonly sql: SqlExecutor) {}

  /** The `limit` most frequent event names of [from, until), sorted by name. */
  async frequentEvents(organizationId: string, from: Date, until: Date, limit: number): Promise<string[]> {
    const rows = await this.sql.replica.rows(FREQUENT_EVENTS, [organizationId, from.toISOString(), until.toISOString(), limit]);
    return rows.map((r) => r.event).sort();
  }

  /** The screens (or urls) of [from, until) with their views, most viewed first, at most `limit` raw values. */
  async frequentScreens(organizationId: string, from: Date, until: Date, limit: number): Promise<Array<{ screen: string; views: number }>> {
    const rows = await this.sql.replica.rows(FREQUENT_SCREENS, [organizationId, from.toISOString(), until.toISOString(), limit]);
    return rows.map((r) => ({ screen: r.screen, views: Number(r.views) }));
  }

  /**
   * The `limit` numeric custom properties most often sent with the events `events` in [from, until),
   * most frequent first (ties by event, then key).
   */
  frequentNumericProperties(organizationId: string, events: readonly string[], from: Date, until: Date, limit: number): Promise<Array<{ event: string; key: string }>> {
    return this.sql.replica.rows(FREQUENT_NUMERIC_PROPERTIES, [organizationId, from.toISOString(), until.toISOString(), events, limit]);
  }

  /**
   * The `limit` most frequent values of the string properties sent with the events `events` in
   * [from, until), of the properties that took at most `maxValuesPerKey` values (a plan, a reason;
   * not an id), most frequent first (ties by event, key, value).
   */
  frequentStringValues(
    organizationId: string,
    events: readonly string[],
    from: Date,
    until: Date,
    maxValuesPerKey: number,
    limit: number,
  ): Promise<Array<{ event: string; key: string; value: string }>> {
    return this.sql.replica.rows(FREQUENT_STRING_VALUES, [organizationId, from.toISOString(), until.toISOString(), events, maxValuesPerKey, limit]);
  }

  /** Which behavioral signals the organization's events of [from, until) carry at all. */
  async signalsSent(organizationId: string, from: Date, until: Date): Promise<{ dwell: boolean; hesitation: boolean; scrollDepth: boolean }> {
    // An aggregate without GROUP BY: always one row.
    const [signals] = await this.sql.replica.rows(SIGNALS_SENT, [organizationId, from.toISOString(), until.toISOString()]);
    return signals;
  }

  /**
   * The users a training run reads, chosen in the database (TRAINING_USERS): all of the organization's
   * users up to `maxUsers`, else a sample of about `maxUsers` stratified by whether they did
   * `targetEvent` in [from, until). Only the users read come back, with when each was first seen:
   * memory is bounded by the sample, whatever the organization's size.
   */
  async trainingUsers(organizationId: string, targetEvent: string, from: Date, until: Date, maxUsers: number): Promise<TrainingUsers> {
    const rows = await this.sql.replica.rows(TRAINING_USERS, [organizationId, targetEvent, from.toISOString(), until.toISOString(), maxUsers]);
    const users = rows.length === 0 ? 0 : Number(rows[0].users);
    return { users, sampled: users > maxUsers, firstSeen: new Map(rows.map((r) => [r.user_id, r.first_seen])) };
  }

  /**
   * The training cursor: every user's events of [from, until), one user at a time in user order,
   * streamed through a server-side cursor in one repeatable-read snapshot (flat memory; READ_SNAPSHOT).
   * With `users`, only theirs: a sample is chosen in SQL, so the cursor sorts and sends only its
   * events. When `onUser` returns a promise, the cursor waits for it before the next user. Without
   * `until`, the events have no end.
   */
  async eachUserHistory(
    organizationId: string,
    from: Date,
    until: Date | null,
    users: readonly StoredUserId[] | null,
    onUser: (user: StoredUserId, history: UserEvent[]) => void | Promise<void>,
  ): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.affected(DECLARE_USER_HISTORIES, [organizationId, from.toISOString(), until?.toISOString() ?? null, users]);
      for await (const [user, history] of userHistories(cursorBatches(tx, FETCH_USER_HISTORIES))) await onUser(user, history);
    }, READ_SNAPSHOT);
  }
}

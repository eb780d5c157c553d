/**
 * The kept window, owned here: a user's window as bulk scoring or serving read it (their events from
 * `window_from` on with no end, first event ever, latest event before `taken_at`), stored in
 * user_windows under the user's revision so that serving and the next runs read one row instead of
 * the user's events. This folder reads kept windows (KEPT_WINDOW, KEPT_WINDOWS, KEPT_WINDOW_SERVES
 * for bulk scoring's read), keeps them (keep), and provides what retires them: the revision touches
 * ingestion and erasure run (TOUCH_USERS, TOUCH_USERS_ANY_TIME) and retention's deletion (expire).
 *
 * INVARIANT: a kept window is served only while it answers exactly as the user's events do. A row
 * `w` of user_windows serves [from, until) of its user, whose user_activity row is `a`, only when
 *   (1) w.window_from <= from and w.taken_at <= until (windowAsOf cuts any later start and end), and
 *   (2) w.revision = a.revision, or w.revision = a.delta_base and a.revision = a.delta_base +
 *       a.delta_count; in that case with the events dated from a.delta_from on read apart, in place
 *       of the kept ones from there (KEPT_WINDOW_HOLDS).
 * It holds because every way the user's events can change is one of these:
 *   - Ingestion (event-writer.service.ts) moves a.revision, in the transaction that stores, of every
 *     user whose history it changes: the users its events name, the users its anonymous-only events'
 *     ids are linked to, both sides of a (re-)link (TOUCH_USERS). It counts the move as a delta
 *     (delta_count + 1) only when every event it stored for the user is dated at or after
 *     a.delta_from; a link counts from -infinity, so never. A delta therefore only adds events dated
 *     at or after delta_from, which case (2) reads off the events.
 *   - Erasure (user-events.service.ts) deletes the erased id's activity row, and with it `w` (foreign
 *     key, ON DELETE CASCADE), and moves the revision of every other user who lost events or links
 *     (TOUCH_USERS_ANY_TIME, never a delta).
 *   - Retention moves no revision: it deletes only events older than its cutoff, first deleting
 *     every kept window first seen before it (expire), and the activity rows (so the windows) of
 *     users left with no event. A kept window first seen at or after the cutoff holds no deleted event.
 *   - Keeping (keep, KEEP_WINDOWS) stores a window only while the user's activity row is the one it
 *     was read from, unchanged (REVISION_TO_KEEP: revision and row version, compared with the row
 *     locked in ingestion's lock order), and only when it is first seen within the organization's
 *     retention; it sets delta_base to that revision, delta_count to 0 and delta_from
 *     DELTA_MARGIN_MS before the taking. A kept window is replaced only by one of a later revision.
 * Two reads feed keep, each recording REVISION_TO_KEEP in the statement that reads the events (one
 * snapshot): serving's (UserEventsService, on the primary), when a read took many events off the
 * events that the next reads would take again; and bulk scoring's, whose reads come from an older
 * snapshot: it reads in one repeatable-read transaction, on the read replica when DATABASE_READ_URL
 * is set (ActiveUsersService). A window read
 * there is kept only if the primary's activity row is still the row version the snapshot saw, so it
 * holds exactly the events the primary holds at that revision: every change but retention moves the
 * revision in its own transaction; retention is covered by the first-seen check (as long as
 * retention_days is not raised between the read and the keep: events deleted under the shorter
 * retention would then be kept); and a row deleted (erasure, retention of the last event) and created
 * again, whose revision starts over at 1, is another row version. From then on the window is served
 * only while the primary's revision equals it (or counts deltas from it), as above.
 */
import { Inject, Injectable } from '@nestjs/common';
import { deleteInBatches, LOGGER, type Logger, postgresErrorCode, SqlExecutor } from '@foresight/platform';
import type { StoredUserId } from '../stored-user-id';
import { EXPIRE_KEPT_WINDOWS, KEEP_WINDOWS, KEPT_WINDOW, KEPT_WINDOWS } from './kept-windows.sql';
import type { UserWindowRow, UserWindowSnapshot } from './user-window';

/** Windows per statement (a few KB of events each). */
const WRITE_ROWS = 500;

/**
 * user_windows: the windows bulk scoring and serving read, kept for serving to read instead of the
 * events (UserEventsService.window). Keeping one is never needed for an answer, so a write Postgres
 * refuses (the user erased meanwhile, say) is dropped with a warning.
 */
@Injectable()
export class UserWindowsService {
  constructor(
    private readonly sql: SqlExecutor,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The kept window of the user serving [from, until), if one does (on the primary: it must see the latest revision). */
  read(organizationId: string, user: StoredUserId, from: Date, until: Date): Promise<UserWindowRow | undefined> {
    return this.sql.first(KEPT_WINDOW, [organizationId, user, from.toISOString(), until.toISOString()]);
  }

  /** The kept windows of those users serving [from, until), by user; the others are absent. */
  async readMany(organizationId: string, users: readonly StoredUserId[], from: Date, until: Date): Promise<Map<StoredUserId, UserWindowRow>> {
    const rows = await this.sql.rows(KEPT_WINDOWS, [organizationId, users, from.toISOString(), until.toISOString()]);
    return new Map(rows.map((row) => [row.user_id, row]));
  }

  /** Keeps the windows (one per user), WRITE_ROWS per statement. */
  async keep(windows: readonly UserWindowSnapshot[]): Promise<void> {
    for (let start = 0; start < windows.length; start += WRITE_ROWS) {
      const batch = windows.slice(start, start + WRITE_ROWS);
      try {
        await this.sql.affected(KEEP_WINDOWS, [
          batch.map((w) => w.organizationId),
          batch.map((w) => w.user),
          batch.map((w) => w.revision),
          batch.map((w) => w.windowFrom),
          batch.map((w) => w.takenAt),
          batch.map((w) => w.firstSeen),
          batch.map((w) => w.lastSeen),
          batch.map((w) => w.events),
        ]);
      } catch (error) {
        // The code only: a refusal's detail names the row's key, a user id.
        this.logger.warn({ code: postgresErrorCode(error) ?? 'unreachable', windows: batch.length }, 'user windows not kept');
      }
    }
  }

  /** Retention's part: deletes the kept windows holding or counting an event older than `before`. */
  expire(organizationId: string, before: Date): Promise<number> {
    return deleteInBatches(this.sql, EXPIRE_KEPT_WINDOWS, [organizationId, before.toISOString()]);
  }
}

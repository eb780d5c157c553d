import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LOGGER, type Logger, postgresErrorCode } from '@foresight/platform';
import type { UserWindowSnapshot } from './user-window';

/** Windows per statement (a few KB of events each). */
const WRITE_ROWS = 500;

/**
 * How long before a kept window's taking an event may be dated and still count as stored since
 * (user_activity's delta_from): events sent after the taking but dated a little earlier (a client's
 * queue flushed late) then extend the kept window instead of retiring it. Bigger reads more events
 * per request after a new one; an event dated earlier still answers right, off all the events.
 */
export const DELTA_MARGIN_MS = 3_600_000;

/**
 * Keeps windows in user_windows at the revision they were read at, when that is still the user's
 * revision (otherwise the window is outdated already, or the user erased) and none of its events
 * is older than the organization's retention (retention moves no revision: a window read before a
 * retention run deleted the user's first events must not outlive the run). A window kept at the same
 * revision stays: it answers the same for any later window.
 *
 * The user's activity row then becomes the base of the events stored since (delta_base, count 0,
 * delta_from DELTA_MARGIN_MS before the taking; 1764760000000-user-activity-delta.ts). Its rows are
 * locked in key order first, as ingestion locks them, so the revision cannot move between the check
 * and the write and the two cannot deadlock.
 */
const KEEP_SQL = `
  WITH current AS (
    SELECT u.* FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::text[])
             AS u(organization_id, user_id, revision, window_from, taken_at, first_seen, last_seen, events)
      JOIN organizations o ON o.id = u.organization_id AND u.first_seen >= date_part('epoch', now() - o.retention_days * interval '1 day') * 1000
      JOIN user_activity a ON a.organization_id = u.organization_id AND a.user_id = u.user_id AND a.revision = u.revision
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
   WHERE user_windows.revision < EXCLUDED.revision`;

/**
 * user_windows, written: the windows bulk scoring read, kept for serving to read instead of the
 * events (UserEventsService.window). Keeping one is never needed for an answer, so a write Postgres
 * refuses (the user erased meanwhile, say) is dropped with a warning.
 */
@Injectable()
export class UserWindowsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Keeps the windows (one per user), WRITE_ROWS per statement. */
  async keep(windows: readonly UserWindowSnapshot[]): Promise<void> {
    for (let start = 0; start < windows.length; start += WRITE_ROWS) {
      const batch = windows.slice(start, start + WRITE_ROWS);
      try {
        await this.dataSource.query(KEEP_SQL, [
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
}

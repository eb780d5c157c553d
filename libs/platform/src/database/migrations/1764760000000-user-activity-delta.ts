import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserActivityDelta1764760000000 implements MigrationInterface {
  name = 'UserActivityDelta1764760000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // What serving needs to read a user's window as the kept one plus the events stored since
    // (UserEventsService.window), instead of every event of the window after each new one:
    // `delta_count` revisions after `delta_base` each stored only events dated at or after `delta_from`,
    // and nothing else. That holds while `revision = delta_base + delta_count`; a kept window of revision
    // `delta_base` then holds every event dated before `delta_from`. Keeping a window sets the three
    // (user_windows.service.ts); ingestion counts a revision only when all its events are dated at or
    // after `delta_from` (event-writer.service.ts). Anything else moving the revision (an event dated
    // earlier, a new link, erasure, a release that does not know these columns) leaves them, which breaks
    // the equation until the next window is kept. The defaults never satisfy it (revisions start at 1).
    await queryRunner.query(`
      ALTER TABLE user_activity
        ADD COLUMN delta_base  bigint      NOT NULL DEFAULT 0,
        ADD COLUMN delta_count bigint      NOT NULL DEFAULT 0,
        ADD COLUMN delta_from  timestamptz NOT NULL DEFAULT 'infinity'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE user_activity DROP COLUMN delta_base, DROP COLUMN delta_count, DROP COLUMN delta_from`);
  }
}

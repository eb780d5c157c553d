import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UserWindows1764750000000 implements MigrationInterface {
  name = 'UserWindows1764750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A user's feature window as one row, valid while user_activity's revision is `revision`: serving
    // and batch predictions read it instead of the user's events (two primary-key reads instead of
    // index scans over every partition of the window). `events` holds the events from `window_from` on
    // (JSON text of FEATURE_EVENT_ARRAYs, oldest first, with no upper bound: a window ending later is
    // read off the same row while nothing new is stored); `first_seen` is the user's first event ever
    // and `last_seen` the latest one before `taken_at` (epoch ms). Written by bulk scoring. The foreign
    // key deletes it with the activity row (erasure, retention of a user's last event), so a revision
    // counted again from 1 never meets an older row of the same user; retention deletes the rows of
    // users it deleted events of (first_seen before its cutoff).
    await queryRunner.query(`
      CREATE TABLE user_windows (
        organization_id text NOT NULL,
        user_id         text NOT NULL,
        revision        bigint NOT NULL,
        window_from     timestamptz NOT NULL,
        taken_at        timestamptz NOT NULL,
        first_seen      float8 NOT NULL,
        last_seen       float8 NOT NULL,
        events          text NOT NULL,
        PRIMARY KEY (organization_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES user_activity (organization_id, user_id) ON DELETE CASCADE
      )`);
    // Text as the worker wrote it (JSON.stringify): no JSON parse on write. lz4 where the server was
    // built with it (Debian's PostgreSQL is; otherwise the step is skipped): it compresses and
    // decompresses several times faster than the default pglz.
    await queryRunner.query(`
      DO $$ BEGIN
        ALTER TABLE user_windows ALTER COLUMN events SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported THEN NULL;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE user_windows`);
  }
}
